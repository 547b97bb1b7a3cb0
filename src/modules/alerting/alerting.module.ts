import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '#src/config.ts'
import { monitoringPaths } from '#src/modules/metrics/monitoring-engines.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { createAlertReceiversService } from './alert-receivers.service.ts'
import { createAlertRulesService } from './alert-rules.service.ts'
import { createAlertingRepository } from './alerting.repository.ts'
import { alertingRoutes } from './alerting.routes.ts'
import { createEngineSync } from './engine-sync.ts'

/** The alerting routes, wired: each change is written for the engines and loaded (docs/alerting.md). */
export function alertingModule(deps: { config: Config; db: Db; secrets: SecretBox; organizations: OrganizationsService; log: FastifyBaseLogger }) {
  const { config } = deps
  const paths = monitoringPaths(config.metrics, config.database.dataDir)
  const engines = createEngineSync({ db: deps.db, secrets: deps.secrets, paths, groupWaitMs: config.metrics.groupWaitMs })
  // No engines to load into: neither Berth's own (serve with the Docker executor) nor the operator's.
  const idle = paths.embedded && !config.metrics.run
  const changed = () =>
    idle ||
    void engines
      .sync()
      .catch((error: unknown) => deps.log.warn({ err: error }, 'could not load the alerting change into Prometheus and Alertmanager'))
  const repo = createAlertingRepository(deps.db)
  const common = { repo, organizations: deps.organizations, listLimit: config.http.listLimit, changed }
  return alertingRoutes(
    createAlertReceiversService({ ...common, secrets: deps.secrets, allowPrivateUrls: config.outbound.allowPrivateUrls }),
    createAlertRulesService({ ...common, settings: config.metrics, paths }),
  )
}
