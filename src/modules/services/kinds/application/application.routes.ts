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

const UserResponseList = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          id: Uuid,
          created_at: Type.String({ format: 'date-time', description: "the contributor's oldest commit among those read" }),
          updated_at: Type.String({ format: 'date-time', description: "the contributor's newest commit among those read" }),
          first_name: Type.String(),
          last_name: Type.String(),
          email: Type.Optional(Type.String({ format: 'email' })),
          profile_picture_url: Type.Optional(Type.String()),
        },
        { title: 'User' },
      ),
    ),
  },
  { title: 'UserResponseList' },
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
      '/application/:applicationId/contributor',
      {
        schema: {
          operationId: 'listApplicationContributor',
          summary: 'List contributors',
          description:
            "The authors of the newest 100 commits of the application's branch, read at its git provider with the repository's git token (as `listApplicationCommit`), " +
            'the most recent first: one per author address (per name when the commit records none). Berth keeps no users for them: `id` is stable for the address, ' +
            '`created_at`/`updated_at` are their oldest and newest commit among those read, `first_name` the first word of the name and `last_name` the rest; ' +
            "`profile_picture_url` is the provider's avatar when it gives one. Provider errors as for `listApplicationCommit`.",
          tags: ['Application Main Calls'],
          params: ApplicationParams,
          response: { 200: UserResponseList },
        },
      },
      async (req) => ({
        results: (await applications.contributors(req.principal, req.params.applicationId)).map((contributor) => ({
          id: contributor.id,
          created_at: contributor.firstCommitAt,
          updated_at: contributor.lastCommitAt,
          first_name: contributor.firstName,
          last_name: contributor.lastName,
          ...(contributor.email ? { email: contributor.email } : {}),
          ...(contributor.avatarUrl ? { profile_picture_url: contributor.avatarUrl } : {}),
        })),
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
