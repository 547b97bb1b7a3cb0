import type { Config } from '#src/config.ts'
import { monitoringPaths, startMonitoringEngines } from '#src/modules/metrics/monitoring-engines.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { createEngineSync } from './engine-sync.ts'

type Log = { info(fields: object, message: string): void; warn(fields: object, message: string): void }

/**
 * What `berth serve` runs for alerting: with the Docker executor, Prometheus and Alertmanager, each
 * loaded from the database at every start; with the operator's engines, one load at start.
 */
export async function openMonitoring(config: Config, db: Db, secrets: SecretBox, berthPort: number, log: Log): Promise<{ stop(): Promise<void> }> {
  const settings = config.metrics
  const paths = monitoringPaths(settings, config.database.dataDir)
  const sync = createEngineSync({ db, secrets, paths, groupWaitMs: settings.groupWaitMs })
  if (paths.embedded) {
    if (!settings.run) return { stop: async () => {} }
    const host = config.http.host === '0.0.0.0' || config.http.host === '::' ? '127.0.0.1' : config.http.host
    return startMonitoringEngines({
      settings,
      dataDir: config.database.dataDir,
      berthTarget: `${host.includes(':') ? `[${host}]` : host}:${berthPort}`,
      log,
      writeAlertingFiles: sync.writeFiles,
      onStarted: sync.sync,
    })
  }
  await sync.sync().catch((error: unknown) => log.warn({ err: error }, "could not load the alerting configuration into the operator's engines"))
  return { stop: async () => {} }
}
