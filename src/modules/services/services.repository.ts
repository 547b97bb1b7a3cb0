import { type Expression, type Selectable, sql, type Transaction } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { deleteRows } from '#src/platform/db/rows-by-keys.ts'
import type { Database, ServicesTable } from '#src/platform/db/schema.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import type { CappedList } from '#src/platform/http/lists.ts'
import type { ResolvedReference, ServiceRecord, ServiceReference, ServiceSummary } from './service-kinds.ts'

type Queries = Db | Transaction<Database>

/** The references of a service with the names of what they point at, as one JSON array. */
const referencesOf = (serviceId: Expression<string>) => sql<ResolvedReference[]>`coalesce((
  select json_agg(json_build_object(
    'field', r.field, 'gitTokenId', r.git_token_id, 'helmRepositoryId', r.helm_repository_id,
    'containerRegistryId', r.container_registry_id, 'organizationGroupId', r.organization_group_id,
    'name', coalesce(g.name, h.name, c.name, o.name), 'url', coalesce(h.url, c.url), 'registryKind', c.kind,
    'group', case when o.id is null then null else json_build_object(
      'kind', o.kind, 'entries', o.entries, 'scopes', o.scopes, 'created_at', o.created_at, 'updated_at', o.updated_at) end) order by r.field)
  from service_references r
  left join git_tokens g on g.id = r.git_token_id
  left join helm_repositories h on h.id = r.helm_repository_id
  left join container_registries c on c.id = r.container_registry_id
  left join organization_groups o on o.id = r.organization_group_id
  where r.service_id = ${serviceId}), '[]')`

/** Thrown inside a create's transaction to roll it back when the environment is full. */
const ENVIRONMENT_FULL = new Error('the environment holds the most services it may')

type ServiceRow = Selectable<ServicesTable> & { references: ResolvedReference[] }

const toRecord = (row: ServiceRow): ServiceRecord => ({ ...row, kind: row.kind as ServiceType })

/** Which page of an environment's services to read (see `listPage`). */
export interface ServicePage {
  /** Of one kind only; all kinds when absent. */
  kind?: ServiceType
  /** At most this many services. */
  limit: number
  /** At most this many bytes of stored configurations (`configuration_bytes`), counting the first service whatever its size. */
  maxBytes: number
  /** The services after this one in the list's order; it must be a service of the environment (and of `kind`). */
  after?: string
}

/** The core columns a create sets. */
export interface NewService {
  /** Made by the database when absent. */
  id?: string
  organizationId: string
  environmentId: string
  kind: ServiceType
  name: string
  deploymentStageId: string
  configuration: unknown
  /** Where a push deploys it (push-targets.ts). */
  pushRepository: string | null
  pushBranch: string | null
}

async function writeReferences(trx: Queries, serviceId: string, references: ServiceReference[]): Promise<void> {
  await trx.deleteFrom('serviceReferences').where('serviceId', '=', serviceId).execute()
  await insertReferences(trx, serviceId, references)
}

/** Adds the service's references (to credentials and groups), one row each; a new service's, or after the old ones are deleted. */
export async function insertReferences(trx: Queries, serviceId: string, references: ServiceReference[]): Promise<void> {
  if (references.length === 0) return
  await trx
    .insertInto('serviceReferences')
    .values(
      references.map((reference) => ({
        serviceId,
        field: reference.field,
        gitTokenId: 'gitTokenId' in reference ? reference.gitTokenId : null,
        helmRepositoryId: 'helmRepositoryId' in reference ? reference.helmRepositoryId : null,
        containerRegistryId: 'containerRegistryId' in reference ? reference.containerRegistryId : null,
        organizationGroupId: 'organizationGroupId' in reference ? reference.organizationGroupId : null,
      })),
    )
    .execute()
}

export function createServicesRepository(db: Db) {
  const selectRecords = (queries: Queries = db) =>
    queries
      .selectFrom('services as s')
      .selectAll('s')
      .select((eb) => referencesOf(eb.ref('s.id')).as('references'))

  return {
    /** Looked up by id alone: the caller checks the organization it belongs to. */
    async findById(serviceId: string): Promise<ServiceRecord | undefined> {
      const row = await selectRecords().where('s.id', '=', serviceId).executeTakeFirst()
      return row && toRecord(row)
    },

    /**
     * One page of the environment's services, of one kind or all, by name (then id): the first
     * ones after `page.after` while they are at most `page.limit` and their configurations add up
     * to at most `page.maxBytes`, always at least one. The cut is made in the database from the
     * sizes it keeps, so the services past it are never read. Undefined when `page.after` is not a
     * service of the list.
     */
    async listPage(organizationId: string, environmentId: string, page: ServicePage): Promise<CappedList<ServiceRecord> | undefined> {
      if (page.after !== undefined) {
        let cursor = db.selectFrom('services').select('id').where('id', '=', page.after).where('environmentId', '=', environmentId)
        if (page.kind) cursor = cursor.where('kind', '=', page.kind)
        if (!(await cursor.executeTakeFirst())) return undefined
      }
      const order = sql`order by lower(s.name), s.id`
      let sized = db
        .selectFrom('services as s')
        .select([
          's.id',
          sql<number>`(row_number() over (${order}))::int`.as('n'),
          sql<number>`sum(s.configuration_bytes) over (${order})`.as('running'),
          sql<number>`(count(*) over ())::int`.as('total'),
        ])
        .where('s.organizationId', '=', organizationId)
        .where('s.environmentId', '=', environmentId)
      if (page.kind) sized = sized.where('s.kind', '=', page.kind)
      if (page.after !== undefined)
        sized = sized.where(sql<boolean>`(lower(s.name), s.id) > (select lower(c.name), c.id from services c where c.id = ${page.after})`)
      const rows = await selectRecords()
        .innerJoin(sized.as('o'), 'o.id', 's.id')
        .select('o.total')
        .where('o.n', '<=', page.limit)
        .where((eb) => eb.or([eb('o.n', '=', 1), eb('o.running', '<=', page.maxBytes)]))
        .orderBy('o.n')
        .execute()
      return { rows: rows.map(({ total: _, ...row }) => toRecord(row)), hasMore: (rows[0]?.total ?? 0) > rows.length }
    },

    /** Every service of the environment by name, without configurations: for statuses, which need no more. */
    async listSummaries(organizationId: string, environmentId: string): Promise<ServiceSummary[]> {
      const rows = await db
        .selectFrom('services')
        .select([
          'id',
          'organizationId',
          'environmentId',
          'kind',
          'name',
          'deploymentStageId',
          'deploymentSkipped',
          'version',
          'createdAt',
          'updatedAt',
        ])
        .where('organizationId', '=', organizationId)
        .where('environmentId', '=', environmentId)
        .orderBy((eb) => eb.fn('lower', ['name']))
        .orderBy('id')
        .execute()
      return rows.map((row) => ({ ...row, kind: row.kind as ServiceType }))
    },

    /** Every service of the environment, of one kind or all, by name: for deployments, which need them all. */
    async listByEnvironment(organizationId: string, environmentId: string, kind?: ServiceType): Promise<ServiceRecord[]> {
      let query = selectRecords().where('s.organizationId', '=', organizationId).where('s.environmentId', '=', environmentId)
      if (kind) query = query.where('s.kind', '=', kind)
      const rows = await query
        .orderBy((eb) => eb.fn('lower', ['s.name']))
        .orderBy('s.id')
        .execute()
      return rows.map(toRecord)
    },

    /**
     * Inserts the service and its references in one transaction; `stageId` gives the stage, made
     * when missing, inside it. Undefined, and nothing written, when the environment holds
     * `perEnvironment` services already: `stageId` locks the environment's stages, so creates in
     * one environment count and insert one at a time.
     */
    async insert(
      service: Omit<NewService, 'deploymentStageId'>,
      references: ServiceReference[],
      stageId: (trx: Transaction<Database>) => Promise<string>,
      perEnvironment: number,
    ): Promise<string | undefined> {
      try {
        return await db.transaction().execute(async (trx) => {
          const deploymentStageId = await stageId(trx)
          const { count } = await trx
            .selectFrom('services')
            .select((eb) => eb.fn.countAll<string>().as('count'))
            .where('environmentId', '=', service.environmentId)
            .executeTakeFirstOrThrow()
          // Thrown to roll back a default stage `stageId` may have made.
          if (Number(count) >= perEnvironment) throw ENVIRONMENT_FULL
          const { id } = await trx
            .insertInto('services')
            .values({ ...service, deploymentStageId, configuration: JSON.stringify(service.configuration) })
            .returning('id')
            .executeTakeFirstOrThrow()
          await writeReferences(trx, id, references)
          return id
        })
      } catch (error) {
        if (error === ENVIRONMENT_FULL) return undefined
        throw error
      }
    },

    /**
     * Replaces the service's name, configuration and references, only while its version is
     * `expectedVersion` when one is given. Returns whether the service was changed.
     */
    async update(
      organizationId: string,
      serviceId: string,
      changes: { name: string; configuration: unknown; references: ServiceReference[]; pushRepository: string | null; pushBranch: string | null },
      expectedVersion?: number,
    ): Promise<ServiceRecord | undefined> {
      // The service as written, from the update itself and its references: a PUT reads the row once.
      return db.transaction().execute(async (trx) => {
        let query = trx
          .updateTable('services')
          .set((eb) => ({
            name: changes.name,
            configuration: JSON.stringify(changes.configuration),
            pushRepository: changes.pushRepository,
            pushBranch: changes.pushBranch,
            version: eb('version', '+', 1),
            updatedAt: new Date(),
          }))
          .where('organizationId', '=', organizationId)
          .where('id', '=', serviceId)
        if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion)
        const row = await query.returningAll().executeTakeFirst()
        if (!row) return undefined
        await writeReferences(trx, serviceId, changes.references)
        const { references } = await trx.selectNoFrom(referencesOf(sql.val(serviceId)).as('references')).executeTakeFirstOrThrow()
        return toRecord({ ...row, references })
      })
    },

    /**
     * The organization's services a push to `branch` of `repository` (a `repositoryKey`) deploys:
     * those following that branch, and those following the default branch when `branch` is it.
     * Found by index; only their configurations are read.
     */
    async listPushTargets(organizationId: string, repository: string, branch: string, defaultBranch: string | undefined): Promise<ServiceRecord[]> {
      const rows = await selectRecords()
        .where('s.organizationId', '=', organizationId)
        .where('s.pushRepository', '=', repository)
        .where((eb) =>
          defaultBranch === branch ? eb.or([eb('s.pushBranch', '=', branch), eb('s.pushBranch', 'is', null)]) : eb('s.pushBranch', '=', branch),
        )
        .orderBy('s.environmentId')
        .orderBy((eb) => eb.fn('lower', ['s.name']))
        .orderBy('s.id')
        .execute()
      return rows.map(toRecord)
    },

    delete(organizationId: string, serviceId: string): Promise<boolean> {
      return deleteRows(db, 'services', { organizationId, id: serviceId })
    },

    /** Deletes the services a successful DELETE deployment removed, in its transaction. */
    async deleteMany(queries: Queries, serviceIds: string[]): Promise<void> {
      if (serviceIds.length === 0) return
      await queries.deleteFrom('services').where('id', 'in', serviceIds).execute()
    },
  }
}

export type ServicesRepository = ReturnType<typeof createServicesRepository>
