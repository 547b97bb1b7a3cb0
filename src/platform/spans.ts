// Timed steps as debug-level log lines (docs/performance.md, "Where a deploy's time goes"): each
// says its step, how long it took, and the fields of what it was part of (a deployment, a
// service). At any level above `debug` a span costs one clock reading and no line.

/** Where spans are written: the process's logger, or a child of it. */
export interface SpanLog {
  debug(fields: object, message: string): void
  isLevelEnabled?(level: string): boolean
}

/** Times `work` as `step`; the line is written whether it resolves or rejects. */
export type Span = <T>(step: string, work: () => Promise<T>) => Promise<T>

/** Spans that time nothing: where no logger is given (tests, tools). */
export const untimed: Span = (_step, work) => work()

/** Milliseconds, to a tenth. */
const elapsed = (since: number) => Math.round((performance.now() - since) * 10) / 10

/** Spans written to `log` at debug level with `fields`, each line `trace: 'deploy'`, its `step` and `ms`. */
export function spans(log: SpanLog | undefined, fields: object): Span {
  if (!log || log.isLevelEnabled?.('debug') === false) return untimed
  const base = { trace: 'deploy', ...fields }
  return async (step, work) => {
    const started = performance.now()
    let failed = false
    try {
      return await work()
    } catch (error) {
      failed = true
      throw error
    } finally {
      const ms = elapsed(started)
      log.debug({ ...base, step, ms, ...(failed ? { failed } : {}) }, `deploy step ${step}: ${ms} ms`)
    }
  }
}

/** Writes a step measured elsewhere (a wait between two moments), in the same form as a span's. */
export function spanLine(log: SpanLog | undefined, fields: object, step: string, ms: number): void {
  if (!log || log.isLevelEnabled?.('debug') === false) return
  const rounded = Math.round(ms * 10) / 10
  log.debug({ trace: 'deploy', ...fields, step, ms: rounded }, `deploy step ${step}: ${rounded} ms`)
}
