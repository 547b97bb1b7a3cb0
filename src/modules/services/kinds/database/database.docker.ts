import type { DockerAction, DockerKind } from '#src/modules/executors/docker/docker-executor.ts'
import { databaseVolume, ensureNetwork } from '#src/modules/executors/docker/docker-objects.ts'
import { compareWithRunning } from '#src/modules/executors/docker/dry-run-comparisons.ts'
import { ensureImage } from '#src/modules/executors/docker/images.ts'
import type { Rollout } from '#src/modules/executors/docker/service-instances.ts'
import { removeInstances, rollOut, stopInstances } from '#src/modules/executors/docker/service-instances.ts'
import type { ServiceOutcome } from '#src/modules/executors/executor.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { DatabaseConfig } from './database.types.ts'
import { openPassword } from './database-credentials.ts'
import { DATABASE_ENGINES, type DatabaseType } from './database-engines.ts'
import { DATABASE_RUNTIME, databaseImage } from './database-runtime.ts'

// What the Docker executor does to a database (docs/docker.md, "Deploying with Docker"): a CONTAINER database is
// its engine's official image with one volume; its password never shows in the logs. A dry run pulls
// the image and compares it with the one running.

/** The Docker executor's entry for a database. */
export const databaseDocker: DockerKind<DatabaseConfig> = {
  perform: database,
  dryRun: databaseDryRun,
  secretValues: (snapshot, secrets) => [openPassword(snapshot.configuration.credentials, secrets)],
}

/** A deploy up to its rollout: the engine's image pulled and compared with what runs now; its storage untouched. */
async function databaseDryRun(snapshot: ServiceSnapshot<DatabaseConfig>, act: DockerAction): Promise<ServiceOutcome> {
  const config = snapshot.configuration
  if (config.mode !== 'CONTAINER')
    return { ok: false, message: `a ${config.mode} database needs a cloud provider; the Docker executor runs CONTAINER databases` }
  const image = databaseImage(act.databaseImages, config.type as DatabaseType, config.version)
  await ensureImage(act.docker, image, undefined, (message) => act.say('pull', message), act.signal, act.pulls)
  act.say('compare', `its data stays in the volume ${databaseVolume(act.owner.serviceId)}, which a deploy keeps`)
  return compareWithRunning(act, snapshot.name, image, 1)
}

async function database(snapshot: ServiceSnapshot<DatabaseConfig>, act: DockerAction): Promise<Rollout> {
  const { docker, owner, action, say, signal, publish } = act
  const config = snapshot.configuration
  const volume = databaseVolume(owner.serviceId)
  if (action === 'STOP') return stopInstances(docker, owner.serviceId, act.stopGraceSeconds, say)
  if (action === 'UNINSTALL') return removeInstances(docker, owner.serviceId, act.stopGraceSeconds, say)
  if (action === 'DELETE') return removeInstances(docker, owner.serviceId, act.stopGraceSeconds, say, [volume])
  if (config.mode !== 'CONTAINER')
    return { ok: false, message: `a ${config.mode} database needs a cloud provider; the Docker executor runs CONTAINER databases` }
  const type = config.type as DatabaseType
  const engine = DATABASE_ENGINES[type]
  const runtime = DATABASE_RUNTIME[type]
  const image = databaseImage(act.databaseImages, type, config.version)
  await ensureImage(docker, image, undefined, (message) => say('pull', message), signal, act.pulls)
  const network = await ensureNetwork(docker, owner.environmentId)
  const { credentials } = config
  const password = openPassword(credentials, act.secrets)
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
      confinement: act.confinement,
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
      stopGraceSeconds: act.stopGraceSeconds,
    },
    publish,
    say,
    signal,
  )
}
