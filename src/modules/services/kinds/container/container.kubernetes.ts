import { containerValues } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import { type KubernetesKind, ROLLOUT_TIMEOUT_SECONDS } from '#src/modules/executors/kubernetes/builtin-deployments.ts'
import type { ContainerConfig } from './container.types.ts'
import type { ContainerDeployOverrides } from './container-deployments.ts'

/** The Kubernetes executor's entry for a container (docs/kubernetes.md): a release of the chart Berth ships, its registry's image pulled. */
export const containerKubernetes: KubernetesKind<ContainerConfig> = {
  async perform(container, act) {
    const { action } = act
    if (action === 'UNINSTALL' || action === 'DELETE') return act.uninstall()
    const { registryId, imageName, tag } = container.configuration
    const pulled = await act.image(registryId, imageName, (container.overrides as ContainerDeployOverrides).imageTag ?? tag)
    const values = containerValues(container, act.owner, act.variables(), pulled, action === 'STOP', await act.ingress())
    return act.installChart(values, ROLLOUT_TIMEOUT_SECONDS, ['--wait'])
  },
}
