import type { DockerAction } from '#src/modules/executors/docker/docker-executor.ts'
import { dnsLabel } from '#src/modules/executors/docker/docker-objects.ts'
import type { InstanceSpec } from '#src/modules/executors/docker/service-instances.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { Probe } from './container.types.ts'

/** What a service that runs as long-lived containers (a container, an application) configures of its instances. */
export interface InstanceConfig {
  entrypoint: string | null
  arguments: string[]
  cpu: number
  memory: number
  ports: { internalPort: number; protocol: string; publiclyAccessible: boolean }[]
  storage: { id: string; mountPoint: string }[]
  minRunningInstances: number
}

/** The instances of a container-like service, running `image` on `network`, ready by `readiness`. */
export function containerInstanceSpec(
  snapshot: ServiceSnapshot<InstanceConfig>,
  act: DockerAction,
  network: string,
  image: string,
  readiness: Probe | null,
): InstanceSpec {
  const { owner } = act
  const config = snapshot.configuration
  const { env, files } = act.delivered()
  return {
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
    confinement: act.confinement,
    ports: config.ports.map((port) => ({
      internal: port.internalPort,
      protocol: port.protocol === 'UDP' ? 'UDP' : 'TCP',
      publish: port.publiclyAccessible,
    })),
    volumes: config.storage.map((volume) => ({ name: `berth-${owner.serviceId}-${volume.id}`, mountPoint: volume.mountPoint })),
    readiness,
    instances: Math.max(config.minRunningInstances, 1),
    stopGraceSeconds: act.stopGraceSeconds,
  }
}
