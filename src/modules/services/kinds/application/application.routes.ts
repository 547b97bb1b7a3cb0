import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { KindRouteContext } from '#src/modules/services/kind-route-context.ts'
import { SIMULATED_LINK_DOMAIN } from '#src/modules/services/service-links.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { ApplicationParams, CommitListQuery, CommitResponseList } from './application.schemas.ts'
import { createApplicationServices } from './application.service.ts'
import { toCommitResponse } from './application.wire.ts'

// The application's own routes, besides those every kind has (kind-crud.routes.ts, service-actions.routes.ts).

const LinkResponseList = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        service_id: Uuid,
        service_type: Type.String(),
        url: Type.String(),
        internal_port: Type.Integer(),
        external_port: Type.Integer(),
        is_qovery_domain: Type.Boolean(),
        is_default: Type.Boolean(),
      }),
    ),
  },
  { title: 'LinkResponseList' },
)

/** An application's commits and links: the routes after its delete. */
export function applicationMemberRoutes(context: KindRouteContext): FastifyPluginAsyncTypebox {
  const applications = createApplicationServices(context)
  return async (app) => {
    app.get(
      '/application/:applicationId/commit',
      {
        schema: {
          operationId: 'listApplicationCommit',
          summary: 'List last commits',
          description:
            "The newest 100 commits of the application's branch (the default branch without one), or from `gitCommitId`, newest first, as its git provider " +
            "lists them, read with the repository's git token; `tag` is a tag among the provider's first 100 that points at the commit, else empty. " +
            'Provider errors as for branch listing (README, "Git providers"); an unknown `gitCommitId` is a 400. Kept for BERTH_GIT_CACHE_TTL_MS.',
          tags: ['Application Main Calls'],
          params: ApplicationParams,
          querystring: CommitListQuery,
          response: { 200: CommitResponseList },
        },
      },
      async (req) => ({
        results: (await applications.commits(req.principal, req.params.applicationId, req.query.gitCommitId)).map(toCommitResponse),
      }),
    )

    app.get(
      '/application/:applicationId/link',
      {
        schema: {
          operationId: 'listApplicationLinks',
          summary: 'List all URLs of the application',
          description:
            `The addresses its publicly accessible ports are reached at, derived from the application's id and ports, ` +
            `under ${SIMULATED_LINK_DOMAIN}: https://z<first 8 hex of the id>.${SIMULATED_LINK_DOMAIN} for the default port, ` +
            `https://p<internal port>-z<first 8 hex of the id>.${SIMULATED_LINK_DOMAIN} for each public port (README, "Applications"), ` +
            'then `https://<domain>` for each custom domain, on the default port (`is_qovery_domain: false`). ' +
            'When its environment deploys to Docker, only what answers while an instance runs: the same names under BERTH_APPS_DOMAIN at the front door (docs/front-door.md) ' +
            'and its custom domains whose last check passed, then `http://<host>:<host port>` (`tcp://`, `udp://`) per public port of each running instance, for debugging.',
          tags: ['Application Main Calls'],
          params: ApplicationParams,
          response: { 200: LinkResponseList },
        },
      },
      async (req) => ({ results: await applications.links(req.principal, req.params.applicationId) }),
    )
  }
}
