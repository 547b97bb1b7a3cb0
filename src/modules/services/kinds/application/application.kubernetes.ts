import { applicationValues } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import { type KubernetesKind, ROLLOUT_TIMEOUT_SECONDS } from '#src/modules/executors/kubernetes/builtin-deployments.ts'
import type { ApplicationConfig, ApplicationDeployOverrides } from './application.types.ts'

/**
 * The Kubernetes executor's entry for an application (docs/kubernetes.md): its commit built by the
 * runner's Docker engine and pushed to the cluster's image registry, then a release of the chart Berth ships.
 */
export const applicationKubernetes: KubernetesKind<ApplicationConfig> = {
  async perform(application, act) {
    const { action } = act
    if (action === 'UNINSTALL' || action === 'DELETE') return act.uninstall()
    const config = application.configuration
    const overrides = application.overrides as ApplicationDeployOverrides
    const commit = overrides.commit?.id ?? overrides.gitCommitId
    const built = await act.pushed('an application', {
      repository: config.gitRepository,
      ref: commit ? { commit } : { branch: config.gitRepository.branch },
      dockerfilePath: config.dockerfilePath,
      dockerfileRaw: null,
      target: config.dockerTargetBuildStage,
      // A restart or a stop runs what the last deploy built; a dry run builds as a deploy does.
      reuse: action !== 'DEPLOY' && action !== 'DEPLOY_DRY_RUN',
    })
    if (!built.ok) return built
    const values = applicationValues(application, act.owner, act.variables(), built.pulled, action === 'STOP', await act.ingress())
    return act.installChart(values, ROLLOUT_TIMEOUT_SECONDS, ['--wait'])
  },
}
