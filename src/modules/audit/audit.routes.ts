import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { EventResponseList, EventsQuery, EventTargetResponseList, EventTargetsQuery } from './audit.schemas.ts'
import type { AuditService } from './audit.service.ts'
import { toEventResponse } from './audit.wire.ts'

const tags = ['Organization Event']

export function auditRoutes(audit: AuditService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/events',
      {
        schema: {
          operationId: 'getOrganizationEvents',
          summary: 'Get all events inside the organization',
          description:
            'Needs the ADMIN role. Every change made through the API, newest first, recorded in the transaction of the change (docs/audit-log.md). ' +
            '`links.next` and `links.previous` carry `continueToken` and `stepBackToken` with the same filters.',
          tags,
          params: OrganizationParams,
          querystring: EventsQuery,
          response: { 200: EventResponseList },
        },
      },
      async (req) => {
        const page = await audit.events(req.principal, req.params.organizationId, req.query)
        return { links: page.links, organization_max_limit_reached: page.maxLimitReached, events: page.rows.map(toEventResponse) }
      },
    )

    app.get(
      '/organization/:organizationId/targets',
      {
        schema: {
          operationId: 'getOrganizationEventTargets',
          summary: 'Get available event targets to filter events',
          description:
            'Needs the ADMIN role. The targets the filtered events name (or their projects or environments with `targetLevelToFetch`), by name; at most BERTH_LIST_LIMIT.',
          tags,
          params: OrganizationParams,
          querystring: EventTargetsQuery,
          response: { 200: EventTargetResponseList },
        },
      },
      async (req) => ({ targets: await audit.targets(req.principal, req.params.organizationId, req.query) }),
    )
  }
}
