import { Ajv, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifyInstance } from 'fastify'

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv

const shared: Options = {
  allErrors: true,
  // Unknown body fields are dropped, not rejected, so newer clients keep working.
  removeAdditional: true,
  useDefaults: true,
  strict: false,
}

function build(options: Options): Ajv {
  return addFormats(new Ajv({ ...shared, ...options }))
}

/**
 * Bodies are validated strictly (a string is not a number), while path and query values, which
 * are always text on the wire, are coerced to the declared types.
 */
export function registerValidation(app: FastifyInstance): void {
  const strict = build({ coerceTypes: false })
  const coercing = build({ coerceTypes: 'array' })
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema))
}
