import type { KindWorkload } from '#src/modules/executors/workload.ts'
import type { ContainerConfig } from './container.types.ts'
import type { ContainerDeployOverrides } from './container-deployments.ts'
import { containerInstances } from './container-instances.ts'

/** What a container runs (docs/docker.md, docs/kubernetes.md): its registry's image, at the deploy's tag. */
export const containerWorkload: KindWorkload<ContainerConfig> = {
  describe({ configuration: config, overrides }) {
    const tag = (overrides as ContainerDeployOverrides).imageTag ?? config.tag
    return containerInstances(
      config,
      { registry: { registryId: config.registryId, imageName: config.imageName, tag } },
      {
        readiness: config.healthchecks.readinessProbe,
        liveness: config.healthchecks.livenessProbe,
      },
    )
  },
}
