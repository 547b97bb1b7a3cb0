import type { FastifyInstance } from 'fastify'

// Schemas compiled when first used, not at start-up. Compiling every validator and serializer of
// Berth's routes (about 450, each with its path, query, body and responses) took about 3 s of CPU
// at every start (each `berth serve`, each test file), while a process answers a few of its routes.
// What is not compiled yet stays listed, so that a test can compile it all (compileEverySchema) and
// a schema that does not compile still fails a test rather than its first request.

/** The compilations one app has deferred. */
export interface DeferredCompilations {
  /** A function that compiles on its first call and then answers what it compiled. */
  defer<T>(compile: () => T): () => T
  /** Compiles everything deferred; answers how many there were. */
  compileAll(): number
}

export function deferredCompilations(): DeferredCompilations {
  const pending = new Set<() => unknown>()
  return {
    defer<T>(compile: () => T): () => T {
      let compiled: { value: T } | undefined
      const compiledNow = () => {
        if (compiled === undefined) {
          compiled = { value: compile() }
          pending.delete(compiledNow)
        }
        return compiled.value
      }
      pending.add(compiledNow)
      return compiledNow
    },
    compileAll() {
      const all = [...pending]
      for (const compile of all) compile()
      return all.length
    },
  }
}

const deferredOf = new WeakMap<FastifyInstance, DeferredCompilations>()

/** Notes the app's deferred compilations, for compileEverySchema. */
export const noteDeferredCompilations = (app: FastifyInstance, deferred: DeferredCompilations) => deferredOf.set(app, deferred)

/** Compiles every validator and serializer of the app not compiled yet; answers how many there were. */
export const compileEverySchema = (app: FastifyInstance): number => deferredOf.get(app)?.compileAll() ?? 0
