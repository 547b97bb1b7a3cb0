import type { DockerAction, DockerKind } from '#src/modules/executors/docker/docker-executor.ts'
import { ensureNetwork } from '#src/modules/executors/docker/docker-objects.ts'
import { compareWithRunning } from '#src/modules/executors/docker/dry-run-comparisons.ts'
import { ensureImage, imageReference } from '#src/modules/executors/docker/images.ts'
import type { Rollout } from '#src/modules/executors/docker/service-instances.ts'
import { removeInstances, rollOut, stopInstances } from '#src/modules/executors/docker/service-instances.ts'
import type { ServiceOutcome } from '#src/modules/executors/executor.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { ContainerConfig } from './container.types.ts'
import type { ContainerDeployOverrides } from './container-deployments.ts'
import { containerInstanceSpec } from './container-instance.ts'

// What the Docker executor does to a container (docs/docker.md, "Deploying with Docker"): its registry's image
// pulled and rolled out; a dry run pulls it and compares it with the image running.

/** The Docker executor's entry for a container. */
export const containerDocker: DockerKind<ContainerConfig> = {
  perform: container,
  dryRun: containerDryRun,
}

/** The image the snapshot runs, pulled from its registry unless the engine has it. */
async function pulledImage(snapshot: ServiceSnapshot<ContainerConfig>, act: DockerAction): Promise<string> {
  const config = snapshot.configuration
  const registry = await act.registry(act.organizationId, config.registryId)
  const tag = (snapshot.overrides as ContainerDeployOverrides).imageTag ?? config.tag
  const image = imageReference(registry.host, config.imageName, tag)
  await ensureImage(act.docker, image, registry.auth, (message) => act.say('pull', message), act.signal, act.pulls)
  return image
}

/** A deploy up to its rollout: the image pulled, and what it would run compared with what runs now. */
async function containerDryRun(snapshot: ServiceSnapshot<ContainerConfig>, act: DockerAction): Promise<ServiceOutcome> {
  const image = await pulledImage(snapshot, act)
  return compareWithRunning(act, snapshot.name, image, Math.max(snapshot.configuration.minRunningInstances, 1))
}

async function container(snapshot: ServiceSnapshot<ContainerConfig>, act: DockerAction): Promise<Rollout> {
  const { docker, owner, action, say, signal, publish } = act
  const config = snapshot.configuration
  if (action === 'STOP') return stopInstances(docker, owner.serviceId, act.stopGraceSeconds, say)
  if (action === 'UNINSTALL' || action === 'DELETE') return removeInstances(docker, owner.serviceId, act.stopGraceSeconds, say)
  const image = await pulledImage(snapshot, act)
  const network = await ensureNetwork(docker, owner.environmentId)
  return rollOut(docker, containerInstanceSpec(snapshot, act, network, image, config.healthchecks.readinessProbe), publish, say, signal)
}
