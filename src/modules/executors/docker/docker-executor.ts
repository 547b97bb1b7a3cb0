import type Docker from 'dockerode'
import type { RunnableTrigger } from '#src/modules/deployments/deployment-states.ts'
import type { ContainerConfig } from '#src/modules/services/kinds/container/container.types.ts'
import type { ContainerDeployOverrides } from '#src/modules/services/kinds/container/container-deployments.ts'
import type { DatabaseConfig } from '#src/modules/services/kinds/database/database.types.ts'
import { DATABASE_ENGINES, type DatabaseType } from '#src/modules/services/kinds/database/database-engines.ts'
import type { JobConfig } from '#src/modules/services/kinds/job/job.types.ts'
import { commandFor, type JobDeployOverrides, LIFECYCLE_EVENT } from '#src/modules/services/kinds/job/job-deployments.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { DeploymentExecutor, ExecutionContext, ServiceOutcome } from '../executor.ts'
import { dnsLabel, ensureNetwork, type Owner } from './docker-objects.ts'
import type { DeliveredFile } from './file-archive.ts'
import { ensureImage, imageReference, type PullAuth } from './images.ts'
import { runToCompletion } from './job-runs.ts'
import { type InstanceSpec, removeAbandoned, removeInstances, rollOut, type Say, stopInstances } from './service-instances.ts'

// The Docker executor (README, "Deploying with Docker"): containers, container databases and jobs
// from an image really run in the Docker engine of BERTH_EXECUTOR=docker. Helm services need
// Kubernetes; applications and jobs built from git need a build, which comes next.

export interface DockerExecutorDeps {
  docker: Docker
  /** A sealed secret of a snapshot (base64) in the clear, to hand to the engine only. */
  openSecret(sealed: string): string
  /** Where a registry's images are and how to pull them; the registry's credentials unsealed. */
  registry(organizationId: string, registryId: string): Promise<{ host: string | undefined; auth: PullAuth | undefined }>
  /** The host address public ports are published on (BERTH_DOCKER_PUBLISH_HOST). */
  publishHost: string
  /** Where databases' official images are (BERTH_DOCKER_DATABASE_IMAGES): `docker.io/library`, or a mirror. */
  databaseImages: string
}

/** How long a stopping instance gets before it is killed. */
const STOP_GRACE_SECONDS = 10

/** Each database type's data directory, environment and command, as its official image takes them. */
const DATABASE_RUNTIME: Record<
  DatabaseType,
  { dataDir: string; env: (login: string, password: string, name: string) => string[]; command?: (password: string) => string[] }
> = {
  POSTGRESQL: {
    dataDir: '/var/lib/postgresql/data',
    env: (login, password, name) => [`POSTGRES_USER=${login}`, `POSTGRES_PASSWORD=${password}`, `POSTGRES_DB=${name}`],
  },
  MYSQL: {
    dataDir: '/var/lib/mysql',
    env: (login, password) => [`MYSQL_ROOT_PASSWORD=${password}`, `MYSQL_USER=${login}`, `MYSQL_PASSWORD=${password}`],
  },
  MONGODB: { dataDir: '/data/db', env: (login, password) => [`MONGO_INITDB_ROOT_USERNAME=${login}`, `MONGO_INITDB_ROOT_PASSWORD=${password}`] },
  REDIS: { dataDir: '/data', env: () => [], command: (password) => ['redis-server', '--requirepass', password, '--appendonly', 'yes'] },
}

/** A database's storage: one named volume, kept on stop and uninstall, removed on delete. */
export const databaseVolume = (serviceId: string) => `berth-db-${serviceId}`

export function createDockerExecutor(deps: DockerExecutorDeps): DeploymentExecutor {
  const { docker } = deps

  /** The snapshot's variables as the engine takes them: KEY=value lines, and files for file variables. */
  function delivered(snapshot: ServiceSnapshot): { env: string[]; files: DeliveredFile[] } {
    const env: string[] = []
    const files: DeliveredFile[] = []
    for (const variable of snapshot.variables) {
      const value = variable.sealed !== undefined ? deps.openSecret(variable.sealed) : (variable.value ?? '')
      if (variable.mountPath) files.push({ path: variable.mountPath, content: value })
      else env.push(`${variable.key}=${value}`)
    }
    return { env, files }
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
    if (action === 'STOP') return stopInstances(docker, owner.serviceId, STOP_GRACE_SECONDS, say)
    if (action === 'UNINSTALL' || action === 'DELETE') return removeInstances(docker, owner.serviceId, STOP_GRACE_SECONDS, say)
    const registry = await deps.registry(organizationId, config.registryId)
    const tag = (snapshot.overrides as ContainerDeployOverrides).imageTag ?? config.tag
    const image = imageReference(registry.host, config.imageName, tag)
    await ensureImage(docker, image, registry.auth, (message) => say('pull', message), signal)
    const network = await ensureNetwork(docker, owner.environmentId)
    const { env, files } = delivered(snapshot)
    const spec: InstanceSpec = {
      owner,
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
      ports: config.ports.map((port) => ({
        internal: port.internalPort,
        protocol: port.protocol === 'UDP' ? 'UDP' : 'TCP',
        publish: port.publiclyAccessible,
      })),
      volumes: config.storage.map((volume) => ({ name: `berth-${owner.serviceId}-${volume.id}`, mountPoint: volume.mountPoint })),
      readiness: config.healthchecks.readinessProbe,
      instances: Math.max(config.minRunningInstances, 1),
      stopGraceSeconds: STOP_GRACE_SECONDS,
    }
    return rollOut(docker, spec, deps.publishHost, say, signal)
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
    if (action === 'STOP') return stopInstances(docker, owner.serviceId, STOP_GRACE_SECONDS, say)
    if (action === 'UNINSTALL') return removeInstances(docker, owner.serviceId, STOP_GRACE_SECONDS, say)
    if (action === 'DELETE') return removeInstances(docker, owner.serviceId, STOP_GRACE_SECONDS, say, [volume])
    if (config.mode !== 'CONTAINER')
      return { ok: false, message: `a ${config.mode} database needs a cloud provider; the Docker executor runs CONTAINER databases` }
    const type = config.type as DatabaseType
    const engine = DATABASE_ENGINES[type]
    const runtime = DATABASE_RUNTIME[type]
    const image = `${deps.databaseImages}/${engine.image}:${config.version}`
    await ensureImage(docker, image, undefined, (message) => say('pull', message), signal)
    const network = await ensureNetwork(docker, owner.environmentId)
    const { credentials } = config
    const password = deps.openSecret(credentials.passwordSealed)
    return rollOut(
      docker,
      {
        owner,
        serviceName: snapshot.name,
        networkAlias: credentials.host,
        network,
        image,
        entrypoint: null,
        command: runtime.command?.(password) ?? null,
        env: runtime.env(credentials.login, password, credentials.databaseName),
        files: [],
        cpuMilli: config.cpu,
        memoryMb: config.memory,
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
        stopGraceSeconds: STOP_GRACE_SECONDS,
      },
      deps.publishHost,
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
    if (!('image' in config.source))
      return { ok: false, message: 'the Docker executor runs jobs from an image; building a job from git on Docker is not done yet' }
    const delivers = action === 'DEPLOY' || action === 'RESTART'
    const event = delivers && overrides.forceEvent ? overrides.forceEvent : 'cronjob' in config.schedule ? undefined : LIFECYCLE_EVENT[action]
    // A cron job's deploy only readies its image: each tick is a run of its own (forceEvent CRON).
    const command = event ? commandFor(config, event) : undefined
    const { imageName, tag, registryId } = config.source.image
    const registry = await deps.registry(organizationId, registryId)
    const image = imageReference(registry.host, imageName, overrides.imageTag || tag)
    if (delivers || command) await ensureImage(docker, image, registry.auth, (message) => say('pull', message), signal)
    if (!command) {
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
        serviceName: snapshot.name,
        network,
        image,
        entrypoint: command.entrypoint ? [command.entrypoint] : null,
        command: command.arguments,
        env,
        files,
        cpuMilli: config.cpu,
        memoryMb: config.memory,
        maxDurationSeconds: config.maxDurationSeconds,
        maxRestarts: config.maxNbRestart,
      },
      say,
      signal,
    )
  }

  return {
    abandoned: (run, say) => removeAbandoned(docker, run.id, say),
    async run(service, action, signal, context: ExecutionContext): Promise<ServiceOutcome> {
      const { snapshot, run } = context
      if (!snapshot || !run) return { ok: false, message: 'the deployment has no snapshot of the service' }
      const owner: Owner = { serviceId: service.id, environmentId: run.environmentId, executionId: run.id, kind: snapshot.kind }
      const say: Say = (step, message, level) => context.log(step, message, level)
      try {
        switch (snapshot.kind) {
          case 'CONTAINER':
            return await container(snapshot as ServiceSnapshot<ContainerConfig>, owner, run.organizationId, action, say, signal)
          case 'DATABASE':
            return await database(snapshot as ServiceSnapshot<DatabaseConfig>, owner, action, say, signal)
          case 'JOB':
            return await job(snapshot as ServiceSnapshot<JobConfig>, owner, run.organizationId, action, say, signal)
          case 'HELM':
            return { ok: false, message: "a helm service needs a Kubernetes cluster; this environment's cluster deploys to Docker" }
          default:
            return { ok: false, message: `the Docker executor does not deploy ${snapshot.kind.toLowerCase()} services yet` }
        }
      } catch (error) {
        if (signal.aborted) throw error
        const message = error instanceof Error ? error.message : String(error)
        return { ok: false, message: `the Docker engine refused: ${message}` }
      }
    },
  }
}
