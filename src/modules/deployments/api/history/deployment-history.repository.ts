import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { UNFINISHED } from '#src/platform/deployment-states.ts'
import type { DeploymentRun } from '../../queue/deployment-progress.ts'
import { DRY_RUN, finishedStates, latestServiceEntries, toRun } from '../../queue/deployment-rows.ts'
import type { EnvironmentVersion } from './history-versions.ts'

// Reading what deployments did: history pages, made of the stored entries, and statuses.

/** The extension filters of a history listing; all optional. */
export interface HistoryFilters {
  status?: string | undefined
  triggerAction?: string | undefined
  origin?: string | undefined
  /** Entries created at or after this instant. */
  from?: Date | undefined
  /** Entries created before this instant. */
  to?: Date | undefined
}

export interface HistoryPageQuery {
  pageSize: number
  /** The execution id of the last entry the client has; the page holds the entries after it. */
  startId?: string | undefined
  filters: HistoryFilters
}

/** Entries newest first, as stored JSON texts; undefined when startId names no entry of this history. */
export interface StoredPage {
  entries: string[]
  /** How many entries of the listing come before this page. */
  before: number
  hasMore: boolean
  lastId: string | null
}

const hasFilters = (filters: HistoryFilters) => Object.values(filters).some((value) => value !== undefined)

/** A history: a table of stored entries, whose owner (environment, service) and key columns differ. */
interface Listing {
  table: 'deployment_requests' | 'service_deployments'
  owner: 'environment_id' | 'service_id'
  id: 'id' | 'execution_id'
  /**
   * Finds the `startId` entry: its creation time (as text, every digit kept) and, when the listing
   * can tell without counting, how many entries of the unfiltered listing come up to it.
   */
  start(db: Db, ownerId: string, startId: string): Promise<{ at: string; upTo: number | null } | undefined>
}

const ENVIRONMENT_HISTORY: Listing = {
  table: 'deployment_requests',
  owner: 'environment_id',
  id: 'id',
  // Runs are numbered 1, 2, 3… in creation order and never deleted one by one.
  async start(db, environmentId, startId) {
    const { rows } = await sql<{ at: string; upTo: string }>`
      select r.created_at::text as at, e.deployment_seq - r.seq + 1 as "upTo"
      from deployment_requests r join environments e on e.id = r.environment_id
      where r.id = ${startId} and r.environment_id = ${environmentId}`.execute(db)
    return rows[0] && { at: rows[0].at, upTo: Number(rows[0].upTo) }
  },
}

const SERVICE_HISTORY: Listing = {
  table: 'service_deployments',
  owner: 'service_id',
  id: 'execution_id',
  async start(db, serviceId, startId) {
    const { rows } = await sql<{ at: string }>`
      select created_at::text as at from service_deployments where service_id = ${serviceId} and execution_id = ${startId}`.execute(db)
    return rows[0] && { at: rows[0].at, upTo: null }
  },
}

/** The listing's conditions: its owner, then the extension filters. */
function conditions(listing: Listing, ownerId: string, filters: HistoryFilters) {
  const where = [sql`${sql.ref(listing.owner)} = ${ownerId}`]
  if (filters.status !== undefined) where.push(sql`status = ${filters.status}`)
  if (filters.triggerAction !== undefined) where.push(sql`trigger_action = ${filters.triggerAction}`)
  if (filters.origin !== undefined) where.push(sql`origin = ${filters.origin}`)
  if (filters.from !== undefined) where.push(sql`created_at >= ${filters.from}`)
  if (filters.to !== undefined) where.push(sql`created_at < ${filters.to}`)
  return where
}

/**
 * One page of a history, newest first on the keyset (created_at, id): the entries after the one
 * `startId` names. Unfiltered environment pages take two indexed queries at any depth; others
 * count the entries before the page.
 */
async function keysetPage(db: Db, listing: Listing, ownerId: string, query: HistoryPageQuery): Promise<StoredPage | undefined> {
  const table = sql.table(listing.table)
  const id = sql.ref(listing.id)
  const where = conditions(listing, ownerId, query.filters)
  let before = 0
  if (query.startId !== undefined) {
    const start = await listing.start(db, ownerId, query.startId)
    if (!start) return undefined
    const keyset = sql`(${start.at}::timestamptz, ${query.startId}::uuid)`
    if (start.upTo !== null && !hasFilters(query.filters)) before = start.upTo
    else {
      const { rows } = await sql<{ n: string }>`
        select count(*) as n from ${table} where ${sql.join(where, sql` and `)} and (created_at, ${id}) >= ${keyset}`.execute(db)
      before = Number(rows[0]!.n)
    }
    where.push(sql`(created_at, ${id}) < ${keyset}`)
  }
  const { rows } = await sql<{ key: string; entry: string }>`
    select ${id} as key, entry_json as entry from ${table}
    where ${sql.join(where, sql` and `)}
    order by created_at desc, ${id} desc
    limit ${query.pageSize + 1}`.execute(db)
  const hasMore = rows.length > query.pageSize
  const page = hasMore ? rows.slice(0, query.pageSize) : rows
  return { entries: page.map((row) => row.entry), before, hasMore, lastId: page.at(-1)?.key ?? null }
}

export function createDeploymentHistoryRepository(db: Db) {
  return {
    /** A page of the environment's history. */
    environmentPage: (environmentId: string, query: HistoryPageQuery) => keysetPage(db, ENVIRONMENT_HISTORY, environmentId, query),

    /**
     * The environment's organization and project, and the version of its history, which changes
     * whenever anything in it does ('0' before its first run): one lookup, which a process
     * remembers while it hears of changes (history-versions.ts).
     */
    async environmentVersion(environmentId: string): Promise<EnvironmentVersion | undefined> {
      return db
        .selectFrom('environments as e')
        .leftJoin('environmentHistoryVersions as v', 'v.environmentId', 'e.id')
        .select(['e.organizationId', 'e.projectId', (eb) => eb.fn.coalesce('v.version', sql<string>`0`).as('version')])
        .where('e.id', '=', environmentId)
        .executeTakeFirst()
    },

    /** A page of one service's history. */
    servicePage: (serviceId: string, query: HistoryPageQuery) => keysetPage(db, SERVICE_HISTORY, serviceId, query),

    /** What an environment status needs: its newest run but dry runs (which change nothing), and the run it is busy with. */
    async environmentRuns(environmentId: string): Promise<{ latest?: DeploymentRun; current?: DeploymentRun }> {
      const runs = db.selectFrom('deploymentRequests').selectAll().where('environmentId', '=', environmentId)
      const [latest, current] = await Promise.all([
        runs.where('triggerAction', '!=', DRY_RUN).orderBy('seq', 'desc').limit(1).executeTakeFirst(),
        runs.where('actionStatus', 'in', UNFINISHED).orderBy('seq').limit(1).executeTakeFirst(),
      ])
      return { latest: latest && toRun(latest), current: current && toRun(current) }
    },

    /** Each service's state, from the finished deployments that reached it (services none reached are absent). */
    serviceStates: (serviceIds: string[]) => finishedStates(db, serviceIds),

    /** Each service's latest entry that tells its state, with the run it belongs to (services with none are absent). */
    latestServiceEntries: (serviceIds: string[]) => latestServiceEntries(db, serviceIds),

    /**
     * For each service, whether what its last successful deploy (or redeploy) deployed is what it
     * is configured as now: its snapshot's name, configuration and variables (by the fingerprint of
     * the variable rows it saw) against the service's, and the version a deploy request named (an
     * image tag, a chart version) against the configured one. Services never deployed are absent.
     */
    async deployedAsConfigured(serviceIds: string[]): Promise<Map<string, boolean>> {
      if (serviceIds.length === 0) return new Map()
      const { rows } = await sql<{ serviceId: string; current: boolean }>`
        select s.id as "serviceId",
          coalesce(snap.name = s.name and snap.configuration = s.configuration
            and snap.variables_fingerprint = berth_service_variables_fingerprint(s.id)
            -- A version a deploy request named (a container's or job's image_tag, a chart_version)
            -- runs instead of the configured one: what runs differs from the configuration (issue 42).
            and coalesce(nullif(snap.overrides->>'imageTag', '') = coalesce(s.configuration->>'tag', s.configuration#>>'{source,image,tag}'), true)
            and coalesce(snap.overrides->>'chartVersion' = s.configuration#>>'{source,helmRepository,chartVersion}', true), false) as current
        from services s
        join lateral (
          select d.execution_id from service_deployments d
          where d.service_id = s.id and d.action_status = 'SUCCESS' and d.trigger_action in ('DEPLOY', 'RESTART')
          order by d.created_at desc, d.execution_id desc limit 1
        ) last on true
        left join deployment_snapshots snap on snap.execution_id = last.execution_id and snap.service_id = s.id
        where s.id = any(${serviceIds}::uuid[])`.execute(db)
      return new Map(rows.map((row) => [row.serviceId, row.current]))
    },

    /**
     * For each service, what its last successful deploy or redeploy added to its configuration (its
     * snapshot's overrides, such as the commit it built); services never deployed are absent.
     */
    async deployedOverrides(serviceIds: string[]): Promise<Map<string, Record<string, unknown>>> {
      if (serviceIds.length === 0) return new Map()
      const { rows } = await sql<{ serviceId: string; overrides: Record<string, unknown> }>`
        select ids.id as "serviceId", snap.overrides
        from unnest(${serviceIds}::uuid[]) as ids(id)
        join lateral (
          select d.execution_id from service_deployments d
          where d.service_id = ids.id and d.action_status = 'SUCCESS' and d.trigger_action in ('DEPLOY', 'RESTART')
          order by d.created_at desc, d.execution_id desc limit 1
        ) last on true
        join deployment_snapshots snap on snap.execution_id = last.execution_id and snap.service_id = ids.id`.execute(db)
      return new Map(rows.map((row) => [row.serviceId, row.overrides]))
    },

    /** For each service, the unfinished runs of the environment that include it, oldest first (services with none are absent). */
    async unfinishedWithServices(environmentId: string, serviceIds: string[]): Promise<Map<string, string[]>> {
      const byService = new Map<string, string[]>()
      if (serviceIds.length === 0) return byService
      const rows = await db
        .selectFrom('serviceDeployments as s')
        .innerJoin('deploymentRequests as r', 'r.id', 's.executionId')
        .select(['s.serviceId', 'r.id'])
        .where('r.environmentId', '=', environmentId)
        .where('r.actionStatus', 'in', UNFINISHED)
        .where('s.serviceId', 'in', serviceIds)
        .orderBy('r.seq')
        .execute()
      for (const row of rows) byService.set(row.serviceId, [...(byService.get(row.serviceId) ?? []), row.id])
      return byService
    },

    /** The environment's first `limit` runs queued or running, oldest first; with `serviceId`, only those that include that service. */
    async unfinishedRuns(environmentId: string, limit: number, serviceId?: string): Promise<DeploymentRun[]> {
      let query = db
        .selectFrom('deploymentRequests as r')
        .selectAll('r')
        .where('r.environmentId', '=', environmentId)
        .where('r.actionStatus', 'in', UNFINISHED)
      if (serviceId !== undefined) {
        query = query.where(({ exists, selectFrom }) =>
          exists(
            selectFrom('serviceDeployments as s').select('s.serviceId').whereRef('s.executionId', '=', 'r.id').where('s.serviceId', '=', serviceId),
          ),
        )
      }
      const rows = await query.orderBy('r.seq').limit(limit).execute()
      return rows.map(toRun)
    },

    /** A run by its id alone: the caller checks the organization it belongs to. */
    async findRun(executionId: string): Promise<DeploymentRun | undefined> {
      const row = await db.selectFrom('deploymentRequests').selectAll().where('id', '=', executionId).executeTakeFirst()
      return row && toRun(row)
    },

    /** Whether a deploy (or redeploy) of the environment ever succeeded. */
    async hasDeployed(environmentId: string): Promise<boolean> {
      const row = await db
        .selectFrom('deploymentRequests')
        .select('id')
        .where('environmentId', '=', environmentId)
        .where('actionStatus', '=', 'SUCCESS')
        .where('triggerAction', 'in', ['DEPLOY', 'RESTART'])
        .limit(1)
        .executeTakeFirst()
      return row !== undefined
    },
  }
}

export type DeploymentHistoryRepository = ReturnType<typeof createDeploymentHistoryRepository>
