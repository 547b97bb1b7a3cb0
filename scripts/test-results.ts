import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** The counts node's test runner closes a run with (`# pass 3` in TAP, `ℹ pass 3` in spec). */
export interface Summary {
  tests: number
  suites: number
  pass: number
  fail: number
  cancelled: number
  skipped: number
  todo: number
}

/** One test file's run. */
export interface FileResult {
  file: string
  lane: string
  seconds: number
  code: number
  summary: Summary
}

const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'] as const

/** The closing counts of one runner's output; 0 for a count it did not print. */
export function summaryOf(output: string): Summary {
  const summary: Summary = { tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 }
  for (const count of COUNTS) {
    const matches = [...output.matchAll(new RegExp(`^(?:# |ℹ )${count} (\\d+)$`, 'gm'))]
    summary[count] = Number(matches.at(-1)?.[1] ?? 0)
  }
  return summary
}

export function sumSummaries(summaries: Summary[]): Summary {
  const total: Summary = { tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 }
  for (const summary of summaries) for (const count of COUNTS) total[count] += summary[count]
  return total
}

export function slowestFiles(results: FileResult[], count: number): FileResult[] {
  return [...results].sort((a, b) => b.seconds - a.seconds).slice(0, count)
}

// The last run's duration of each file (dist/ is not committed), so that a lane starts its longest
// files first: one started last would make the whole run wait for it.
const DURATIONS_FILE = path.join('dist', 'test-durations.json')

export function readDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Record<string, number>
  } catch {
    return {}
  }
}

/** Adds `results` to the durations file. */
export function writeDurations(results: FileResult[]): void {
  const durations = readDurations()
  for (const result of results) durations[result.file] = Math.round(result.seconds * 10) / 10
  mkdirSync(path.dirname(DURATIONS_FILE), { recursive: true })
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(durations, null, 2)}\n`)
}
