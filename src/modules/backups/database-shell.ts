import type { Readable } from 'node:stream'

// How a backup reaches a database's engine: a program run inside the database's own container or
// pod (Docker's exec API, or `kubectl exec`), with an argv array and its own environment, never a
// shell line. Each engine's steps (engine-tools.ts) are written against this port once.

/** A program to run in the database's container: its argv, and the environment it adds. */
export interface ShellCommand {
  argv: string[]
  env?: Record<string, string>
}

/** How a program ended: its exit code and the end of what it wrote to stderr. */
export interface ShellOutcome {
  exitCode: number
  stderr: string
}

/** A program whose stdout is being read: the stream ends with the program. */
export interface StreamingRun {
  stdout: Readable
  /** Settles once the program has ended and its exit code is known. */
  finished: Promise<ShellOutcome>
}

export interface DatabaseShell {
  /** Runs `command`, its stdout read as a stream (the program waits while the reader does). */
  stream(command: ShellCommand, signal: AbortSignal): Promise<StreamingRun>
  /** Runs `command` with `input` as its stdin, to the end; its stdout (the first 64 KiB) with its outcome. */
  feed(command: ShellCommand, input: Readable, signal: AbortSignal): Promise<ShellOutcome & { stdout: string }>
  /** Runs `command` to the end; its stdout (the first 64 KiB) with its outcome. */
  run(command: ShellCommand, signal: AbortSignal): Promise<ShellOutcome & { stdout: string }>
}

/** The most of a program's stdout or stderr that is kept when it is not streamed. */
export const KEPT_OUTPUT_BYTES = 64 * 1024

/** Keeps the first `max` bytes of what is appended (then "…"), as text. */
export function keptText(max = KEPT_OUTPUT_BYTES) {
  const chunks: Buffer[] = []
  let size = 0
  let cut = false
  return {
    add(chunk: Buffer) {
      if (size >= max) {
        cut = true
        return
      }
      const part = chunk.subarray(0, max - size)
      chunks.push(part)
      size += part.length
      if (part.length < chunk.length) cut = true
    },
    text: () => Buffer.concat(chunks).toString('utf8') + (cut ? ' …' : ''),
  }
}

/** A failed program, in its own words. */
export class ShellCommandFailed extends Error {
  constructor(
    readonly program: string,
    readonly outcome: ShellOutcome,
  ) {
    const words = outcome.stderr.trim()
    super(`${program} exited with code ${outcome.exitCode}${words ? `: ${words}` : ''}`)
    this.name = 'ShellCommandFailed'
  }
}

/** Throws ShellCommandFailed unless the program exited 0. */
export function succeeded<T extends ShellOutcome>(program: string, outcome: T): T {
  if (outcome.exitCode !== 0) throw new ShellCommandFailed(program, outcome)
  return outcome
}
