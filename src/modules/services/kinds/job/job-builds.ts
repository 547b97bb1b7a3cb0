import type { BuildSource } from '#src/modules/executors/workload.ts'
import type { RunnableTrigger } from '#src/platform/deployment-states.ts'
import type { JobSource } from './job.types.ts'
import type { JobDeployOverrides } from './job-deployments.ts'

/** What a job built from git asks its executor to build (or reuse) for `action`. */
export function jobBuildSource(
  source: Extract<JobSource, { docker: unknown }>['docker'],
  overrides: JobDeployOverrides,
  action: RunnableTrigger,
): BuildSource {
  const { git, dockerfilePath, dockerfileRaw, dockerTargetBuildStage } = source
  return {
    repository: git,
    ref: overrides.gitCommitId ? { commit: overrides.gitCommitId } : { branch: git.branch },
    dockerfilePath,
    dockerfileRaw,
    target: dockerTargetBuildStage,
    // A deploy (and its dry run) builds; a cron tick, a forced event and a stop or delete event run the image built for the commit.
    reuse: (action !== 'DEPLOY' && action !== 'DEPLOY_DRY_RUN') || overrides.forceEvent !== undefined,
  }
}
