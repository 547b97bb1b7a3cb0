import type { KindRoutes } from '#src/modules/services/kind-routes.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { toApplicationRecord } from './application.kind.ts'
import { type ApplicationDeployRequest as ApplicationDeployBody, ApplicationDeployRequest, ApplicationResponse } from './application.schemas.ts'
import type { ApplicationConfig, ApplicationDeployOverrides } from './application.types.ts'
import { toApplicationResponse } from './application.wire.ts'

/** What an application deploy request (alone, or in a bulk deploy's `applications`) asks for beyond the configuration. */
export const applicationDeployOverrides = (body: ApplicationDeployBody | undefined): ApplicationDeployOverrides =>
  body?.git_commit_id === undefined ? {} : { gitCommitId: body.git_commit_id }

/** Applications on the wire, for the routes every kind shares. */
export const applicationRoutes: KindRoutes = {
  type: 'APPLICATION',
  segment: 'application',
  param: 'applicationId',
  name: 'Application',
  tags: { actions: 'Application Actions', main: 'Application Main Calls', history: 'Application Deployment History' },
  deploy: {
    body: ApplicationDeployRequest,
    description:
      'Builds `git_commit_id` (a commit id, or a branch or tag), else the head of the branch when the deployment is queued: the commit is looked up at ' +
      "the git provider with the repository's git token, and the provider's answer decides (an unknown commit is a 400 at /git_commit_id; " +
      'an unreachable or failing provider a 502 or 504, a refused token a 400 `git_token_invalid`, a rate limit a 429), with nothing queued.',
    overrides: (body) => applicationDeployOverrides(body as ApplicationDeployBody | undefined),
  },
  uninstall: true,
  reboot: true,
  // The environment's service list shows no deployed commit: only the application's own routes read it.
  response: { schema: ApplicationResponse, of: (service) => toApplicationResponse(toApplicationRecord(service as ServiceRecord<ApplicationConfig>)) },
  bulk: { statuses: 'applications', ids: 'application_ids' },
}
