import type { FastifyInstance } from 'fastify'
import type { Config } from './config.ts'
import { withDeploymentRuleTables } from './modules/deployment-rules/deployment-rules.tables.ts'
import { createEnvironmentSchedules } from './modules/deployment-rules/environment-schedules.ts'
import type { Db } from './platform/db/database.ts'
import { isDatabaseUnavailable } from './platform/db/errors.ts'
import type { Services } from './services.ts'

// What every process serving the API does in the background, stopped when the app closes: idle
// previews swept, deployment rules' auto-stop schedules acted on, Argo CD instances polled, and the
// connections kept to git providers, chart repositories and registries closed.

export function runBackgroundWork(app: FastifyInstance, config: Config, db: Db, services: Services): void {
  // Previews without activity for BERTH_PREVIEW_IDLE_TTL_MS, or whose source went, are deleted (docs/previews.md).
  const previewSweep = setInterval(() => {
    services.previews
      .sweepIdle(config.previews.idleTtlMs)
      // An outage is reported once, by what watches the database; the sweep just tries again.
      .catch((error: unknown) => {
        const unavailable = typeof error === 'object' && error !== null && isDatabaseUnavailable(error)
        if (!unavailable) app.log.warn({ err: error }, 'could not sweep idle previews; will retry')
      })
  }, config.previews.sweepIntervalMs)
  previewSweep.unref()
  app.addHook('onClose', async () => clearInterval(previewSweep))
  // Deployment rules' auto-stop schedules (docs/deployment-rules.md): every server looks; each event is acted on once.
  if (config.environmentSchedules.tickMs > 0) {
    const schedules = createEnvironmentSchedules({
      db: withDeploymentRuleTables(db),
      trigger: (environment, action, triggeredBy) =>
        services.deployments.runScheduled(environment, action === 'STOP' ? 'STOP' : 'DEPLOY', triggeredBy),
      log: app.log,
    })
    let ticking = false
    const scheduleTick = setInterval(() => {
      if (ticking) return
      ticking = true
      schedules
        .tick()
        .catch((error: unknown) => {
          const unavailable = typeof error === 'object' && error !== null && isDatabaseUnavailable(error)
          if (!unavailable) app.log.warn({ err: error }, 'could not look at environments’ auto-stop schedules; will retry')
        })
        .finally(() => {
          ticking = false
        })
    }, config.environmentSchedules.tickMs)
    scheduleTick.unref()
    app.addHook('onClose', async () => clearInterval(scheduleTick))
  }
  app.addHook('onClose', async () => services.closeGitProviders())
  app.addHook('onClose', async () => services.chartIndex.close())
  app.addHook('onClose', async () => services.closeContainerRegistries())
  // Every process serving the API polls the Argo CD instances; a lock keeps one poll per instance at a time (docs/argocd.md).
  services.argocd.poller.start()
  app.addHook('onClose', async () => services.argocd.close())
}
