import type { ImageSource, InstancesWorkload, Probe, WorkloadPort } from '#src/modules/executors/workload.ts'

// The instances of a service that runs as long-lived containers (a container, an application),
// whichever executor runs them: the same description for the Docker engine and for Kubernetes.

/** What such a service configures of its instances. */
export interface InstanceConfig {
  entrypoint: string | null
  arguments: string[]
  cpu: number
  memory: number
  ports: Omit<WorkloadPort, 'name'>[]
  storage: { id: string; mountPoint: string; sizeGb: number }[]
  minRunningInstances: number
}

/** Its instances of `image`, ready by `readiness`. */
export function containerInstances(
  config: InstanceConfig,
  image: ImageSource,
  probes: { readiness: Probe | null; liveness: Probe | null },
): InstancesWorkload {
  return {
    type: 'instances',
    image,
    entrypoint: config.entrypoint ? [config.entrypoint] : null,
    args: config.arguments,
    env: {},
    variables: true,
    hostname: null,
    ports: config.ports.map(({ internalPort, externalPort, protocol, publiclyAccessible, isDefault, publicPath }) => ({
      internalPort,
      externalPort,
      protocol,
      publiclyAccessible,
      isDefault,
      publicPath,
    })),
    ...probes,
    // Kept when the service is deleted, as before: its environment's deletion removes it.
    volumes: config.storage.map((volume) => ({ id: volume.id, mountPath: volume.mountPoint, sizeGb: volume.sizeGb, lifetime: 'environment' })),
    resources: { cpuMilli: config.cpu, memoryMb: config.memory },
    instances: Math.max(config.minRunningInstances, 1),
  }
}
