import type Docker from 'dockerode'
import type { ServiceOutput } from '../service-output.ts'
import type { ServiceRuntime } from '../service-runtime.ts'
import { LABELS, removeContainer, removeNetworkIfUnused } from './docker-objects.ts'
import { createDockerRuntime } from './docker-runtime.ts'
import { createDockerServiceOutput } from './service-output.ts'

// BERTH_EXECUTOR=docker: the engine at DOCKER_HOST (the local socket by default), checked before a
// process that is to deploy there starts.

/**
 * dockerode, loaded by the processes that use an engine only: with ssh2, which it loads, it adds
 * about 20 MB to a process (see docs/memory.md).
 */
export async function loadDockerode(): Promise<typeof import('dockerode')> {
  return (await import('dockerode')).default
}

/** Where the engine is, as an operator would name it. */
export const dockerAddress = () => process.env.DOCKER_HOST || 'unix:///var/run/docker.sock'

/**
 * The engine at DOCKER_HOST, and its version; rejects, saying why, when it does not answer (a
 * process that is to deploy there must not start).
 */
export async function connectDocker(): Promise<{ docker: Docker; version: string }> {
  const Docker = await loadDockerode()
  const docker = new Docker()
  try {
    return { docker, version: (await docker.version()).Version }
  } catch (error) {
    throw new Error(`BERTH_EXECUTOR=docker, but the Docker engine at ${dockerAddress()} does not answer: ${(error as Error).message}`)
  }
}

/**
 * What the engine at DOCKER_HOST says of running services, for links and statuses
 * (docker-runtime.ts): only environments whose cluster deploys to Docker are asked about (those of
 * the default clusters under BERTH_EXECUTOR=docker). Not checked at start: an engine that does not
 * answer leaves links and statuses as the records say.
 */
export async function dockerServiceRuntime(settings: {
  publishHost: string
  publicHost: string
  timeoutMs: number
  /** The executor of the environment's cluster; undefined for a default cluster's. */
  executorOf(environmentId: string): Promise<string | undefined>
}): Promise<ServiceRuntime> {
  const { executorOf, ...engine } = settings
  const Docker = await loadDockerode()
  return createDockerRuntime({
    docker: new Docker(),
    ...engine,
    deploysToDocker: async (environmentId) => ((await executorOf(environmentId)) ?? 'DOCKER') === 'DOCKER',
  })
}

/**
 * What the services of environments whose cluster deploys to Docker print, from the engine at
 * DOCKER_HOST, for the service logs (service-output.ts).
 */
export async function dockerServiceOutput(
  /** The executor of the environment's cluster; undefined for a default cluster's. */
  executorOf: (environmentId: string) => Promise<string | undefined>,
): Promise<ServiceOutput> {
  const Docker = await loadDockerode()
  return createDockerServiceOutput({
    docker: new Docker(),
    deploysToDocker: async (environmentId) => ((await executorOf(environmentId)) ?? 'DOCKER') === 'DOCKER',
  })
}

/**
 * Removes from the engine at DOCKER_HOST what Berth made for environments deleted with their
 * project or organization (the database cascade deletes their services without a deployment):
 * their containers, volumes and networks, found by label.
 */
export async function removeDeletedEnvironments(environmentIds: string[]): Promise<void> {
  const docker = new (await loadDockerode())()
  for (const environmentId of environmentIds) {
    const filters = { label: [`${LABELS.environment}=${environmentId}`] }
    const containers = await docker.listContainers({ all: true, filters })
    for (const info of containers) await removeContainer(docker, info.Id, 0)
    // Volumes made before they carried labels are found as the containers' mounts.
    const mounted = containers.flatMap((info) =>
      info.Mounts.filter((mount) => mount.Type === 'volume' && mount.Name?.startsWith('berth-')).map((mount) => mount.Name!),
    )
    const labelled = ((await docker.listVolumes({ filters })).Volumes ?? []).map((volume) => volume.Name)
    for (const name of new Set([...mounted, ...labelled]))
      await docker
        .getVolume(name)
        .remove()
        .catch(() => undefined)
    await removeNetworkIfUnused(docker, environmentId)
  }
}
