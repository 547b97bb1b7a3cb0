const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const

/** Parses durations such as `90s`, `15m`, `12h`, `30d`, `2w` into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d{1,6})([smhdw])$/.exec(text.trim())
  if (!match) throw new Error(`"${text}" is not a duration: use a number and a unit s, m, h, d or w (e.g. 30d)`)
  const value = Number(match[1])
  if (value === 0) throw new Error('a duration must be longer than zero')
  return value * UNIT_MS[match[2] as keyof typeof UNIT_MS]
}
