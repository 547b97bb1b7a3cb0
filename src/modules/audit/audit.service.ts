import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { validationFailed } from '#src/platform/http/errors.ts'
import type { AuditFilters, AuditRepository } from './audit.repository.ts'
import type { EventsQuery, EventTargetsQuery } from './audit.schemas.ts'

interface Deps {
  repo: AuditRepository
  organizations: OrganizationsService
  /** BERTH_AUDIT_RETENTION_DAYS: older events are pruned. */
  retentionDays: number
  /** The most targets one answer lists. */
  listLimit: number
}

const DAY_MS = 86_400_000

/** A query's time: an RFC 3339 date-time, or nanoseconds since 1970 (milliseconds when 15 digits or fewer). */
function parseTimestamp(text: string | undefined, name: string): Date | undefined {
  if (text === undefined || text === '') return undefined
  const ms = /^\d+$/.test(text) ? (text.length > 15 ? Number(BigInt(text) / 1_000_000n) : Number(text)) : Date.parse(text)
  if (!Number.isFinite(ms) || ms > 8.64e15)
    throw validationFailed([{ path: `/${name}`, message: 'must be an RFC 3339 date-time or a count of nanoseconds since 1970', location: 'query' }])
  return new Date(ms)
}

function filtersOf(query: EventsQuery & EventTargetsQuery): AuditFilters {
  return {
    from: parseTimestamp(query.fromTimestamp, 'fromTimestamp'),
    to: parseTimestamp(query.toTimestamp, 'toTimestamp'),
    eventType: query.eventType,
    targetType: query.targetType,
    targetId: query.targetId,
    subTargetType: query.subTargetType,
    triggeredBy: query.triggeredBy,
    origin: query.origin,
    projectId: query.serviceProjectId ?? query.projectId,
    environmentId: query.serviceEnvironmentId ?? query.environmentId,
  }
}

/** The same query with another position: what `links` point at. */
function linkTo(organizationId: string, query: EventsQuery, token: { continueToken: string } | { stepBackToken: string }): string {
  const { continueToken: _next, stepBackToken: _previous, ...kept } = query
  const params = new URLSearchParams(Object.entries({ ...kept, ...token }).map(([key, value]): [string, string] => [key, String(value)]))
  return `/organization/${organizationId}/events?${params}`
}

/**
 * The organization's audit log: ADMINs read it; nobody changes it through the API. Events are
 * written by the database as changes are made (migration 0050).
 */
export function createAuditService({ repo, organizations, retentionDays, listLimit }: Deps) {
  return {
    async events(principal: Principal, organizationId: string, query: EventsQuery) {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      if (query.continueToken !== undefined && query.stepBackToken !== undefined) {
        throw validationFailed([{ path: '/stepBackToken', message: 'cannot be given with continueToken', location: 'query' }])
      }
      const filters = filtersOf(query)
      const position = {
        ...(query.continueToken === undefined ? {} : { before: BigInt(query.continueToken) }),
        ...(query.stepBackToken === undefined ? {} : { after: BigInt(query.stepBackToken) }),
      }
      const page = await repo.page(organizationId, filters, position, query.pageSize ?? 10)
      const first = page.rows[0]
      const last = page.rows.at(-1)
      const horizon = Date.now() - retentionDays * DAY_MS
      return {
        rows: page.rows,
        links: {
          ...(page.newerExist && first ? { previous: linkTo(organizationId, query, { stepBackToken: first.seq }) } : {}),
          ...(page.olderExist && last ? { next: linkTo(organizationId, query, { continueToken: last.seq }) } : {}),
        },
        maxLimitReached: filters.from !== undefined && filters.from.getTime() < horizon,
      }
    },

    async targets(principal: Principal, organizationId: string, query: EventTargetsQuery) {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      return repo.targets(organizationId, filtersOf(query), query.targetLevelToFetch ?? 'TARGET', listLimit)
    },
  }
}

export type AuditService = ReturnType<typeof createAuditService>
