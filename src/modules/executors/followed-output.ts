import type { OutputCursor, OutputLine } from './service-output.ts'

// What every engine's service output shares (service-output.ts): engine times compared to the
// nanosecond, and the follow loop — look for the service's instances now and then, read each one
// from the follower's position on, give the lines in the order they arrive, and end once nothing
// runs, every stream ended and no deployment may start more.

/** An RFC 3339 time (the engine's, to the nanosecond) as nanoseconds since the epoch: the engine trims trailing zeros, so text does not sort. */
export function nanosOf(timestamp: string): bigint {
  const match = /^(.*?:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(timestamp)
  if (!match) return -1n
  const seconds = Date.parse(`${match[1]}${match[3]}`)
  if (Number.isNaN(seconds)) return -1n
  return BigInt(seconds) * 1_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'))
}

/** Oldest first, by the engine's time. */
export const byTime = (a: OutputLine, b: OutputLine) => {
  const difference = nanosOf(a.timestamp) - nanosOf(b.timestamp)
  return difference < 0n ? -1 : difference > 0n ? 1 : 0
}

/** What the service's instances are now, as an engine sees them. */
export interface LookedAt<Found> {
  found: Found[]
  /** Whether any of them runs, or may yet (created, restarting, pending). */
  running: boolean
}

/** How one engine's instances are found and read, for `followOutput`. */
export interface FollowedEngine<Found> {
  look(signal: AbortSignal): Promise<LookedAt<Found>>
  /** The engine's id of an instance (a container's id, a pod's uid). */
  id(found: Found): string
  /** The `source` of its lines: what the follower's position in its output is kept by. */
  source(found: Found): string
  /** Whether an instance whose stream ended prints again (its container was restarted). */
  printsAgain(found: Found): boolean
  /**
   * Starts reading `found` from the time `after` on (the engine may give lines at that very time
   * again: they are dropped here), `line` for each line, `ended` once the stream ends. Returns how
   * to stop reading; throws when the instance cannot be read now (it is tried at the next look).
   */
  read(found: Found, after: string, line: (line: OutputLine) => void, ended: () => void): Promise<() => void>
}

/** The lines `first`, then what the service's instances print, for as long as it runs (or until `signal`). */
export async function* followOutput<Found>(
  engine: FollowedEngine<Found>,
  cursor: OutputCursor,
  first: OutputLine[],
  signal: AbortSignal,
  deploying: () => Promise<boolean>,
  pollMs: number,
): AsyncIterable<OutputLine> {
  const positions = { ...cursor.positions }
  const queue: OutputLine[] = [...first]
  let wake: (() => void) | undefined
  const attached = new Map<string, { stop: () => void; ended: boolean }>()
  const nudge = () => {
    wake?.()
    wake = undefined
  }
  signal.addEventListener('abort', nudge, { once: true })

  async function attach(found: Found) {
    const after = positions[engine.source(found)] ?? cursor.since
    const threshold = nanosOf(after)
    const entry = { stop: () => {}, ended: false }
    entry.stop = await engine.read(
      found,
      after,
      (line) => {
        if (nanosOf(line.timestamp) <= threshold) return
        queue.push(line)
        // The position moves as a line is queued, not only as it is given: an instance whose stream
        // ends meanwhile is read again from after it, not from before the lines still queued.
        positions[line.source] = line.timestamp
        nudge()
      },
      () => {
        entry.ended = true
        nudge()
      },
    )
    attached.set(engine.id(found), entry)
  }

  try {
    let running = true
    let lookedAt = 0
    while (!signal.aborted) {
      if (Date.now() - lookedAt >= pollMs) {
        lookedAt = Date.now()
        const looked = await engine.look(signal)
        // An instance whose container restarted prints again after its stream ended: it is read again, after its position.
        for (const found of looked.found) {
          const entry = attached.get(engine.id(found))
          // One that cannot be read now (removed, or being removed as a replaced instance) is tried at the next look.
          if (!entry || (entry.ended && engine.printsAgain(found))) await attach(found).catch(() => undefined)
        }
        running = looked.running
      }
      while (queue.length > 0) {
        const line = queue.shift()!
        positions[line.source] = line.timestamp
        yield line
      }
      // Every stream ended and nothing runs: every line was given; unless a deployment is under way
      // (a stateful service's redeploy stops the old instance before the new one starts).
      if (!running && [...attached.values()].every((entry) => entry.ended) && !(await deploying())) return
      await new Promise<void>((resolve) => {
        wake = resolve
        setTimeout(resolve, pollMs).unref()
      })
    }
  } finally {
    signal.removeEventListener('abort', nudge)
    for (const entry of attached.values()) entry.stop()
  }
}
