import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifyInstance } from 'fastify'
import { unstorablePointer } from '../db/storable-text.ts'
import type { DeferredCompilations } from './compile-on-first-use.ts'

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

/**
 * RFC 3339 date-times, as ajv-formats checks them, that are also instants JavaScript can hold. RFC
 * 3339 allows a leap second (`23:59:60Z`) and ajv-formats accepts it, but `Date` cannot represent
 * one: accepted, it would become an Invalid Date deep in a handler (a 500). It is refused as
 * malformed instead; nothing Berth stores needs a leap second.
 */
function representableDateTime(ajv: Ajv): void {
  const rfc3339 = ajv.formats['date-time']
  const check = typeof rfc3339 === 'object' && rfc3339 !== null && 'validate' in rfc3339 ? rfc3339.validate : rfc3339
  if (typeof check !== 'function') throw new Error('ajv-formats no longer checks date-time with a function')
  const valid = check as (text: string) => boolean
  ajv.addFormat('date-time', { type: 'string', validate: (text: string) => valid(text) === true && Number.isFinite(Date.parse(text)) })
}

function build(options: Options): Ajv {
  const ajv = addFormats(new Ajv({ ...shared, ...options }))
  representableDateTime(ajv)
  return ajv
}

/**
 * PostgreSQL cannot take NUL in text, not even to compare: a `%00` in a query value would fail the
 * statement (500). Bodies are refused at parsing (body-parsing.ts); path, query and header values,
 * as they were percent-decoded, are refused here once their schema has passed.
 */
function refusingUnstorable(validate: ValidateFunction) {
  const check = (data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    if (!validate(data, context)) {
      check.errors = validate.errors
      return false
    }
    // Keys are not stored, only values are looked up; a value at the root has the pointer '/'.
    const found = unstorablePointer(data, { keys: false })
    const path = found === '' ? '/' : found
    check.errors =
      path === undefined
        ? null
        : [{ instancePath: path, schemaPath: '', keyword: 'storable', params: {}, message: 'must not contain NUL characters or unpaired surrogates' }]
    return path === undefined
  }
  check.errors = null as ErrorObject[] | null | undefined
  // Fastify passes the parent to a validator with a schemaEnv, so that Ajv can coerce a root value.
  check.schemaEnv = validate.schemaEnv
  return check
}

/** What Fastify calls to validate a request part: a compiled Ajv function, or one that wraps it. */
type Validator = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => boolean) & Pick<ValidateFunction, 'errors' | 'schemaEnv'>

/** A validator compiled on its first use (compile-on-first-use.ts). */
function onFirstUse(compiledNow: () => Validator): Validator {
  const check = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    const validate = compiledNow()
    const valid = validate(data, context)
    check.errors = validate.errors
    return valid
  }) as Validator
  check.errors = null
  // Fastify reads schemaEnv to hand Ajv a root value's parent (so that it can coerce it).
  Object.defineProperty(check, 'schemaEnv', { get: () => compiledNow().schemaEnv })
  return check
}

/**
 * Bodies are validated strictly (a string is not a number), while path and query values, which
 * are always text on the wire, are coerced to the declared types (and may not hold what PostgreSQL cannot take).
 */
export function registerValidation(app: FastifyInstance, deferred: DeferredCompilations): void {
  const strict = build({ coerceTypes: false })
  const coercing = build({ coerceTypes: 'array' })
  app.setValidatorCompiler(({ schema, httpPart }) =>
    onFirstUse(deferred.defer(() => (httpPart === 'body' ? strict.compile(schema) : refusingUnstorable(coercing.compile(schema))))),
  )
}
