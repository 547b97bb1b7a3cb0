import type { ServiceOutcome } from '#src/modules/executors/executor.ts'
import { baseValues, type ChartOwner, type ChartValues, type OpenVariable } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import type { KubernetesKind, PulledImage } from '#src/modules/executors/kubernetes/builtin-deployments.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { IacConfig } from './iac.types.ts'
import { backendOverride, DATA_DIR, engineCommands, WORKDIR } from './iac-commands.ts'
import { type IacDeployOverrides, type IacRun, iacRunOf } from './iac-deployments.ts'
import { DEFAULT_IAC_IMAGES, engineEnvironment, engineImage, engineProgram } from './iac-engines.ts'
import { runDockerfile } from './iac-images.ts'

// What the Kubernetes executor does to an IAC service (docs/iac.md, "Runs on Kubernetes"): the run's
// image built by the runner's Docker engine and pushed to the cluster's registry, then a Job of the
// chart Berth ships whose init containers run the engine's first commands (init, plan) and whose
// main container the last (apply, plan only, destroy, init -migrate-state), sharing a scratch
// directory as the engine's data directory. The `kubernetes` backend is the engine's own
// kubernetes backend: the state in a Secret of the namespace, locked with a Lease, which the Job's
// ServiceAccount may write.

/** What a run gets beyond timeout_sec: building and pulling the image, waiting for a node. */
const START_SECONDS = 300

/** The commands of a run: those before the last (init containers), and the last (the main container). */
function runCommands(
  config: IacConfig,
  run: Exclude<IacRun, 'NONE' | 'FORCE_UNLOCK'>,
  backendConfig: string[],
): { steps: string[][]; last: string[] } {
  const commands = engineCommands(config)
  const init = commands.init({ backendConfig, migrateState: run === 'MIGRATE_STATE' })
  if (run === 'MIGRATE_STATE') return { steps: [], last: init }
  if (run === 'DESTROY') return { steps: [init], last: commands.destroy() }
  const plan = commands.plan({ detailedExitcode: false })
  if (run === 'PLAN_ONLY') return { steps: [init], last: plan }
  return { steps: [init, plan], last: commands.apply() }
}

/** The chart's values of an IAC run: a Job of the run's image, the engine's commands in order. */
export function iacValues(
  snapshot: ServiceSnapshot<IacConfig>,
  owner: ChartOwner,
  variables: OpenVariable[],
  image: PulledImage,
  run: Exclude<IacRun, 'NONE' | 'FORCE_UNLOCK'>,
  context: { namespace: string; openSecret(sealed: string): string },
): ChartValues {
  const config = snapshot.configuration
  const kubernetesBackend = 'kubernetes' in config.backend
  const backendConfig = kubernetesBackend ? [`secret_suffix=${owner.serviceId}`, 'in_cluster_config=true', `namespace=${context.namespace}`] : []
  const { steps, last } = runCommands(config, run, backendConfig)
  const values = baseValues(snapshot, owner, variables)
  const override = backendOverride('kubernetes')
  return {
    ...values,
    workload: 'Job',
    image: image.reference,
    imagePullSecret: image.registry.auth
      ? { server: image.registry.auth.serveraddress, username: image.registry.auth.username, password: image.registry.auth.password }
      : null,
    command: [engineProgram(config.engine)],
    args: last,
    steps: steps.map((args, index) => ({ name: `${args[0]}-${index}`, args })),
    workingDir: WORKDIR,
    scratch: { mountPath: DATA_DIR },
    stateAccess: kubernetesBackend,
    env: { ...values.env, ...engineEnvironment(config, context.openSecret) },
    files: [...values.files, ...(kubernetesBackend ? [{ key: 'iac-backend', path: override.path, content: override.content }] : [])],
    resources: { cpu: `${config.jobResources.cpuMilli}m`, memory: `${config.jobResources.ramMib}Mi` },
    job: {
      name: `iac-${owner.serviceId.slice(0, 8)}-${owner.executionId.slice(0, 8)}`,
      backoffLimit: 0,
      ...(config.timeoutSec > 0 ? { activeDeadlineSeconds: config.timeoutSec } : {}),
    },
  }
}

/** The Kubernetes executor's entry for an IAC service. */
export const iacKubernetes: KubernetesKind<IacConfig> = {
  async perform(snapshot, act): Promise<ServiceOutcome> {
    const { action, steps } = act
    const config = snapshot.configuration
    const overrides = snapshot.overrides as IacDeployOverrides
    const run = iacRunOf(overrides, action)
    const removes = action === 'UNINSTALL' || action === 'DELETE'
    if (run === 'NONE') {
      steps.context.log(
        'run',
        action === 'STOP' ? 'a stop changes no infrastructure: nothing to run' : 'SKIP_DESTROY: the resources are left as they are',
      )
      return removes ? act.uninstall() : { ok: true }
    }
    if (run === 'FORCE_UNLOCK') {
      return {
        ok: false,
        message: 'force-unlock is not run on Kubernetes clusters yet: the kubernetes backend releases a lock whose Lease expires (docs/iac.md)',
      }
    }
    if ('blueprint' in config.backend) return { ok: false, message: 'a blueprint backend is not supported by Berth (docs/iac.md)' }
    if (config.dockerfileFragment?.type === 'file') {
      return { ok: false, message: 'a dockerfile_fragment of type file is not applied yet: give it inline (docs/iac.md)' }
    }
    const base = engineImage(act.iacImages || DEFAULT_IAC_IMAGES, config.engine, config.engineVersion)
    if (!base) return { ok: false, message: `BERTH_IAC_IMAGES names no image for ${config.engine}` }
    const built = await act.pushed('a terraform service', {
      repository: config.git,
      ref: overrides.gitCommitId ? { commit: overrides.gitCommitId } : { branch: config.git.branch },
      dockerfilePath: null,
      dockerfileRaw: runDockerfile(base, config.dockerfileFragment?.type === 'inline' ? config.dockerfileFragment.content : null),
      target: null,
      reuse: action !== 'DEPLOY' && action !== 'RESTART',
    })
    if (!built.ok) return built
    const values = iacValues(snapshot, act.owner, act.variables(), built.pulled, run, { namespace: steps.namespace, openSecret: act.openSecret })
    const timeout = (config.timeoutSec > 0 ? config.timeoutSec : 3600) + START_SECONDS
    const outcome = await act.installChart(values, timeout, ['--wait', '--wait-for-jobs'])
    // Destroyed: the release goes; the state's Secret, which the engine made, stays (empty).
    return outcome.ok && removes ? act.uninstall() : outcome
  },
}
