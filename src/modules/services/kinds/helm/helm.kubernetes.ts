import type { KubernetesKind } from '#src/modules/executors/kubernetes/builtin-deployments.ts'
import type { HelmConfig } from './helm.types.ts'

/** The Kubernetes executor's entry for a helm service (docs/kubernetes.md): its own chart's release. */
export const helmKubernetes: KubernetesKind<HelmConfig> = {
  async perform(_helm, act) {
    const { action } = act
    if (action === 'UNINSTALL' || action === 'DELETE') return act.uninstall()
    // Both act on the release's workloads with kubectl: a second `upgrade` would restart nothing.
    if (action === 'STOP' || action === 'RESTART') return act.ownChart.workloads(action)
    return act.ownChart.install()
  },
}
