// What the benchmark ran on: the numbers that make its results comparable with another run's.
import { execFileSync } from 'node:child_process'
import os from 'node:os'
import { serverVersion } from '#src/platform/db/throwaway-database.ts'

export interface Machine {
  cpuModel: string
  cores: number
  memoryGiB: number
  os: string
  node: string
  postgres: string
  /** os.loadavg() when the run started and when it ended: how busy the machine was with anything else. */
  loadAverage: { atStart: number[]; atEnd?: number[] }
}

export const loadAverage = () => os.loadavg().map((value) => Math.round(value * 100) / 100)

export async function describeMachine(serverUrl: string): Promise<Machine> {
  const cpus = os.cpus()
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: await serverVersion(serverUrl),
    loadAverage: { atStart: loadAverage() },
  }
}

/** The commit the servers were built from, and whether src/ differed from it (work in progress). */
export function describeSource(repoRoot: string): { commit: string; srcChanged: boolean } {
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim()
    } catch {
      return 'unknown'
    }
  }
  return { commit: git('rev-parse', 'HEAD'), srcChanged: git('status', '--porcelain', '--', 'src') !== '' }
}
