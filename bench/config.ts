// The benchmark's settings, read once from BENCH_* variables.
import path from 'node:path'

export interface BenchConfig {
  /** The PostgreSQL server the throw-away database is created on. */
  readonly serverUrl: string
  readonly warmupS: number
  readonly durationS: number
  readonly connections: number
  /** Deployments of the big environment and of the small one. */
  readonly bigHistory: number
  readonly smallHistory: number
  readonly environments: number
  readonly branches: number
  /** Each is one full pass of Berth's scenarios on a server logging at that level. */
  readonly logLevels: readonly string[]
  /** Requests of the one-connection latency probe (after a tenth as many to warm up). */
  readonly probeRequests: number
  /** When set, every `berth serve` writes a CPU profile (node --cpu-prof) into this directory. */
  readonly cpuProfileDir: string | undefined
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`)
  return value
}

export function loadBenchConfig(): BenchConfig {
  const logLevels = (process.env.BENCH_LOG_LEVELS ?? 'warn,info')
    .split(',')
    .map((level) => level.trim())
    .filter(Boolean)
  if (logLevels.length === 0) throw new Error('BENCH_LOG_LEVELS must name at least one log level')
  return Object.freeze({
    serverUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    warmupS: positive('BENCH_WARMUP_S', 3),
    durationS: positive('BENCH_DURATION_S', 10),
    connections: Math.round(positive('BENCH_CONNECTIONS', 50)),
    bigHistory: Math.round(positive('BENCH_BIG_HISTORY', 100_000)),
    smallHistory: Math.round(positive('BENCH_SMALL_HISTORY', 1_000)),
    environments: Math.round(positive('BENCH_ENVIRONMENTS', 1_000)),
    branches: Math.round(positive('BENCH_BRANCHES', 5_000)),
    logLevels,
    probeRequests: Math.round(positive('BENCH_PROBE_REQUESTS', 5_000)),
    cpuProfileDir: process.env.BENCH_CPU_PROF_DIR ? path.resolve(process.env.BENCH_CPU_PROF_DIR) : undefined,
  })
}
