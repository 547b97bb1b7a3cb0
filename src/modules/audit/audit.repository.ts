import { type ExpressionBuilder, type Selectable, sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { AuditEventsTable, Database } from '#src/platform/db/schema.ts'

export type AuditEventRow = Selectable<AuditEventsTable>

/** What a page or a list of targets is narrowed to; every field optional. */
export interface AuditFilters {
  from?: Date
  to?: Date
  eventType?: string
  targetType?: string
  targetId?: string
  subTargetType?: string
  triggeredBy?: string
  origin?: string
  projectId?: string
  environmentId?: string
}

/** Which page: the newest, older than `before`, or newer than `after` (sequence numbers). */
export type PagePosition = { before?: bigint; after?: bigint }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function filtered(eb: ExpressionBuilder<Database, 'auditEvents'>, organizationId: string, f: AuditFilters) {
  const conditions = [eb('organizationId', '=', organizationId)]
  if (f.from) conditions.push(eb('createdAt', '>=', f.from))
  if (f.to) conditions.push(eb('createdAt', '<', f.to))
  if (f.eventType) conditions.push(eb('eventType', '=', f.eventType))
  if (f.targetType) conditions.push(eb('targetType', '=', f.targetType))
  if (f.targetId) conditions.push(eb('targetId', '=', f.targetId))
  if (f.subTargetType) conditions.push(eb('subTargetType', '=', f.subTargetType))
  if (f.origin) conditions.push(eb('origin', '=', f.origin))
  if (f.projectId) conditions.push(eb('projectId', '=', f.projectId))
  if (f.environmentId) conditions.push(eb('environmentId', '=', f.environmentId))
  if (f.triggeredBy) {
    // A name or an id: `triggered_by` shows names, and two tokens may share one.
    const by = f.triggeredBy
    conditions.push(UUID.test(by) ? eb.or([eb('triggeredById', '=', by), eb('triggeredBy', '=', by)]) : eb('triggeredBy', '=', by))
  }
  return eb.and(conditions)
}

/** The audit log: read only. Rows are written by the database's triggers (migration 0050) and pruned by age. */
export function createAuditRepository(db: Db) {
  return {
    /**
     * One page, newest first, and whether more events lie beyond each of its ends (one more row is
     * read on the side the page moves to; the other side is known from the position asked for).
     */
    async page(organizationId: string, filters: AuditFilters, position: PagePosition, size: number) {
      const backwards = position.after !== undefined
      let query = db
        .selectFrom('auditEvents')
        .selectAll()
        .where((eb) => filtered(eb, organizationId, filters))
      if (position.before !== undefined) query = query.where('seq', '<', String(position.before))
      if (position.after !== undefined) query = query.where('seq', '>', String(position.after))
      const rows = await query
        .orderBy('seq', backwards ? 'asc' : 'desc')
        .limit(size + 1)
        .execute()
      const more = rows.length > size
      const page = rows.slice(0, size)
      if (backwards) page.reverse()
      return {
        rows: page,
        olderExist: backwards ? true : more,
        newerExist: backwards ? more : position.before !== undefined,
      }
    },

    /** The distinct targets (or their projects or environments) the filtered events name, by name. */
    async targets(organizationId: string, filters: AuditFilters, level: 'TARGET' | 'PROJECT' | 'ENVIRONMENT', limit: number) {
      const [id, name] =
        level === 'PROJECT'
          ? (['projectId', 'projectName'] as const)
          : level === 'ENVIRONMENT'
            ? (['environmentId', 'environmentName'] as const)
            : (['targetId', 'targetName'] as const)
      // The name each one had most recently.
      const rows = await db
        .selectFrom('auditEvents')
        .select([sql<string>`${sql.ref(id)}`.as('id'), sql<string>`(array_agg(${sql.ref(name)} order by seq desc))[1]`.as('name')])
        .where((eb) => filtered(eb, organizationId, filters))
        .where(id, 'is not', null)
        .groupBy(id)
        .orderBy('name')
        .limit(limit)
        .execute()
      return rows
    },

    /** Deletes the events older than `before`, a batch at a time; how many went. */
    async prune(before: Date, batch = 10_000): Promise<number> {
      const result = await sql`
        delete from audit_events where id in (select id from audit_events where created_at < ${before} limit ${batch})
      `.execute(db)
      return Number(result.numAffectedRows ?? 0n)
    },
  }
}

export type AuditRepository = ReturnType<typeof createAuditRepository>
