import { type ExpressionBuilder, type SelectQueryBuilder, sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'
import type { DeploymentRun } from './deployment-progress.ts'
import { reachedOrPending, toRun } from './deployment-runs.repository.ts'
import { type State, UNFINISHED } from './deployment-states.ts'

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

type Keyset = { createdAt: Date; id: string }

function applyFilters<DB extends Database, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  filters: HistoryFilters,
  column: (name: 'status' | 'triggerAction' | 'origin' | 'createdAt') => string,
): SelectQueryBuilder<DB, TB, O> {
  let q = query
  const where = (name: 'status' | 'triggerAction' | 'origin' | 'createdAt', op: '=' | '>=' | '<', value: unknown) => {
    q = q.where(sql.ref(column(name)), op, value) as typeof q
  }
  if (filters.status !== undefined) where('status', '=', filters.status)
  if (filters.triggerAction !== undefined) where('triggerAction', '=', filters.triggerAction)
  if (filters.origin !== undefined) where('origin', '=', filters.origin)
  if (filters.from !== undefined) where('createdAt', '>=', filters.from)
  if (filters.to !== undefined) where('createdAt', '<', filters.to)
  return q
}

const before = (keyset: Keyset, createdAt: string, id: string) => (eb: ExpressionBuilder<Database, never>) =>
  eb(eb.refTuple(sql.ref(createdAt) as never, sql.ref(id) as never), '<', eb.tuple(keyset.createdAt as never, keyset.id as never))

export function createDeploymentHistoryRepository(db: Db) {
  return {
    /** A page of the environment's history. */
    async environmentPage(environmentId: string, query: HistoryPageQuery): Promise<StoredPage | undefined> {
      let start: (Keyset & { seq: string; latestSeq: string }) | undefined
      if (query.startId !== undefined) {
        start = await db
          .selectFrom('deploymentRequests as r')
          .innerJoin('environments as e', 'e.id', 'r.environmentId')
          .select(['r.createdAt', 'r.id', 'r.seq', 'e.deploymentSeq as latestSeq'])
          .where('r.id', '=', query.startId)
          .where('r.environmentId', '=', environmentId)
          .executeTakeFirst()
        if (!start) return undefined
      }
      const column = (name: string) => `r.${name}`
      let rows = db.selectFrom('deploymentRequests as r').select(['r.id', 'r.entryJson']).where('r.environmentId', '=', environmentId)
      if (start) rows = rows.where(before(start, 'r.createdAt', 'r.id') as never)
      rows = applyFilters(rows, query.filters, column)
      const found = await rows
        .orderBy('r.createdAt', 'desc')
        .orderBy('r.id', 'desc')
        .limit(query.pageSize + 1)
        .execute()

      let count = 0
      if (start && !hasFilters(query.filters)) {
        // Runs are numbered 1, 2, 3… in creation order and never deleted one by one.
        count = Number(start.latestSeq) - Number(start.seq) + 1
      } else if (start) {
        const counted = applyFilters(
          db
            .selectFrom('deploymentRequests as r')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('r.environmentId', '=', environmentId),
          query.filters,
          column,
        ).where((eb) => eb.not(before(start, 'r.createdAt', 'r.id')(eb as never)))
        count = Number((await counted.executeTakeFirstOrThrow()).n)
      }
      return toPage(found, query.pageSize, count, (row) => row.id)
    },

    /** A page of one service's history. */
    async servicePage(serviceId: string, query: HistoryPageQuery): Promise<StoredPage | undefined> {
      let start: Keyset | undefined
      if (query.startId !== undefined) {
        const found = await db
          .selectFrom('serviceDeployments')
          .select(['createdAt', 'executionId as id'])
          .where('serviceId', '=', serviceId)
          .where('executionId', '=', query.startId)
          .executeTakeFirst()
        if (!found) return undefined
        start = found
      }
      const column = (name: string) => `s.${name}`
      let rows = db.selectFrom('serviceDeployments as s').select(['s.executionId', 's.entryJson']).where('s.serviceId', '=', serviceId)
      if (start) rows = rows.where(before(start, 's.createdAt', 's.executionId') as never)
      rows = applyFilters(rows, query.filters, column)
      const found = await rows
        .orderBy('s.createdAt', 'desc')
        .orderBy('s.executionId', 'desc')
        .limit(query.pageSize + 1)
        .execute()
      let count = 0
      if (start) {
        const counted = applyFilters(
          db
            .selectFrom('serviceDeployments as s')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('s.serviceId', '=', serviceId),
          query.filters,
          column,
        ).where((eb) => eb.not(before(start, 's.createdAt', 's.executionId')(eb as never)))
        count = Number((await counted.executeTakeFirstOrThrow()).n)
      }
      return toPage(found, query.pageSize, count, (row) => row.executionId)
    },

    /** What an environment status needs: its newest run, the run it is busy with, and how many wait. */
    async environmentRuns(environmentId: string): Promise<{ latest?: DeploymentRun; current?: DeploymentRun; unfinished: number }> {
      const [latest, current, counted] = await Promise.all([
        db.selectFrom('deploymentRequests').selectAll().where('environmentId', '=', environmentId).orderBy('seq', 'desc').limit(1).executeTakeFirst(),
        db
          .selectFrom('deploymentRequests')
          .selectAll()
          .where('environmentId', '=', environmentId)
          .where('actionStatus', 'in', UNFINISHED)
          .orderBy('seq')
          .limit(1)
          .executeTakeFirst(),
        db
          .selectFrom('deploymentRequests')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('environmentId', '=', environmentId)
          .where('actionStatus', 'in', UNFINISHED)
          .executeTakeFirstOrThrow(),
      ])
      return { latest: latest && toRun(latest), current: current && toRun(current), unfinished: Number(counted.n) }
    },

    /** A service's latest entry that reached it or still may, with the run it belongs to. */
    async latestServiceEntry(
      serviceId: string,
    ): Promise<{ status: State; actionStatus: string; executionId: string; createdAt: Date; entryJson: string } | undefined> {
      const row = await db
        .selectFrom('serviceDeployments')
        .select(['status', 'actionStatus', 'executionId', 'createdAt', 'entryJson'])
        .where('serviceId', '=', serviceId)
        .where(reachedOrPending)
        .orderBy('createdAt', 'desc')
        .orderBy('executionId', 'desc')
        .limit(1)
        .executeTakeFirst()
      return row && { ...row, status: row.status as State }
    },

    /** The version each service last deployed successfully (deploy or restart); services never deployed are absent. */
    async deployedVersions(serviceIds: string[]): Promise<Map<string, number | null>> {
      if (serviceIds.length === 0) return new Map()
      const rows = await db
        .selectFrom('serviceDeployments')
        .distinctOn('serviceId')
        .select(['serviceId', 'serviceVersion'])
        .where('serviceId', 'in', serviceIds)
        .where('actionStatus', '=', 'SUCCESS')
        .where('triggerAction', 'in', ['DEPLOY', 'RESTART'])
        .orderBy('serviceId')
        .orderBy('createdAt', 'desc')
        .orderBy('executionId', 'desc')
        .execute()
      return new Map(rows.map((row) => [row.serviceId, row.serviceVersion]))
    },

    /** How many unfinished runs of the environment include the service. */
    async unfinishedWithService(environmentId: string, serviceId: string): Promise<number> {
      const { n } = await db
        .selectFrom('serviceDeployments as s')
        .innerJoin('deploymentRequests as r', 'r.id', 's.executionId')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('r.environmentId', '=', environmentId)
        .where('r.actionStatus', 'in', UNFINISHED)
        .where('s.serviceId', '=', serviceId)
        .executeTakeFirstOrThrow()
      return Number(n)
    },

    /** Whether the service takes part in the environment's newest run. */
    async inRun(executionId: string, serviceId: string): Promise<boolean> {
      const row = await db
        .selectFrom('serviceDeployments')
        .select('serviceId')
        .where('executionId', '=', executionId)
        .where('serviceId', '=', serviceId)
        .executeTakeFirst()
      return row !== undefined
    },
  }
}

function toPage<Row extends { entryJson: string }>(rows: Row[], pageSize: number, before: number, idOf: (row: Row) => string): StoredPage {
  const hasMore = rows.length > pageSize
  const page = hasMore ? rows.slice(0, pageSize) : rows
  return { entries: page.map((row) => row.entryJson), before, hasMore, lastId: page.length ? idOf(page[page.length - 1]!) : null }
}

export type DeploymentHistoryRepository = ReturnType<typeof createDeploymentHistoryRepository>
