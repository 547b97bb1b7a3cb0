import type { DockerAction, DockerKind } from '#src/modules/executors/docker/docker-executor.ts'
import { dnsLabel, ensureNetwork } from '#src/modules/executors/docker/docker-objects.ts'
import { ensureImage, imageReference } from '#src/modules/executors/docker/images.ts'
import type { Rollout } from '#src/modules/executors/docker/service-instances.ts'
import { type InstanceSpec, removeInstances, rollOut, stopInstances } from '#src/modules/executors/docker/service-instances.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { ContainerConfig } from './container.types.ts'
import type { ContainerDeployOverrides } from './container-deployments.ts'

// What the Docker executor does to a container (docs/docker.md, "Deploying with Docker"): its registry's image
// pulled and rolled out.

/** The Docker executor's entry for a container. */
export const containerDocker: DockerKind<ContainerConfig> = {
  perform: container,
}

async function container(snapshot: ServiceSnapshot<ContainerConfig>, act: DockerAction): Promise<Rollout> {
  const { docker, owner, organizationId, action, say, signal, publish } = act
  const config = snapshot.configuration
  if (action === 'STOP') return stopInstances(docker, owner.serviceId, act.stopGraceSeconds, say)
  if (action === 'UNINSTALL' || action === 'DELETE') return removeInstances(docker, owner.serviceId, act.stopGraceSeconds, say)
  const registry = await act.registry(organizationId, config.registryId)
  const tag = (snapshot.overrides as ContainerDeployOverrides).imageTag ?? config.tag
  const image = imageReference(registry.host, config.imageName, tag)
  await ensureImage(docker, image, registry.auth, (message) => say('pull', message), signal, act.pulls)
  const network = await ensureNetwork(docker, owner.environmentId)
  const { env, files } = act.delivered()
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
    confinement: act.confinement,
    ports: config.ports.map((port) => ({
      internal: port.internalPort,
      protocol: port.protocol === 'UDP' ? 'UDP' : 'TCP',
      publish: port.publiclyAccessible,
    })),
    volumes: config.storage.map((volume) => ({ name: `berth-${owner.serviceId}-${volume.id}`, mountPoint: volume.mountPoint })),
    readiness: config.healthchecks.readinessProbe,
    instances: Math.max(config.minRunningInstances, 1),
    stopGraceSeconds: act.stopGraceSeconds,
  }
  return rollOut(docker, spec, publish, say, signal)
}
