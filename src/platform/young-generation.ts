import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'

/** V8's own factor (node 20 to 24). */
const DEFAULT_GROWTH_FACTOR = 2

/** Whether node was given its young generation's growth by its operator (then it is theirs, and left alone). */
const givenByOperator = () => [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((option) => option.includes('semi-space-growth-factor'))

/**
 * bin/berth.js starts every command with V8's young generation held at its initial size (1 MiB a
 * semi-space). Starting, the process builds objects that all live on (modules, schemas, routes,
 * compiled validators and serializers); V8 reads that survival as a reason to double the young
 * generation, which reached its 2 × 16 MiB maximum before the first request and stayed resident
 * while the server idled (docs/memory.md). This lets it grow as V8 would again: `serve` calls it
 * once it listens, so that load is served as before, and every other command at once.
 */
export function releaseYoungGeneration(): void {
  if (!givenByOperator()) v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`)
}

/**
 * One full garbage collection that compacts the whole old generation, once a server is started.
 * Starting leaves tens of MiB of garbage in the old generation (schemas, validators and
 * serializers compiled, the OpenAPI document built), spread over pages that also hold what lives
 * on; V8's own next full collection frees the objects but keeps most of those pages, resident,
 * until its memory reducer acts (if ever, on an idle server). Compacting moves what lives onto
 * few pages and returns the rest: the idle RSS went from 173 to 131 MiB (docs/memory.md). It
 * costs one pause of tens of milliseconds, before the first request is likely to arrive.
 * `gc` is exposed for the length of the call, in a context of its own.
 */
export function compactHeapOnce(): void {
  v8.setFlagsFromString('--expose-gc')
  v8.setFlagsFromString('--compact-on-every-full-gc')
  try {
    const gc = runInNewContext('gc') as (() => void) | undefined
    gc?.()
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc')
    v8.setFlagsFromString('--no-expose-gc')
  }
}
