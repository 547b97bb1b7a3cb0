import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import type { GitWebhookStatus, ServiceGitWebhooksService } from './service-git-webhooks.ts'

const GitWebhookStatusResponse = Type.Object(
  {
    status: Type.Unsafe<string>({ type: 'string', enum: ['ACTIVE', 'NOT_CONFIGURED', 'MISCONFIGURED', 'UNABLE_TO_VERIFY'] }),
    provider: Type.Unsafe<string>({ type: 'string', enum: ['GITHUB', 'GITLAB', 'BITBUCKET'] }),
    missing_events: Type.Optional(
      Type.Array(Type.String(), { description: "the needed events the webhook lacks, in the provider's words (MISCONFIGURED)" }),
    ),
  },
  { title: 'GitWebhookStatusResponse' },
)

const WHAT =
  "Berth's webhook is the repository's webhook delivering to BERTH_PUBLIC_URL + `/organization/{organizationId}/gitWebhook/{github|gitlab|bitbucket}` " +
  'with the push and pull (merge) request events (docs/git-push.md). The repository is the one the service builds from ' +
  '(an application, a job from a Dockerfile, a helm chart in git, an IAC service; any other: 400), read with its git token.'

const toResponse = (status: GitWebhookStatus) => ({
  status: status.status,
  provider: status.provider,
  ...(status.missingEvents ? { missing_events: status.missingEvents } : {}),
})

/** getServiceGitWebhookStatus and syncServiceGitWebhook. */
export function serviceGitWebhooksRoutes(webhooks: ServiceGitWebhooksService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const params = Type.Object({ serviceId: Uuid })
    app.get(
      '/service/:serviceId/gitWebhookStatus',
      {
        schema: {
          operationId: 'getServiceGitWebhookStatus',
          summary: 'Get git webhook status for a service',
          description: `${WHAT} ACTIVE: there with every needed event; MISCONFIGURED: there, inactive or lacking events (\`missing_events\`); NOT_CONFIGURED: absent; UNABLE_TO_VERIFY: the provider would not list the repository's webhooks (token refused, rate limit, unreachable).`,
          tags: ['Service Main Calls'],
          params,
          response: { 200: GitWebhookStatusResponse },
        },
      },
      async (req) => toResponse(await webhooks.status(req.principal, req.params.serviceId)),
    )

    app.post(
      '/service/:serviceId/gitWebhook/sync',
      {
        schema: {
          operationId: 'syncServiceGitWebhook',
          summary: 'Synchronize git webhook for a service',
          description:
            `${WHAT} Needs the WRITE role. Creates Berth's webhook when absent; otherwise rewrites it with the needed events and the organization's current git webhook secret ` +
            '(providers never show a secret, so a rotated one is put there this way). Answers the status as the provider lists it afterwards. ' +
            "422 when the organization has no git webhook secret yet, or the provider refuses the change (the git token cannot administer the repository's webhooks); 429 on its rate limit.",
          tags: ['Service Main Calls'],
          params,
          response: { 200: GitWebhookStatusResponse },
        },
      },
      async (req) => toResponse(await webhooks.sync(req.principal, req.params.serviceId)),
    )
  }
}
