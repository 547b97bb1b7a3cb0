import type { DockerAction, DockerKind } from '#src/modules/executors/docker/docker-executor.ts'
import { ensureNetwork } from '#src/modules/executors/docker/docker-objects.ts'
import { ensureImage, imageReference } from '#src/modules/executors/docker/images.ts'
import type { Rollout } from '#src/modules/executors/docker/service-instances.ts'
import { removeInstances, rollOut, stopInstances } from '#src/modules/executors/docker/service-instances.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { ContainerConfig } from './container.types.ts'
import type { ContainerDeployOverrides } from './container-deployments.ts'
import { containerInstanceSpec } from './container-instance.ts'

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
  return rollOut(docker, containerInstanceSpec(snapshot, act, network, image, config.healthchecks.readinessProbe), publish, say, signal)
}
