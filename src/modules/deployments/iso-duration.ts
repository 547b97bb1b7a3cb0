/** An ISO 8601 duration (`PT1M2.5S`) of `ms` milliseconds; `PT0S` for none. */
export function isoDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms))
  const hours = Math.floor(total / 3_600_000)
  const minutes = Math.floor((total % 3_600_000) / 60_000)
  const seconds = (total % 60_000) / 1000
  const parts = `${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}${seconds || (!hours && !minutes) ? `${seconds}S` : ''}`
  return `PT${parts}`
}

/** The time between two instants, up to `end` or, for what still runs, up to `asOf`. */
export function elapsedMs(start: string | Date | null, end: string | Date | null, asOf: string | Date): number {
  if (start === null) return 0
  return new Date(end ?? asOf).getTime() - new Date(start).getTime()
}
