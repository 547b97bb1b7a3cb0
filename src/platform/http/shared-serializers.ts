import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import type { FastifyServerOptions } from 'fastify'
import type { DeferredCompilations } from './compile-on-first-use.ts'

/** What Fastify's `schemaController.compilersFactory.buildSerializer` option takes. */
type BuildSerializer = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>
type Serializer = ReturnType<ReturnType<BuildSerializer>>

// The compiler Fastify uses by itself (fast-json-stringify), as Fastify resolves it.
const require = createRequire(import.meta.url)
const fastifyCompiler = require(require.resolve('@fastify/fast-json-stringify-compiler', { paths: [require.resolve('fastify')] })) as {
  SerializerSelector: () => BuildSerializer
}

const fingerprint = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64')

/**
 * Fastify's response serializer compiler, except that a schema compiles once per process. Fastify
 * compiles a serializer for every status of every route (and again for each GET's HEAD route):
 * about 4,000 for Berth's routes, mostly the same ten error responses, each with its own generated
 * code and, where the schema has unions, its own Ajv. Schemas are compared by content (their
 * JSON; TypeBox's symbol keys do not change what fast-json-stringify writes) together with the
 * shared schemas they may refer to and the options.
 */
export function sharedSerializers(deferred: DeferredCompilations): BuildSerializer {
  const build = fastifyCompiler.SerializerSelector()
  const compiled = new Map<string, Serializer>()
  return (externalSchemas, serializerOptions) => {
    const compile = build(externalSchemas, serializerOptions)
    const context = fingerprint([externalSchemas, serializerOptions ?? null])
    // Each compiles on its first use (compile-on-first-use.ts): a process sends few of them.
    return (route) => {
      const compiledNow = deferred.defer(() => {
        const key = `${context} ${fingerprint(route.schema)}`
        const serializer = compiled.get(key) ?? compile(route)
        compiled.set(key, serializer)
        return serializer
      })
      return ((data: unknown) => compiledNow()(data)) as Serializer
    }
  }
}
