import v8 from 'node:v8'

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
