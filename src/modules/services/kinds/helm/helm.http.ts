import type { KindRoutes } from '#src/modules/services/kind-routes.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { toHelmRecord } from './helm.kind.ts'
import { type HelmDeployRequest as HelmDeployBody, HelmDeployRequest, HelmForceEventQuery, HelmResponse } from './helm.schemas.ts'
import type { HelmConfig } from './helm.types.ts'
import { toHelmResponse } from './helm.wire.ts'
import type { HelmDeployOverrides } from './helm-deployments.ts'

/** What a helm deploy request (alone, or in a bulk deploy's `helms`) asks for beyond the configuration. */
export const helmDeployOverrides = (body: HelmDeployBody | undefined): HelmDeployOverrides => ({
  chartVersion: body?.chart_version,
  gitCommitId: body?.git_commit_id,
  valuesOverrideGitCommitId: body?.values_override_git_commit_id,
})

/** Helm services on the wire, for the routes every kind shares. */
export const helmRoutes: KindRoutes = {
  type: 'HELM',
  segment: 'helm',
  param: 'helmId',
  name: 'Helm',
  tags: { actions: 'Helm Actions', main: 'Helm Main Calls', history: 'Helm Deployment History' },
  deploy: {
    body: HelmDeployRequest,
    description: '`chart_version` applies to a chart of a helm repository, `git_commit_id` to one in a git repository.',
    overrides: (body) => helmDeployOverrides(body as HelmDeployBody | undefined),
  },
  actionQuery: HelmForceEventQuery,
  uninstall: true,
  response: { schema: HelmResponse, of: (service) => toHelmResponse(toHelmRecord(service as ServiceRecord<HelmConfig>)) },
  bulk: { statuses: 'helms', ids: 'helm_ids' },
}
