import type { Config } from '#src/config.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { localBackupsRoot } from './backup-objects.ts'
import { type BackupWorker, createBackupWorker } from './backup-worker.ts'

/**
 * The backup runner of a process that runs deployments (`berth serve` with its runner, `berth
 * worker`), from the server's settings: the runner's lease and poll (BERTH_RUNNER_LEASE_MS,
 * BERTH_RUNNER_POLL_MS), BERTH_EXECUTOR, BERTH_KUBECTL_PATH, the data dir, BERTH_ALLOW_PRIVATE_URLS.
 */
export function createConfiguredBackupWorker(
  config: Config,
  db: Db,
  secrets: SecretBox,
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void },
): BackupWorker {
  return createBackupWorker({
    db,
    secrets,
    localRoot: localBackupsRoot(config.database.dataDir),
    allowPrivateUrls: config.outbound.allowPrivateUrls,
    defaultExecutor: config.runner.executor === 'docker' ? 'DOCKER' : 'SIMULATED',
    kubectlPath: config.runner.kubectlPath,
    leaseMs: config.runner.leaseMs,
    pollMs: config.runner.pollMs,
    log,
  })
}
