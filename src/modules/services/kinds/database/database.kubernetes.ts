import { databaseValues } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import { type KubernetesKind, ROLLOUT_TIMEOUT_SECONDS } from '#src/modules/executors/kubernetes/builtin-deployments.ts'
import type { DatabaseConfig } from './database.types.ts'

/** The Kubernetes executor's entry for a database (docs/kubernetes.md): a CONTAINER database is a release of the chart Berth ships. */
export const databaseKubernetes: KubernetesKind<DatabaseConfig> = {
  secretValues: (database, openSecret) => [openSecret(database.configuration.credentials.passwordSealed)],
  async perform(database, act) {
    const { action } = act
    if (action === 'UNINSTALL' || action === 'DELETE') return act.uninstall()
    const config = database.configuration
    if (config.mode !== 'CONTAINER')
      return { ok: false, message: `a ${config.mode} database needs a cloud provider; Kubernetes clusters run CONTAINER databases` }
    const password = act.openSecret(config.credentials.passwordSealed)
    const values = databaseValues(database, act.owner, act.databaseImages, password, action === 'STOP')
    return act.installChart(values, ROLLOUT_TIMEOUT_SECONDS, ['--wait'])
  },
}
