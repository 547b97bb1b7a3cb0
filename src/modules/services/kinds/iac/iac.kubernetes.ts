import type { KindWorkload, NextStep, Workload } from '#src/modules/executors/workload.ts'
import { iacDocker } from './iac.docker.ts'
import type { IacConfig } from './iac.types.ts'
import { engineCommands } from './iac-commands.ts'
import { type IacDeployOverrides, iacRunOf } from './iac-deployments.ts'
import { nothingToRun, runImage, runParts } from './iac-runs.ts'

// What an IAC run is on Kubernetes (docs/iac.md, "Runs on Kubernetes"): one Job of the run's image
// whose init containers run the engine's first commands (init, plan) and whose main container the
// last (apply, plan only, destroy, init -migrate-state), sharing a scratch directory as the engine's
// data directory. The `kubernetes` backend is the engine's own kubernetes backend: the state in a
// Secret of the namespace, locked with a Lease, which the Job's ServiceAccount may write.

const FAILED: NextStep = { failed: true }
const OK: NextStep = { done: { ok: true } }

/** The Kubernetes executor's IAC runs. */
export const iacKubernetes: KindWorkload<IacConfig> = {
  secretValues: iacDocker.secretValues,
  describe({ serviceId, configuration: config, overrides }, { action, settings, openSecret, namespace }): Workload {
    const given = overrides as IacDeployOverrides
    const run = iacRunOf(given, action)
    const kubernetesBackend = 'kubernetes' in config.backend
    const base = { ...runParts(config, openSecret, 'kubernetes'), masked: [], stateAccess: kubernetesBackend }
    if (run === 'NONE') {
      return { ...base, image: null, first: { ...OK, say: nothingToRun(action) }, next: () => OK }
    }
    if (run === 'FORCE_UNLOCK')
      return {
        type: 'refused',
        message: 'force-unlock is not run on Kubernetes clusters yet: the kubernetes backend releases a lock whose Lease expires (docs/iac.md)',
      }
    const image = runImage(config, given, action, settings.iacImages)
    if ('refused' in image) return { type: 'refused', message: image.refused }
    const commands = engineCommands(config)
    const backendConfig = kubernetesBackend ? [`secret_suffix=${serviceId}`, 'in_cluster_config=true', `namespace=${namespace}`] : []
    // Each step of a Job that fails ends it: the plan exits 0 whatever it holds.
    const plan = commands.plan({ detailedExitcode: false })
    return {
      ...base,
      image: image.image,
      first: { run: { name: 'init', args: commands.init({ backendConfig, reconfigure: false, migrateState: run === 'MIGRATE_STATE' }) } },
      next({ args }, result) {
        if (result.code !== 0) return FAILED
        if (args[0] === 'init' && run === 'DESTROY') return { run: { name: 'destroy', args: commands.destroy() } }
        if (args[0] === 'init' && run !== 'MIGRATE_STATE') return { run: { name: 'plan', args: plan } }
        if (args[0] === 'plan' && run === 'PLAN_AND_APPLY') return { run: { name: 'apply', args: commands.apply() } }
        return OK
      },
    }
  },
}
