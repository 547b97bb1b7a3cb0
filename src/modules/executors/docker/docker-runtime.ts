import type Docker from 'dockerode'
import type { LiveState, ServiceAddress, ServiceRuntime } from '../service-runtime.ts'
import { LABELS, removeContainer } from './docker-objects.ts'

// The Docker executor's answer to "where is this service reachable, and does it still run"
// (service-runtime.ts): the engine's containers, found by label, read at each request with a short
// timeout. Environments that do not deploy to Docker are not asked about at all.

export interface DockerRuntimeDeps {
  docker: Docker
  /** Whether the environment's cluster deploys to Docker (one small query; no engine call when not). */
  deploysToDocker(environmentId: string): Promise<boolean>
  /** BERTH_DOCKER_PUBLISH_HOST: the address ports are published on. */
  publishHost: string
  /** BERTH_DOCKER_PUBLIC_HOST: the host name links give when ports are published on every address. */
  publicHost: string
  /** How long a status or link read waits for the engine before answering what the records say. */
  timeoutMs: number
}

const WILDCARDS = new Set(['0.0.0.0', '::', ''])

export function createDockerRuntime(deps: DockerRuntimeDeps): ServiceRuntime {
  const { docker } = deps
  const host = WILDCARDS.has(deps.publishHost) ? deps.publicHost : deps.publishHost

  /** The containers carrying `label`, running or not; undefined when the engine does not answer in time. */
  async function containers(label: string): Promise<Docker.ContainerInfo[] | undefined> {
    const abort = new AbortController()
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => {
        abort.abort()
        resolve(undefined)
      }, deps.timeoutMs)
    })
    const listed = docker
      .listContainers({ all: true, filters: { label: [label] }, abortSignal: abort.signal } as Docker.ContainerListOptions)
      .catch(() => undefined)
    try {
      return await Promise.race([listed, late])
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    async cleanFailedRuns(service) {
      if (!(await deps.deploysToDocker(service.environmentId))) return undefined
      // A job's run containers (instance run-<n>) that are not running are failed runs kept for inspection.
      const found = await docker.listContainers({ all: true, filters: { label: [`${LABELS.service}=${service.id}`] } })
      const removed: string[] = []
      for (const info of found) {
        if (info.State === 'running' || !info.Labels[LABELS.instance]?.startsWith('run-')) continue
        await removeContainer(docker, info.Id, 0)
        removed.push(info.Names[0]?.replace(/^\//, '') ?? info.Id.slice(0, 12))
      }
      return removed
    },

    async addresses(service) {
      if (!(await deps.deploysToDocker(service.environmentId))) return undefined
      const found = await containers(`${LABELS.service}=${service.id}`)
      if (!found) return undefined
      const addresses = new Map<string, ServiceAddress>()
      const instances = found
        .filter((info) => info.State === 'running' && info.Labels[LABELS.instance] !== undefined)
        .sort((a, b) => Number(a.Labels[LABELS.instance]) - Number(b.Labels[LABELS.instance]))
      for (const info of instances) {
        for (const port of info.Ports) {
          if (!port.PublicPort) continue
          const protocol = port.Type === 'udp' ? 'UDP' : 'TCP'
          // The engine lists a port published on every address once per address family.
          addresses.set(`${port.PrivatePort}/${protocol}/${port.PublicPort}`, {
            internalPort: port.PrivatePort,
            protocol,
            host,
            hostPort: port.PublicPort,
          })
        }
      }
      return [...addresses.values()]
    },

    async liveStates(environmentId, serviceIds) {
      const states = new Map<string, LiveState>()
      if (serviceIds.length === 0 || !(await deps.deploysToDocker(environmentId))) return states
      const found = await containers(`${LABELS.environment}=${environmentId}`)
      if (!found) return states
      for (const serviceId of serviceIds) {
        const instances = found.filter((info) => info.Labels[LABELS.service] === serviceId && info.Labels[LABELS.instance] !== undefined)
        const running = instances.filter((info) => info.State === 'running')
        if (instances.length > 0 && running.length === instances.length) continue
        const down = instances.filter((info) => info.State !== 'running').map((info) => `instance ${info.Labels[LABELS.instance]} ${info.Status}`)
        if (instances.length === 0) states.set(serviceId, { state: 'STOPPED', message: 'no instance exists: they were removed outside Berth' })
        else states.set(serviceId, { state: running.length === 0 ? 'STOPPED' : 'UNAVAILABLE', message: down.join('; ') })
      }
      return states
    },
  }
}
