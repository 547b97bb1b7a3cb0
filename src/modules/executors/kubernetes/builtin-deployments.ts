import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type Docker from 'dockerode'
import { builtFromGit } from '../docker/built-images.ts'
import { dockerAddress } from '../docker/docker-engine.ts'
import { builtImageRepository, removeBuiltImages } from '../docker/image-builds.ts'
import { pushImage } from '../docker/image-pushes.ts'
import { imageReference, type RegistryAccess } from '../docker/images.ts'
import type { ExecutorAction, ServiceOutcome, ServiceSnapshot } from '../executor.ts'
import type { GitCredentials } from '../git-checkout.ts'
import { type OpenSecret, openVariables } from '../snapshot-secrets.ts'
import {
  type BuildSource,
  type GitRepository,
  type ImageSource,
  type InstancesWorkload,
  type NothingWorkload,
  type RunWorkload,
  removes,
  type ScheduleWorkload,
  type StepsWorkload,
} from '../workload.ts'
import {
  alertingValues,
  BUILTIN_CHART,
  type ChartOwner,
  type ChartRelease,
  type ChartValues,
  type IngressSettings,
  layOut,
  type PulledImage,
  type ServiceAlerting,
  workloadValues,
} from './builtin-chart-values.ts'
import type { ReleaseContext } from './release-context.ts'
import { renderCheckInstall, uninstallRelease } from './release-steps.ts'

// Workloads as releases of the chart Berth ships (docs/kubernetes.md, "Deploying to Kubernetes"):
// instances, runs, schedules and steps, installed by the same steps as a helm service's own chart
// (render, the cluster-wide check, `helm upgrade --install`), with `--wait` so that the deployment
// ends when Kubernetes says the workload is ready (a Job: complete). Images built from git are built
// by the runner's Docker engine (built-images.ts, as the Docker executor builds them) and pushed to
// the cluster's image registry, which the release pulls them from with an imagePullSecret of that
// registry's credentials.

/** What the releases of the built-in chart read, besides the release's own steps. */
export interface BuiltinDeps {
  /** Opens a sealed (base64) secret: a variable, a database's password. */
  openSecret: OpenSecret
  /** A container registry's host and credentials (unsealed), for an image and its pull secret. */
  registry?(organizationId: string, registryId: string): Promise<RegistryAccess>
  /** The runner's Docker engine (DOCKER_HOST, else the local socket), which builds images for the cluster; rejects when it does not answer. */
  docker?(): Promise<Docker>
  /** The environment's cluster's image_registry_id: where images built for it are pushed; null without one. */
  imageRegistry?(organizationId: string, environmentId: string): Promise<string | null>
  /** The credentials a git repository is fetched with (its git token's), unsealed; none by default. */
  gitCredentials?(organizationId: string, repository: GitRepository): Promise<GitCredentials | undefined>
  /** BERTH_ALLOW_PRIVATE_URLS; false by default. */
  allowPrivateUrls?: boolean
  /**
   * The environment's cluster's Ingress settings (its advanced settings `berth.ingress.apps_domain`
   * and `berth.ingress.cert_manager_cluster_issuer`, docs/front-door.md); absent: the derived hosts.
   */
  ingressSettings?(organizationId: string, environmentId: string): Promise<IngressSettings>
  /** The alert rules that watch the service and their receivers (docs/alerting.md, "On Kubernetes"); null: none. */
  alerting?(organizationId: string, serviceId: string): Promise<ServiceAlerting | null>
}

/** How long a rollout may take before helm gives up (services have no timeout of their own). */
export const ROLLOUT_TIMEOUT_SECONDS = 600
/** What a run gets beyond its own time limit: pulling the image, waiting for a node. */
const START_SECONDS = 300
/** What a run's release waits for: its Job complete. */
const WAIT_FOR_JOBS = ['--wait', '--wait-for-jobs']

/** One action to one service on the cluster, with the built-in chart. */
export interface BuiltinRelease {
  action: ExecutorAction
  snapshot: ServiceSnapshot
  steps: ReleaseContext
  run: { id: string; organizationId: string; environmentId: string }
}

export type BuiltinWorkload = InstancesWorkload | RunWorkload | ScheduleWorkload | StepsWorkload | NothingWorkload

/** Installs the built-in chart with `values`, written to a private values file (they hold the variables in clear). */
async function installBuiltin(steps: ReleaseContext, values: ChartValues, timeoutSeconds: number, wait: string[]): Promise<ServiceOutcome> {
  const file = path.join(steps.dir, 'berth-values.json')
  await writeFile(file, JSON.stringify(values), { mode: 0o600 })
  steps.context.log('render', `the chart Berth ships: a ${values.workload}${values.ports.length > 0 ? ' and its Service' : ''}`)
  return renderCheckInstall(steps, { path: BUILTIN_CHART, values: ['--values', file], allowClusterWide: false, timeoutSeconds, extra: wait })
}

/** Does `release.action` to the workload with the built-in chart. */
export async function builtinRelease(deps: BuiltinDeps, workload: BuiltinWorkload, release: BuiltinRelease): Promise<ServiceOutcome> {
  const { action, snapshot, steps, run } = release
  const say = (step: string, message: string) => steps.context.log(step, message)
  const owner: ChartOwner = { serviceId: snapshot.serviceId, environmentId: run.environmentId, executionId: run.id }
  const uninstall = () => uninstallRelease(steps)
  /** The chart's values with the alert rules that watch the service: the cluster's prometheus-operator runs them. */
  const installChart = async (values: ChartValues, timeoutSeconds: number, wait: string[]) => {
    const alerting = alertingValues(deps.alerting ? await deps.alerting(run.organizationId, snapshot.serviceId) : null, {
      namespace: steps.namespace,
      release: steps.release,
      jobPrefix: `${snapshot.kind.toLowerCase()}-${snapshot.serviceId.slice(0, 8)}`,
    })
    if (alerting)
      say(
        'render',
        `${alerting.rules.length} alert rule${alerting.rules.length === 1 ? ' watches' : 's watch'} the service: a PrometheusRule and an AlertmanagerConfig, when the cluster runs the prometheus-operator`,
      )
    return installBuiltin(steps, { ...values, alerting }, timeoutSeconds, wait)
  }
  /** The chart's release of `image`, the service's variables opened. */
  const chart = async (source: ImageSource): Promise<{ ok: true; release: ChartRelease } | { ok: false; message: string }> => {
    const image = await pulledImage(deps, source, release)
    if (!image.ok) return image
    return { ok: true, release: { snapshot, owner, variables: openVariables(snapshot.variables, deps.openSecret), image: image.pulled } }
  }
  switch (workload.type) {
    case 'nothing':
      say(workload.say.step, workload.say.message)
      return removes(action) ? uninstall() : { ok: true }
    case 'instances': {
      if (removes(action)) return uninstall()
      const made = await chart(workload.image)
      if (!made.ok) return made
      const ingress = deps.ingressSettings ? await deps.ingressSettings(run.organizationId, run.environmentId) : undefined
      return installChart(workloadValues(made.release, workload, { action, ingress }), ROLLOUT_TIMEOUT_SECONDS, ['--wait'])
    }
    case 'schedule': {
      if (removes(action)) return uninstall()
      const made = await chart(workload.image)
      if (!made.ok) return made
      return installChart(workloadValues(made.release, workload, { action }), workload.timeout.seconds + START_SECONDS, WAIT_FOR_JOBS)
    }
    case 'run': {
      if (workload.tick) {
        say('schedule', 'the CronJob on the cluster runs the ticks of this schedule: nothing to do')
        return { ok: true }
      }
      const made = await chart(workload.image)
      if (!made.ok) return made
      const outcome = await installChart(workloadValues(made.release, workload, { action }), workload.timeout.seconds + START_SECONDS, WAIT_FOR_JOBS)
      // The on_delete event ran: the release goes with the service.
      return outcome.ok && removes(action) ? uninstall() : outcome
    }
    case 'steps': {
      const laid = layOut(workload)
      if (!laid.ok) {
        if (laid.say) say(laid.say.step, laid.say.message)
        return removes(action) ? uninstall() : laid.done
      }
      if (!workload.image) return { ok: false, message: 'the run names no image' }
      const made = await chart(workload.image)
      if (!made.ok) return made
      const timeout = (workload.timeout.seconds > 0 ? workload.timeout.seconds : 3600) + START_SECONDS
      const outcome = await installChart(workloadValues(made.release, workload, { action }), timeout, WAIT_FOR_JOBS)
      // Destroyed: the release goes; what the run left in the namespace (an engine's state) stays.
      return outcome.ok && removes(action) ? uninstall() : outcome
    }
  }
}

/** The image `source` names, as the release pulls it: a registry's, a public one, or one built from git and pushed to the cluster's registry. */
async function pulledImage(
  deps: BuiltinDeps,
  source: ImageSource,
  release: BuiltinRelease,
): Promise<{ ok: true; pulled: PulledImage } | { ok: false; message: string }> {
  if ('public' in source) return { ok: true, pulled: { reference: source.public, registry: { auth: undefined } } }
  if ('registry' in source) return { ok: true, pulled: await registryImage(deps, release, source.registry) }
  return pushed(deps, source.build, release)
}

/** An image of a registry of the organization. */
async function registryImage(
  deps: BuiltinDeps,
  { run }: BuiltinRelease,
  { registryId, imageName, tag }: { registryId: string; imageName: string; tag: string },
): Promise<PulledImage> {
  if (!deps.registry) throw new Error('this runner cannot read container registries')
  const registry = await deps.registry(run.organizationId, registryId)
  return { reference: imageReference(registry.host, imageName, tag), registry }
}

/**
 * The image of `source`, built by the runner's Docker engine and pushed to the cluster's image
 * registry as `{host}/berth/{service id}:{commit}`; an outcome when it cannot be.
 */
async function pushed(
  deps: BuiltinDeps,
  source: BuildSource,
  release: BuiltinRelease,
): Promise<{ ok: true; pulled: PulledImage } | { ok: false; message: string }> {
  const { snapshot, steps, run } = release
  const noun = snapshot.kind.toLowerCase()
  const what = `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`
  const registryId = deps.imageRegistry ? await deps.imageRegistry(run.organizationId, run.environmentId) : null
  if (!registryId)
    return {
      ok: false,
      message: `${what} built from git on a Kubernetes cluster needs the cluster's image_registry_id: set it (editCluster) to a container registry the cluster pulls from, where Berth pushes the image it builds`,
    }
  let docker: Docker
  try {
    if (!deps.docker) throw new Error('this runner has no Docker engine')
    docker = await deps.docker()
  } catch (error) {
    return {
      ok: false,
      message: `an image build for a Kubernetes cluster needs a Docker engine on the runner, and the one at ${dockerAddress()} does not answer: ${(error as Error).message}`,
    }
  }
  const log = (step: string) => (message: string, level?: 'INFO' | 'WARNING' | 'ERROR') => steps.context.log(step, message, level)
  const git = { docker, gitCredentials: deps.gitCredentials ?? (async () => undefined), allowPrivateUrls: deps.allowPrivateUrls ?? false }
  const built = await builtFromGit(git, snapshot, { organizationId: run.organizationId, runId: run.id }, source, log('build'), steps.signal)
  if (!built.ok) return built
  const pulled = await registryImage(deps, release, { registryId, imageName: builtImageRepository(snapshot.serviceId), tag: built.commit })
  await pushImage(docker, built.image, pulled.reference, pulled.registry.auth, log('push'), steps.signal, {
    allowPrivateUrls: deps.allowPrivateUrls ?? false,
  })
  // The registry's tag was only for the push; the runner keeps the last build (a restart reuses it).
  await docker
    .getImage(pulled.reference)
    .remove()
    .catch(() => undefined)
  await removeBuiltImages(docker, snapshot.serviceId, built.image)
  return { ok: true, pulled }
}
