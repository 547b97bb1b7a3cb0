import type { KindWorkload } from '#src/modules/executors/workload.ts'
import { containerInstances } from '#src/modules/services/kinds/container/container-instances.ts'
import type { ApplicationConfig, ApplicationDeployOverrides } from './application.types.ts'
import { containerProbe } from './application-probes.ts'

/**
 * What an application runs (docs/docker.md, docs/kubernetes.md): its deployment's commit built from
 * git, then instances as a container's. A deploy and its dry run build afresh; a restart or a stop
 * runs what the last deploy built.
 */
export const applicationWorkload: KindWorkload<ApplicationConfig> = {
  describe({ configuration: config, overrides }, { action }) {
    const { commit: resolved, gitCommitId } = overrides as ApplicationDeployOverrides
    const commit = resolved?.id ?? gitCommitId
    const build = {
      repository: config.gitRepository,
      ref: commit ? { commit } : { branch: config.gitRepository.branch },
      dockerfilePath: config.dockerfilePath,
      dockerfileRaw: null,
      target: config.dockerTargetBuildStage,
      reuse: action !== 'DEPLOY' && action !== 'DEPLOY_DRY_RUN',
    }
    const storage = config.storage.map((volume) => ({ ...volume, sizeGb: volume.size }))
    return containerInstances(
      { ...config, storage },
      { build },
      {
        readiness: containerProbe(config.healthchecks.readiness_probe),
        liveness: containerProbe(config.healthchecks.liveness_probe),
      },
    )
  },
}
