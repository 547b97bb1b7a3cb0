import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type Docker from 'dockerode'
import type { RegistryPullAccess } from '#src/modules/container-registries/registry-pull-access.ts'
import type { RunnableTrigger, ServiceType } from '#src/modules/deployments/deployment-states.ts'
import type { GitRepositoryRef } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { ApplicationConfig, ApplicationDeployOverrides } from '#src/modules/services/kinds/application/application.types.ts'
import type { ContainerConfig } from '#src/modules/services/kinds/container/container.types.ts'
import type { ContainerDeployOverrides } from '#src/modules/services/kinds/container/container-deployments.ts'
import type { DatabaseConfig } from '#src/modules/services/kinds/database/database.types.ts'
import type { JobConfig } from '#src/modules/services/kinds/job/job.types.ts'
import { commandFor, type JobDeployOverrides, LIFECYCLE_EVENT } from '#src/modules/services/kinds/job/job-deployments.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { type BuildSource, builtFromGit } from '../docker/built-images.ts'
import { dockerAddress } from '../docker/docker-engine.ts'
import { builtImageRepository, removeBuiltImages } from '../docker/image-builds.ts'
import { pushImage } from '../docker/image-pushes.ts'
import { imageReference } from '../docker/images.ts'
import type { ServiceOutcome } from '../executor.ts'
import type { GitCredentials } from '../git-checkout.ts'
import {
  applicationValues,
  BUILTIN_CHART,
  type ChartOwner,
  type ChartValues,
  containerValues,
  databaseValues,
  jobValues,
  type OpenVariable,
} from './builtin-chart-values.ts'
import { type ReleaseContext, renderCheckInstall, uninstallRelease } from './release-steps.ts'

// Containers, container databases and jobs on a Kubernetes cluster (docs/kubernetes.md, "Deploying to
// Kubernetes"): each service is a release of the chart Berth ships, installed by the same steps as
// a helm service's chart (render, the cluster-wide check, `helm upgrade --install`), with `--wait`
// so that the deployment ends when Kubernetes says the workload is ready (a Job: complete).
// Applications and jobs built from git are built by the runner's Docker engine (built-images.ts,
// as the Docker executor builds them) and pushed to the cluster's image registry, which the
// release pulls them from with an imagePullSecret of that registry's credentials.

export interface BuiltinDeps {
  /** Opens a sealed (base64) secret: a variable, a database's password. */
  openSecret(sealed: string): string
  /** A container registry's host and credentials (unsealed), for an image and its pull secret. */
  registry?(organizationId: string, registryId: string): Promise<RegistryPullAccess>
  /** BERTH_DOCKER_DATABASE_IMAGES: where databases' official images are; `docker.io/library` by default. */
  databaseImages?: string
  /** The runner's Docker engine (DOCKER_HOST, else the local socket), which builds images for the cluster; rejects when it does not answer. */
  docker?(): Promise<Docker>
  /** The environment's cluster's image_registry_id: where images built for it are pushed; null without one. */
  imageRegistry?(organizationId: string, environmentId: string): Promise<string | null>
  /** The credentials a git repository is fetched with (its git token's), unsealed; none by default. */
  gitCredentials?(organizationId: string, repository: GitRepositoryRef): Promise<GitCredentials | undefined>
  /** BERTH_GIT_ALLOW_PRIVATE_URLS; false by default. */
  allowPrivateUrls?: boolean
}

/** How long a rollout may take before helm gives up (services have no timeout of their own). */
const ROLLOUT_TIMEOUT_SECONDS = 600
/** What a job's run gets beyond its max_duration_seconds: pulling the image, waiting for a node. */
const JOB_START_SECONDS = 300

const isRemoval = (action: RunnableTrigger) => action === 'UNINSTALL' || action === 'DELETE'

/** Installs the built-in chart with `values`, written to a private values file (they hold the variables in clear). */
async function installChart(steps: ReleaseContext, values: ChartValues, timeoutSeconds: number, wait: string[]): Promise<ServiceOutcome> {
  const file = path.join(steps.dir, 'berth-values.json')
  await writeFile(file, JSON.stringify(values), { mode: 0o600 })
  steps.context.log('render', `the chart Berth ships: a ${values.workload}${values.ports.length > 0 ? ' and its Service' : ''}`)
  return renderCheckInstall(steps, { path: BUILTIN_CHART, values: ['--values', file], allowClusterWide: false, timeoutSeconds, extra: wait })
}

export async function deployBuiltin(
  deps: BuiltinDeps,
  steps: ReleaseContext,
  snapshot: ServiceSnapshot,
  action: RunnableTrigger,
  run: { id: string; organizationId: string; environmentId: string },
): Promise<ServiceOutcome> {
  const owner: ChartOwner = { serviceId: snapshot.serviceId, environmentId: run.environmentId, executionId: run.id }
  const variables = (): OpenVariable[] =>
    snapshot.variables.map((variable) => ({
      key: variable.key,
      value: variable.isSecret ? deps.openSecret(variable.sealed ?? '') : (variable.value ?? ''),
      mountPath: variable.mountPath,
    }))
  const image = async (registryId: string, imageName: string, tag: string) => {
    if (!deps.registry) throw new Error('this runner cannot read container registries')
    const registry = await deps.registry(run.organizationId, registryId)
    return { reference: imageReference(registry.host, imageName, tag), registry }
  }
  type Pulled = Awaited<ReturnType<typeof image>>

  /**
   * The image of `source`, built by the runner's Docker engine and pushed to the cluster's image
   * registry as `{host}/berth/{service id}:{commit}`; an outcome when it cannot be.
   */
  async function pushed(what: string, source: BuildSource): Promise<{ ok: true; pulled: Pulled } | { ok: false; message: string }> {
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
    const pulled = await image(registryId, builtImageRepository(snapshot.serviceId), built.commit)
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

  // What a Kubernetes cluster does to a service of each kind but helm (helm-executor.ts); a kind
  // without an entry is refused (docs/adding-a-kind.md).
  const performers: Partial<Record<ServiceType, () => Promise<ServiceOutcome>>> = {
    CONTAINER: async () => {
      if (isRemoval(action)) return uninstallRelease(steps)
      const container = snapshot as ServiceSnapshot<ContainerConfig>
      const { registryId, imageName, tag } = container.configuration
      const pulled = await image(registryId, imageName, (snapshot.overrides as ContainerDeployOverrides).imageTag ?? tag)
      const values = containerValues(container, owner, variables(), pulled, action === 'STOP')
      return installChart(steps, values, ROLLOUT_TIMEOUT_SECONDS, ['--wait'])
    },
    DATABASE: async () => {
      if (isRemoval(action)) return uninstallRelease(steps)
      const database = snapshot as ServiceSnapshot<DatabaseConfig>
      const config = database.configuration
      if (config.mode !== 'CONTAINER')
        return { ok: false, message: `a ${config.mode} database needs a cloud provider; Kubernetes clusters run CONTAINER databases` }
      const password = deps.openSecret(config.credentials.passwordSealed)
      const values = databaseValues(database, owner, deps.databaseImages ?? 'docker.io/library', password, action === 'STOP')
      return installChart(steps, values, ROLLOUT_TIMEOUT_SECONDS, ['--wait'])
    },
    JOB: () => job(snapshot as ServiceSnapshot<JobConfig>),
    APPLICATION: async () => {
      if (isRemoval(action)) return uninstallRelease(steps)
      const application = snapshot as ServiceSnapshot<ApplicationConfig>
      const config = application.configuration
      const overrides = snapshot.overrides as ApplicationDeployOverrides
      const commit = overrides.commit?.id ?? overrides.gitCommitId
      const built = await pushed('an application', {
        repository: config.gitRepository,
        ref: commit ? { commit } : { branch: config.gitRepository.branch },
        dockerfilePath: config.dockerfilePath,
        dockerfileRaw: null,
        target: config.dockerTargetBuildStage,
        // A restart or a stop runs what the last deploy built.
        reuse: action !== 'DEPLOY',
      })
      if (!built.ok) return built
      const values = applicationValues(application, owner, variables(), built.pulled, action === 'STOP')
      return installChart(steps, values, ROLLOUT_TIMEOUT_SECONDS, ['--wait'])
    },
  }
  const perform = performers[snapshot.kind]
  if (!perform) return { ok: false, message: `${snapshot.kind.toLowerCase()} services are not deployed on Kubernetes clusters` }
  return perform()

  async function job(snapshot: ServiceSnapshot<JobConfig>): Promise<ServiceOutcome> {
    const config = snapshot.configuration
    const overrides = snapshot.overrides as JobDeployOverrides
    const delivers = action === 'DEPLOY' || action === 'RESTART'
    const { schedule, source } = config
    const forced = delivers ? overrides.forceEvent : undefined
    // A tick of the scheduler: the cluster's CronJob runs it on its own.
    if (forced === 'CRON' && overrides.scheduledFor && 'cronjob' in schedule) {
      steps.context.log('schedule', 'the CronJob on the cluster runs the ticks of this schedule: nothing to do')
      return { ok: true }
    }
    const event = forced ?? ('cronjob' in schedule ? undefined : LIFECYCLE_EVENT[action])
    const command = event ? commandFor(config, event) : undefined
    if (isRemoval(action) && !command) return uninstallRelease(steps)
    if (!('cronjob' in schedule) && !command) {
      steps.context.log('run', 'no command for this event: nothing to run')
      return { ok: true }
    }
    let pulled: Pulled
    if ('image' in source) pulled = await image(source.image.registryId, source.image.imageName, overrides.imageTag || source.image.tag)
    else {
      const { git, dockerfilePath, dockerfileRaw, dockerTargetBuildStage } = source.docker
      const built = await pushed('a job', {
        repository: git,
        ref: overrides.gitCommitId ? { commit: overrides.gitCommitId } : { branch: git.branch },
        dockerfilePath,
        dockerfileRaw,
        target: dockerTargetBuildStage,
        // A deploy builds; a forced event and a stop or delete event run the image built for the commit.
        reuse: action !== 'DEPLOY' || overrides.forceEvent !== undefined,
      })
      if (!built.ok) return built
      pulled = built.pulled
    }
    const wait = ['--wait', '--wait-for-jobs']
    const timeout = config.maxDurationSeconds + JOB_START_SECONDS
    if ('cronjob' in schedule) {
      const { scheduledAt, timezone } = schedule.cronjob
      const values = jobValues(snapshot, owner, variables(), pulled, {
        cron: { scheduledAt, timezone, command: schedule.cronjob },
        stopped: action === 'STOP',
        runNow: forced === 'CRON',
      })
      return installChart(steps, values, timeout, wait)
    }
    if (!command) return { ok: true }
    const outcome = await installChart(steps, jobValues(snapshot, owner, variables(), pulled, { command }), timeout, wait)
    // The on_delete event ran: the release goes with the service.
    return outcome.ok && isRemoval(action) ? uninstallRelease(steps) : outcome
  }
}
