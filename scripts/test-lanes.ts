import path from 'node:path'

/** A set of test files run side by side with other lanes, `concurrency` files at a time, on a database of its own. */
export interface Lane {
  name: string
  concurrency: number
  files: string[]
}

// Files that spend most of their time waiting on something else than their own process's CPU: a
// child `berth` process, the Docker engine, Chromium, helm and kubectl against a fake cluster, an
// embedded PostgreSQL. Several of them at once keep the machine busy where two would leave it idle.
// A file here that runs a deployment runner already does it on a database of its own
// (createDeploymentsApp, createIsolatedDatabase), as every file that runs one must.
const WAITING = [
  /^backup-restore\./,
  /^cli-replay\./,
  /^console\.e2e\./,
  /^console-operate\./,
  /^console-product\./,
  /^console-events\./,
  /^console-argocd\./,
  /^console-alerts/,
  /^cron-scheduler\./,
  /^database-outage\./,
  /^demo-seed\./,
  /^dry-run/,
  /^deployment-processes\./,
  /^docker-/,
  /^embedded\./,
  /^enum-words\./,
  /^helm-dry-run\./,
  /^previews-docker\./,
  /^front-door/,
  /^helm-kubernetes/,
  /^iac-/,
  /^kubernetes-/,
  /^list-memory\./,
  /^log-format\./,
  /^provider-replay\./,
  /^resilience-load\./,
  /^rollback\./,
  /^secret-key-check\./,
  /^secrets-in-logs\./,
  /^self-contained\./,
  /^serve-/,
  /^service-limits\./,
  /^service-logs/,
]

// The longest files as last measured, started first in a run with no durations of its own yet (a
// fresh clone): one of them started last would keep the whole run waiting for it.
const LONGEST = [
  'authorization-sweep',
  'iac-tenancy',
  'hostile-routes',
  'self-contained',
  'embedded',
  'front-door-two-berths',
  'docker-promises',
  'front-door',
  'backup-restore',
  'console.e2e',
  'service-logs',
  'serve-external',
  'resilience-load',
  'serve-shutdown',
  'deployment-processes',
  'iac-docker',
  'hostile-input',
  'helm-kubernetes',
  'console-operate.e2e',
  'console-product.e2e',
  'kubernetes-app-builds',
  'database-outage',
  'docker-database-backups',
  'helm-kubernetes-git',
  'create-delete-races',
  'docker-executor',
  'helm-dry-run',
  'cron-scheduler',
  'bearer-keys',
  'demo-seed',
  'deployments-client',
  'docker-faults',
  'deployments',
  'docker-alerting',
]

/** How long `file` is expected to take, in seconds: its last duration, else a rank among the longest, else 0. */
export function expectedSeconds(file: string, known: Record<string, number>): number {
  const measured = known[file]
  if (measured !== undefined) return measured
  const rank = LONGEST.indexOf(path.basename(file).replace(/\.test\.ts$/, ''))
  return rank === -1 ? 0 : 1000 - rank
}

/** How many files of each lane run at once on this 2-core machine: BERTH_TEST_CONCURRENCY=cpu:2,waiting:3 overrides. */
function concurrency(lane: string, fallback: number): number {
  const setting = process.env.BERTH_TEST_CONCURRENCY?.split(',').find((part) => part.startsWith(`${lane}:`))
  const value = Number(setting?.slice(lane.length + 1))
  return Number.isInteger(value) && value > 0 ? value : fallback
}

/** The lanes of a run of `files` (paths under test/); a lane with no file is left out. */
export function lanesOf(files: string[]): Lane[] {
  const waits = (file: string) => WAITING.some((pattern) => pattern.test(path.basename(file)))
  const lanes: Lane[] = [
    { name: 'cpu', concurrency: concurrency('cpu', 2), files: files.filter((file) => !waits(file)) },
    { name: 'waiting', concurrency: concurrency('waiting', 3), files: files.filter(waits) },
  ]
  return lanes.filter((lane) => lane.files.length > 0)
}
