// The benchmark's settings, read once from BENCH_* variables.
import path from 'node:path'

export interface BenchConfig {
  /**
   * BERTH_BENCH_QUICK=1: a trial of the whole benchmark in seconds (tiny seeds, sub-second loads,
   * one log level) that checks it runs, not what it measures; its results are printed and not
   * written over bench/results/.
   */
  readonly quick: boolean
  /**
   * BENCH_ONLY=metricsExporter or BENCH_ONLY=scale: that scenario alone, on a small seed (the quick
   * trial's sizes unless BENCH_* say otherwise), its result written to
   * bench/results/metrics-exporter.json or bench/results/scale-<N>.json.
   */
  readonly only: BenchOnly | undefined
  /** The PostgreSQL server the throw-away database is created on. */
  readonly serverUrl: string
  readonly warmupS: number
  /** Load on each of a fresh server's routes before any is measured (each scenario still has its own `warmupS`). */
  readonly serverWarmupS: number
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
  /** Rounds of the ceiling alternating with Berth's first page, and the measured seconds of each load in them. */
  readonly pairedRounds: number
  readonly pairedDurationS: number
  /** Changes made on one of two servers to check that remembered pages stay fresh (bench/freshness.ts). */
  readonly freshnessChanges: number
  /** Rounds of `docker run` alternating with a deploy through Berth's Docker executor (bench/docker-deploy.ts). */
  readonly dockerRounds: number
  /** Rounds of a PostgreSQL backup through Berth alternating with pg_dump by hand, and the rows of its table (bench/database-backup.ts). */
  readonly backupRounds: number
  readonly backupRows: number
  /** Container services of the scale scenario (bench/scale.ts), ten an environment; and the rounds of its one-more deploy. */
  readonly scaleServices: number
  readonly scaleProbeRounds: number
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

/** The full run's settings, and the quick trial's (BERTH_BENCH_QUICK=1); BENCH_* variables override either. */
const DEFAULTS = {
  full: {
    warmupS: 3,
    serverWarmupS: 3,
    durationS: 10,
    connections: 50,
    bigHistory: 100_000,
    smallHistory: 1_000,
    environments: 1_000,
    branches: 5_000,
    logLevels: 'warn,info',
    probeRequests: 5_000,
    freshnessChanges: 20,
    pairedRounds: 5,
    pairedDurationS: 4,
    dockerRounds: 5,
    backupRounds: 3,
    // About 200 MB in the database.
    backupRows: 1_000_000,
    scaleServices: 200,
    scaleProbeRounds: 3,
  },
  quick: {
    warmupS: 0.3,
    serverWarmupS: 0.3,
    durationS: 0.5,
    connections: 4,
    bigHistory: 200,
    smallHistory: 50,
    environments: 10,
    branches: 200,
    logLevels: 'warn',
    probeRequests: 50,
    freshnessChanges: 3,
    pairedRounds: 2,
    pairedDurationS: 0.5,
    dockerRounds: 1,
    backupRounds: 1,
    backupRows: 10_000,
    // One environment of two: the trial checks the scenario runs, and CI runs it on a busy machine.
    scaleServices: 2,
    scaleProbeRounds: 1,
  },
}

/** The scenarios BENCH_ONLY can run alone. */
const ONLY = ['metricsExporter', 'scale'] as const
export type BenchOnly = (typeof ONLY)[number]

function onlyOf(raw: string | undefined): BenchOnly | undefined {
  if (raw === undefined || raw === '') return undefined
  const only = ONLY.find((name) => name === raw)
  if (only === undefined) throw new Error(`BENCH_ONLY must be one of ${ONLY.join(', ')} (or unset), got "${raw}"`)
  return only
}
const LOAD_SETTINGS = ['warmupS', 'durationS', 'connections'] as const
const pick = <T extends object, K extends keyof T>(from: T, keys: readonly K[]) =>
  Object.fromEntries(keys.map((key) => [key, from[key]])) as Pick<T, K>

export function loadBenchConfig(): BenchConfig {
  const quick = ['1', 'true'].includes(process.env.BERTH_BENCH_QUICK ?? '')
  const only = onlyOf(process.env.BENCH_ONLY)
  // One scenario needs a database to stand on, not the big histories.
  const defaults = quick ? DEFAULTS.quick : only ? { ...DEFAULTS.quick, ...pick(DEFAULTS.full, LOAD_SETTINGS) } : DEFAULTS.full
  const logLevels = (process.env.BENCH_LOG_LEVELS ?? defaults.logLevels)
    .split(',')
    .map((level) => level.trim())
    .filter(Boolean)
  if (logLevels.length === 0) throw new Error('BENCH_LOG_LEVELS must name at least one log level')
  return Object.freeze({
    quick,
    only,
    serverUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    warmupS: positive('BENCH_WARMUP_S', defaults.warmupS),
    serverWarmupS: positive('BENCH_SERVER_WARMUP_S', defaults.serverWarmupS),
    durationS: positive('BENCH_DURATION_S', defaults.durationS),
    connections: Math.round(positive('BENCH_CONNECTIONS', defaults.connections)),
    bigHistory: Math.round(positive('BENCH_BIG_HISTORY', defaults.bigHistory)),
    smallHistory: Math.round(positive('BENCH_SMALL_HISTORY', defaults.smallHistory)),
    environments: Math.round(positive('BENCH_ENVIRONMENTS', defaults.environments)),
    branches: Math.round(positive('BENCH_BRANCHES', defaults.branches)),
    logLevels,
    probeRequests: Math.round(positive('BENCH_PROBE_REQUESTS', defaults.probeRequests)),
    freshnessChanges: Math.round(positive('BENCH_FRESHNESS_CHANGES', defaults.freshnessChanges)),
    pairedRounds: Math.round(positive('BENCH_PAIRED_ROUNDS', defaults.pairedRounds)),
    pairedDurationS: positive('BENCH_PAIRED_DURATION_S', defaults.pairedDurationS),
    dockerRounds: Math.round(positive('BENCH_DOCKER_ROUNDS', defaults.dockerRounds)),
    backupRounds: Math.round(positive('BENCH_BACKUP_ROUNDS', defaults.backupRounds)),
    backupRows: Math.round(positive('BENCH_BACKUP_ROWS', defaults.backupRows)),
    scaleServices: Math.round(positive('BENCH_SCALE_SERVICES', defaults.scaleServices)),
    scaleProbeRounds: Math.round(positive('BENCH_SCALE_PROBE_ROUNDS', defaults.scaleProbeRounds)),
    cpuProfileDir: process.env.BENCH_CPU_PROF_DIR ? path.resolve(process.env.BENCH_CPU_PROF_DIR) : undefined,
  })
}
