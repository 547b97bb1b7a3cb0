import type { KindWorkload } from '#src/modules/executors/workload.ts'
import type { GitOpsConfig, GitOpsOverrides } from './gitops.types.ts'
import { performGitOpsAction } from './gitops-argocd.ts'

/** A GITOPS_APP runs nothing of Berth's: its Argo CD does the action (`external`, docs/executors.md). */
export const gitOpsWorkload: KindWorkload<GitOpsConfig> = {
  describe: (snapshot) => ({
    type: 'external',
    perform: (context) =>
      performGitOpsAction(
        { configuration: snapshot.configuration, overrides: snapshot.overrides as GitOpsOverrides, serviceId: snapshot.serviceId },
        context,
      ),
  }),
}
