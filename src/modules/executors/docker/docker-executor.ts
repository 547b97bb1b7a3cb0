import type Docker from 'dockerode'
import type { RunnableTrigger, ServiceType } from '#src/modules/deployments/deployment-states.ts'
import type { GitRepositoryRef } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { ApplicationConfig, ApplicationDeployOverrides } from '#src/modules/services/kinds/application/application.types.ts'
import { containerProbe } from '#src/modules/services/kinds/application/application-probes.ts'
import type { ContainerConfig } from '#src/modules/services/kinds/container/container.types.ts'
import type { ContainerDeployOverrides } from '#src/modules/services/kinds/container/container-deployments.ts'
import type { DatabaseConfig } from '#src/modules/services/kinds/database/database.types.ts'
import { openPassword } from '#src/modules/services/kinds/database/database-credentials.ts'
import { DATABASE_ENGINES, type DatabaseType } from '#src/modules/services/kinds/database/database-engines.ts'
import { DATABASE_RUNTIME, databaseImage } from '#src/modules/services/kinds/database/database-runtime.ts'
import type { JobCommand, JobConfig } from '#src/modules/services/kinds/job/job.types.ts'
import { commandFor, type JobDeployOverrides, LIFECYCLE_EVENT } from '#src/modules/services/kinds/job/job-deployments.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { revealVariables } from '#src/modules/variables/resolved-variables.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { maskedLogLine, secretMask } from '#src/platform/secrets/secret-masking.ts'
import type { DeploymentExecutor, ExecutionContext, ServiceOutcome } from '../executor.ts'
import { type GitCredentials, removeRunCheckouts } from '../git-checkout.ts'
import { snapshotSecretValues } from '../snapshot-secrets.ts'
import { type BuildSource, builtFromGit } from './built-images.ts'
import { type Confinement, dnsLabel, ensureNetwork, networkName, type Owner, removeNetworkIfUnused } from './docker-objects.ts'
import type { DeliveredFile } from './file-archive.ts'
import { removeBuiltImages } from './image-builds.ts'
import { ensureImage, imageReference, type PullAuth, PullRefused } from './images.ts'
import { runToCompletion } from './job-runs.ts'
import {
  type InstanceSpec,
  type PublishSettings,
  type Rollout,
  removeAbandoned,
  removeInstances,
  rollOut,
  type Say,
  stopInstances,
} from './service-instances.ts'

/** Does an action to a service of one kind. */
type Performer = (
  snapshot: ServiceSnapshot,
  owner: Owner,
  organizationId: string,
  action: RunnableTrigger,
  say: Say,
  signal: AbortSignal,
) => Promise<ServiceOutcome>

// The Docker executor (docs/docker.md, "Deploying with Docker"): containers, container databases and jobs
// from an image really run in the Docker engine of BERTH_EXECUTOR=docker. Helm services need
// Kubernetes. Applications and jobs built from git are built first: the deployment's commit fetched
// from the repository with the git token, its Dockerfile built by the engine (docs/docker.md, "Deploying
// with Docker").

export interface DockerExecutorDeps {
  docker: Docker
  /** Opens the snapshot's sealed secrets (variables, a database's password), to hand to the engine only. */
  secrets: SecretBox
  /** Where a registry's images are and how to pull them; the registry's credentials unsealed. */
  registry(organizationId: string, registryId: string): Promise<{ host: string | undefined; auth: PullAuth | undefined }>
  /** The host address public ports are published on (BERTH_DOCKER_PUBLISH_HOST). */
  publishHost: string
  /** The host ports they may take (BERTH_DOCKER_PUBLISH_PORTS, `from-to`); empty: any free port. */
  publishPorts?: string
  /** Where databases' official images are (BERTH_DOCKER_DATABASE_IMAGES): `docker.io/library`, or a mirror. */
  databaseImages: string
  /** The credentials a repository is fetched with: its git token's (else the organization's only one of its provider), unsealed; undefined without one. */
  gitCredentials(organizationId: string, repository: GitRepositoryRef): Promise<GitCredentials | undefined>
  /** BERTH_GIT_ALLOW_PRIVATE_URLS: whether repositories on loopback, private, link-local or metadata addresses (or plain http) may be fetched. */
  allowPrivateUrls: boolean
  /** BERTH_DOCKER_PIDS_LIMIT and BERTH_DOCKER_CAP_DROP; absent: their defaults. */
  confinement?: Confinement
  /** BERTH_BUILD_CONTEXT_MAX_BYTES; absent: its default. */
  contextMaxBytes?: number
}

/** How long a stopping instance gets before it is killed, when its settings do not say (databases have none). */
const STOP_GRACE_SECONDS = 10

/** The service's `deployment.termination_grace_period_seconds` (its advanced settings, as of the trigger). */
function stopGrace(snapshot: ServiceSnapshot): number {
  const seconds = snapshot.advancedSettings?.['deployment.termination_grace_period_seconds']
  return typeof seconds === 'number' ? seconds : STOP_GRACE_SECONDS
}

/** A database's storage: one named volume, kept on stop and uninstall, removed on delete. */
export const databaseVolume = (serviceId: string) => `berth-db-${serviceId}`

export function createDockerExecutor(deps: DockerExecutorDeps): DeploymentExecutor {
  const { docker } = deps
  const publish: PublishSettings = { host: deps.publishHost, ports: deps.publishPorts ?? '' }
  const pulls = { allowPrivateUrls: deps.allowPrivateUrls }

  /** The snapshot's variables as the engine takes them: KEY=value lines, and files for file variables. */
  function delivered(snapshot: ServiceSnapshot): { env: string[]; files: DeliveredFile[] } {
    const revealed = revealVariables(snapshot.variables, deps.secrets)
    return {
      env: revealed.filter((variable) => !variable.mountPath).map((variable) => `${variable.key}=${variable.value}`),
      files: revealed.flatMap((variable) => (variable.mountPath ? [{ path: variable.mountPath, content: variable.value }] : [])),
    }
  }

  /** The image of `source` at its commit (built-images.ts), the build's lines under `build`. */
  const builtImage = (snapshot: ServiceSnapshot, organizationId: string, runId: string, source: BuildSource, say: Say, signal: AbortSignal) =>
    builtFromGit(deps, snapshot, { organizationId, runId }, source, (message, level) => say('build', message, level), signal)

  async function application(
    snapshot: ServiceSnapshot<ApplicationConfig>,
    owner: Owner,
    organizationId: string,
    action: RunnableTrigger,
    say: Say,
    signal: AbortSignal,
  ): Promise<ServiceOutcome> {
    const config = snapshot.configuration
    if (action === 'STOP') return stopInstances(docker, owner.serviceId, stopGrace(snapshot), say)
    if (action === 'UNINSTALL' || action === 'DELETE') {
      const removed = await removeInstances(docker, owner.serviceId, stopGrace(snapshot), say)
      await removeBuiltImages(docker, owner.serviceId)
      return removed
    }
    const overrides = snapshot.overrides as ApplicationDeployOverrides
    const commit = overrides.commit?.id ?? overrides.gitCommitId
    const built = await builtImage(
      snapshot,
      organizationId,
      owner.executionId,
      {
        repository: config.gitRepository,
        ref: commit ? { commit } : { branch: config.gitRepository.branch },
        dockerfilePath: config.dockerfilePath,
        dockerfileRaw: null,
        target: config.dockerTargetBuildStage,
        // A restart runs what the last deploy built.
        reuse: action === 'RESTART',
      },
      say,
      signal,
    )
    if (!built.ok) return built
    const network = await ensureNetwork(docker, owner.environmentId)
    const { env, files } = delivered(snapshot)
    const outcome = await rollOut(
      docker,
      {
        owner,
        labels: snapshot.labels,
        serviceName: snapshot.name,
        networkAlias: dnsLabel(snapshot.name),
        network,
        image: built.image,
        entrypoint: config.entrypoint ? [config.entrypoint] : null,
        command: config.arguments.length > 0 ? config.arguments : null,
        env,
        files,
        cpuMilli: config.cpu,
        memoryMb: config.memory,
        confinement: deps.confinement,
        ports: config.ports.map((port) => ({
          internal: port.internalPort,
          protocol: port.protocol === 'UDP' ? 'UDP' : 'TCP',
          publish: port.publiclyAccessible,
        })),
        volumes: config.storage.map((volume) => ({ name: `berth-${owner.serviceId}-${volume.id}`, mountPoint: volume.mountPoint })),
        readiness: containerProbe(config.healthchecks.readiness_probe),
        instances: Math.max(config.minRunningInstances, 1),
        stopGraceSeconds: stopGrace(snapshot),
      },
      publish,
      say,
      signal,
    )
    // The images of earlier commits go once nothing runs them: once the previous instances, stopping
    // in the background, are gone.
    const { retired, ...result } = outcome
    if (outcome.ok) void (retired ?? Promise.resolve()).then(() => removeBuiltImages(docker, owner.serviceId, built.image)).catch(() => undefined)
    return result
  }

  async function container(
    snapshot: ServiceSnapshot<ContainerConfig>,
    owner: Owner,
    organizationId: string,
    action: RunnableTrigger,
    say: Say,
    signal: AbortSignal,
  ): Promise<ServiceOutcome> {
    const config = snapshot.configuration
    if (action === 'STOP') return stopInstances(docker, owner.serviceId, stopGrace(snapshot), say)
    if (action === 'UNINSTALL' || action === 'DELETE') return removeInstances(docker, owner.serviceId, stopGrace(snapshot), say)
    const registry = await deps.registry(organizationId, config.registryId)
    const tag = (snapshot.overrides as ContainerDeployOverrides).imageTag ?? config.tag
    const image = imageReference(registry.host, config.imageName, tag)
    await ensureImage(docker, image, registry.auth, (message) => say('pull', message), signal, pulls)
    const network = await ensureNetwork(docker, owner.environmentId)
    const { env, files } = delivered(snapshot)
    const spec: InstanceSpec = {
      owner,
      labels: snapshot.labels,
      serviceName: snapshot.name,
      networkAlias: dnsLabel(snapshot.name),
      network,
      image,
      entrypoint: config.entrypoint ? [config.entrypoint] : null,
      command: config.arguments.length > 0 ? config.arguments : null,
      env,
      files,
      cpuMilli: config.cpu,
      memoryMb: config.memory,
      confinement: deps.confinement,
      ports: config.ports.map((port) => ({
        internal: port.internalPort,
        protocol: port.protocol === 'UDP' ? 'UDP' : 'TCP',
        publish: port.publiclyAccessible,
      })),
      volumes: config.storage.map((volume) => ({ name: `berth-${owner.serviceId}-${volume.id}`, mountPoint: volume.mountPoint })),
      readiness: config.healthchecks.readinessProbe,
      instances: Math.max(config.minRunningInstances, 1),
      stopGraceSeconds: stopGrace(snapshot),
    }
    return rollOut(docker, spec, publish, say, signal)
  }

  async function database(
    snapshot: ServiceSnapshot<DatabaseConfig>,
    owner: Owner,
    action: RunnableTrigger,
    say: Say,
    signal: AbortSignal,
  ): Promise<ServiceOutcome> {
    const config = snapshot.configuration
    const volume = databaseVolume(owner.serviceId)
    if (action === 'STOP') return stopInstances(docker, owner.serviceId, stopGrace(snapshot), say)
    if (action === 'UNINSTALL') return removeInstances(docker, owner.serviceId, stopGrace(snapshot), say)
    if (action === 'DELETE') return removeInstances(docker, owner.serviceId, stopGrace(snapshot), say, [volume])
    if (config.mode !== 'CONTAINER')
      return { ok: false, message: `a ${config.mode} database needs a cloud provider; the Docker executor runs CONTAINER databases` }
    const type = config.type as DatabaseType
    const engine = DATABASE_ENGINES[type]
    const runtime = DATABASE_RUNTIME[type]
    const image = databaseImage(deps.databaseImages, type, config.version)
    await ensureImage(docker, image, undefined, (message) => say('pull', message), signal, pulls)
    const network = await ensureNetwork(docker, owner.environmentId)
    const { credentials } = config
    const password = openPassword(credentials, deps.secrets)
    return rollOut(
      docker,
      {
        owner,
        labels: snapshot.labels,
        serviceName: snapshot.name,
        networkAlias: credentials.host,
        network,
        image,
        entrypoint: null,
        command: runtime.command?.(password) ?? null,
        env: Object.entries(runtime.env(credentials.login, password, credentials.databaseName)).map(([key, value]) => `${key}=${value}`),
        files: [],
        cpuMilli: config.cpu,
        memoryMb: config.memory,
        confinement: deps.confinement,
        ports: [{ internal: engine.port, protocol: 'TCP', publish: config.accessibility === 'PUBLIC' }],
        volumes: [{ name: volume, mountPoint: runtime.dataDir }],
        readiness: {
          type: { tcp: { port: engine.port, host: null } },
          initialDelaySeconds: 0,
          periodSeconds: 1,
          timeoutSeconds: 1,
          successThreshold: 1,
          failureThreshold: 60,
        },
        // One instance: two would share the volume.
        instances: 1,
        stopGraceSeconds: stopGrace(snapshot),
      },
      publish,
      say,
      signal,
    )
  }

  async function job(
    snapshot: ServiceSnapshot<JobConfig>,
    owner: Owner,
    organizationId: string,
    action: RunnableTrigger,
    say: Say,
    signal: AbortSignal,
  ): Promise<ServiceOutcome> {
    const config = snapshot.configuration
    const overrides = snapshot.overrides as JobDeployOverrides
    const delivers = action === 'DEPLOY' || action === 'RESTART'
    const event = delivers && overrides.forceEvent ? overrides.forceEvent : 'cronjob' in config.schedule ? undefined : LIFECYCLE_EVENT[action]
    // A cron job's deploy only readies its image: each tick is a run of its own (forceEvent CRON).
    const command = event ? commandFor(config, event) : undefined
    let image: string | undefined
    if ('image' in config.source) {
      const { imageName, tag, registryId } = config.source.image
      const registry = await deps.registry(organizationId, registryId)
      image = imageReference(registry.host, imageName, overrides.imageTag || tag)
      if (delivers || command) await ensureImage(docker, image, registry.auth, (message) => say('pull', message), signal, pulls)
    } else if (delivers || command) {
      const { git, dockerfilePath, dockerfileRaw, dockerTargetBuildStage } = config.source.docker
      const built = await builtImage(
        snapshot,
        organizationId,
        owner.executionId,
        {
          repository: git,
          ref: overrides.gitCommitId ? { commit: overrides.gitCommitId } : { branch: git.branch },
          dockerfilePath,
          dockerfileRaw,
          target: dockerTargetBuildStage,
          // A deploy builds; a cron tick, a forced event and a stop or delete event run the image built for the commit.
          reuse: action !== 'DEPLOY' || overrides.forceEvent !== undefined,
        },
        say,
        signal,
      )
      if (!built.ok) return built
      image = built.image
    }
    // An uninstalled or deleted job built from git leaves no image once its on_delete ran.
    const removesImages = 'docker' in config.source && (action === 'UNINSTALL' || action === 'DELETE')
    const outcome = await runJobEvent(snapshot, owner, delivers, image, command, say, signal)
    if (removesImages) await removeBuiltImages(docker, owner.serviceId)
    return outcome
  }

  async function runJobEvent(
    snapshot: ServiceSnapshot<JobConfig>,
    owner: Owner,
    delivers: boolean,
    image: string | undefined,
    command: JobCommand | undefined,
    say: Say,
    signal: AbortSignal,
  ): Promise<ServiceOutcome> {
    const config = snapshot.configuration
    if (!command || !image) {
      if ('cronjob' in config.schedule)
        say('schedule', delivers ? 'the cron job runs a container at each tick of its schedule' : 'the cron job no longer runs')
      else say('run', 'no command for this event: nothing to run')
      return { ok: true }
    }
    const network = await ensureNetwork(docker, owner.environmentId)
    const { env, files } = delivered(snapshot)
    return runToCompletion(
      docker,
      {
        owner,
        labels: snapshot.labels,
        serviceName: snapshot.name,
        network,
        image,
        entrypoint: command.entrypoint ? [command.entrypoint] : null,
        command: command.arguments,
        env,
        files,
        cpuMilli: config.cpu,
        memoryMb: config.memory,
        confinement: deps.confinement,
        maxDurationSeconds: config.maxDurationSeconds,
        maxRestarts: config.maxNbRestart,
      },
      say,
      signal,
    )
  }

  /** What the Docker executor does to a service of each kind; a kind without an entry is refused (docs/adding-a-kind.md). */
  const performers: Partial<Record<ServiceType, Performer>> = {
    CONTAINER: (snapshot, owner, organizationId, action, say, signal) =>
      container(snapshot as ServiceSnapshot<ContainerConfig>, owner, organizationId, action, say, signal),
    DATABASE: (snapshot, owner, _, action, say, signal) => database(snapshot as ServiceSnapshot<DatabaseConfig>, owner, action, say, signal),
    APPLICATION: (snapshot, owner, organizationId, action, say, signal) =>
      application(snapshot as ServiceSnapshot<ApplicationConfig>, owner, organizationId, action, say, signal),
    JOB: (snapshot, owner, organizationId, action, say, signal) =>
      job(snapshot as ServiceSnapshot<JobConfig>, owner, organizationId, action, say, signal),
    HELM: async () => ({ ok: false, message: "a helm service needs a Kubernetes cluster; this environment's cluster deploys to Docker" }),
  }

  /** Does `action` to the service, by its kind's entry. */
  function perform(...args: Parameters<Performer>): Promise<ServiceOutcome> {
    const [snapshot] = args
    const performer = performers[snapshot.kind]
    if (!performer) return Promise.resolve({ ok: false, message: `the Docker executor does not deploy ${snapshot.kind.toLowerCase()} services yet` })
    return performer(...args)
  }

  return {
    async abandoned(run, say) {
      await removeAbandoned(docker, run.id, say)
      await removeRunCheckouts(run.id, say)
    },
    async run(service, action, signal, context: ExecutionContext): Promise<ServiceOutcome> {
      const { snapshot, run } = context
      if (!snapshot || !run) return { ok: false, message: 'the deployment has no snapshot of the service' }
      const owner: Owner = { serviceId: service.id, environmentId: run.environmentId, executionId: run.id, kind: snapshot.kind }
      let mask = (text: string) => text
      try {
        // What containers and builds print, in the logs and in a failure's message, may hold the
        // service's secrets: none of them reaches either.
        mask = secretMask(snapshotSecretValues(snapshot, deps.secrets))
        const logLine = maskedLogLine(mask)
        const say: Say = (step, message, level, at) => context.log(step, logLine(message), level, at)
        // What is still stopping in the background is not the runner's to wait for.
        const { retired: _retired, ...outcome }: Rollout = await perform(snapshot, owner, run.organizationId, action, say, signal)
        if (outcome.ok && (action === 'UNINSTALL' || action === 'DELETE') && (await removeNetworkIfUnused(docker, run.environmentId)))
          say('uninstall', `removed the network of the environment (${networkName(run.environmentId)}): nothing of it runs any more`)
        return outcome.ok ? outcome : { ok: false, message: mask(outcome.message) }
      } catch (error) {
        if (signal.aborted) throw error
        if (error instanceof PullRefused) return { ok: false, message: mask(error.message) }
        const message = error instanceof Error ? error.message : String(error)
        return { ok: false, message: mask(`the Docker engine refused: ${message}`) }
      }
    },
  }
}
