import { type Selectable, sql, type Transaction } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database, DeploymentStagesTable } from '#src/platform/db/schema.ts'
import { type ServiceType, STAGE_ORDER, stageName } from '#src/platform/deployment-states.ts'

// An environment's deployment stages, kept numbered 1, 2, 3… in deploy order. Every change of
// order takes the environment's stages locked, so that two moves cannot interleave.

type Queries = Db | Transaction<Database>

export type StageRow = Selectable<DeploymentStagesTable>

/** A stage with the services it holds. */
export interface StageWithServices extends StageRow {
  services: { id: string; kind: ServiceType; skipped: boolean; createdAt: Date; updatedAt: Date }[]
}

const DEFAULT_STAGE = /^([A-Z_]+) DEFAULT$/

/**
 * Locks the environment's stages, in position order, and returns them. An advisory lock on the
 * environment comes before them: row locks alone cannot keep two first services of an environment from
 * both making its default stage.
 */
export async function lockStages(trx: Transaction<Database>, environmentId: string): Promise<StageRow[]> {
  // The environment first, as its delete takes it before its stages and services: no cycle.
  await trx.selectFrom('environments').select('id').where('id', '=', environmentId).forKeyShare().execute()
  await sql`select pg_advisory_xact_lock(hashtextextended(${environmentId}::text, 8))`.execute(trx)
  return trx.selectFrom('deploymentStages').selectAll().where('environmentId', '=', environmentId).orderBy('position').forUpdate().execute()
}

/** Numbers the stages 1, 2, 3… in the order given. */
async function renumber(trx: Transaction<Database>, ordered: { id: string }[]): Promise<void> {
  if (ordered.length === 0) return
  const ids = ordered.map((stage) => stage.id)
  await sql`
    update deployment_stages s set position = o.position, updated_at = now()
    from unnest(${ids}::uuid[]) with ordinality as o(id, position)
    where s.id = o.id and s.position <> o.position`.execute(trx)
}

/**
 * Where a new default stage goes: before the first default stage of a kind that deploys after it
 * (STAGE_ORDER), else last. Environments whose stages nobody moved keep the kinds' usual order.
 */
function defaultStageIndex(stages: StageRow[], kind: ServiceType): number {
  const rank = STAGE_ORDER.indexOf(kind)
  const index = stages.findIndex((stage) => {
    const other = DEFAULT_STAGE.exec(stage.name)?.[1] as ServiceType | undefined
    return other !== undefined && STAGE_ORDER.includes(other) && STAGE_ORDER.indexOf(other) > rank
  })
  return index === -1 ? stages.length : index
}

export function createDeploymentStagesRepository(db: Db) {
  const withStagesLocked = <T>(environmentId: string, work: (trx: Transaction<Database>, stages: StageRow[]) => Promise<T>) =>
    db.transaction().execute(async (trx) => work(trx, await lockStages(trx, environmentId)))

  async function listWithServices(queries: Queries, where: { environmentId: string } | { stageId: string }): Promise<StageWithServices[]> {
    let query = queries
      .selectFrom('deploymentStages as st')
      .selectAll('st')
      .select(
        sql<StageWithServices['services']>`coalesce((
          select json_agg(json_build_object('id', s.id, 'kind', s.kind, 'skipped', s.deployment_skipped, 'createdAt', s.created_at, 'updatedAt', s.updated_at) order by lower(s.name), s.id)
          from services s where s.deployment_stage_id = st.id), '[]')`.as('services'),
      )
    query = 'stageId' in where ? query.where('st.id', '=', where.stageId) : query.where('st.environmentId', '=', where.environmentId)
    const rows = await query.orderBy('st.position').execute()
    return rows.map((row) => ({
      ...row,
      services: row.services.map((service) => ({ ...service, createdAt: new Date(service.createdAt), updatedAt: new Date(service.updatedAt) })),
    }))
  }

  return {
    /** The environment's stages in deploy order, with their services. */
    list: (environmentId: string) => listWithServices(db, { environmentId }),

    /** Looked up by id alone: the caller checks the organization it belongs to. */
    async findById(stageId: string): Promise<StageWithServices | undefined> {
      return (await listWithServices(db, { stageId }))[0]
    },

    /** The stage a service is in. */
    async findByService(serviceId: string): Promise<StageWithServices | undefined> {
      const row = await db.selectFrom('services').select('deploymentStageId').where('id', '=', serviceId).executeTakeFirst()
      return row && (await listWithServices(db, { stageId: row.deploymentStageId }))[0]
    },

    /** Adds a stage after the others, under the environment's lock; undefined, and nothing added, when the environment holds `maxStages` already. */
    async create(
      stage: { organizationId: string; environmentId: string; name: string; description: string | null },
      maxStages: number,
    ): Promise<string | undefined> {
      return withStagesLocked(stage.environmentId, async (trx, stages) => {
        if (stages.length >= maxStages) return undefined
        const { id } = await trx
          .insertInto('deploymentStages')
          .values({ ...stage, position: stages.length + 1 })
          .returning('id')
          .executeTakeFirstOrThrow()
        return id
      })
    },

    /**
     * The stage a new service of `kind` joins, in the transaction that inserts it: the kind's
     * default stage, made when the environment has none of that name.
     */
    async defaultStageId(trx: Transaction<Database>, organizationId: string, environmentId: string, kind: ServiceType): Promise<string> {
      const stages = await lockStages(trx, environmentId)
      const name = stageName(kind)
      const existing = stages.find((stage) => stage.name.toLowerCase() === name.toLowerCase())
      if (existing) return existing.id
      const index = defaultStageIndex(stages, kind)
      // Room at `index`: the stages from there move one place down.
      await renumber(trx, [...stages.slice(0, index), { id: '00000000-0000-0000-0000-000000000000' }, ...stages.slice(index)])
      const { id } = await trx
        .insertInto('deploymentStages')
        .values({ organizationId, environmentId, name, description: null, position: index + 1 })
        .returning('id')
        .executeTakeFirstOrThrow()
      return id
    },

    async update(stageId: string, changes: { name: string; description: string | null }): Promise<boolean> {
      const result = await db
        .updateTable('deploymentStages')
        .set({ ...changes, updatedAt: new Date() })
        .where('id', '=', stageId)
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    /**
     * Moves a stage right before or after another of its environment; false when either is gone
     * or they are in different environments.
     */
    async move(environmentId: string, stageId: string, where: 'before' | 'after', otherId: string): Promise<boolean> {
      return withStagesLocked(environmentId, async (trx, stages) => {
        const moving = stages.find((stage) => stage.id === stageId)
        if (!moving || !stages.some((stage) => stage.id === otherId)) return false
        if (stageId === otherId) return true
        const rest = stages.filter((stage) => stage.id !== stageId)
        const at = rest.findIndex((stage) => stage.id === otherId) + (where === 'after' ? 1 : 0)
        await renumber(trx, [...rest.slice(0, at), moving, ...rest.slice(at)])
        return true
      })
    },

    /** Deletes an empty stage: 'not_empty' while services are in it, 'gone' when it no longer exists. */
    async deleteIfEmpty(environmentId: string, stageId: string): Promise<'deleted' | 'not_empty' | 'gone'> {
      return withStagesLocked(environmentId, async (trx, stages) => {
        if (!stages.some((stage) => stage.id === stageId)) return 'gone'
        // Services joining it meanwhile wait on the stage row lock (their foreign key), then see it gone.
        const used = await trx.selectFrom('services').select('id').where('deploymentStageId', '=', stageId).limit(1).executeTakeFirst()
        if (used) return 'not_empty'
        await trx.deleteFrom('deploymentStages').where('id', '=', stageId).execute()
        await renumber(
          trx,
          stages.filter((stage) => stage.id !== stageId),
        )
        return 'deleted'
      })
    },

    /**
     * Moves a service into a stage of its environment and sets whether environment deployments skip
     * it (a move un-skips it unless `skipped` says otherwise); false when either is gone.
     */
    async attachService(environmentId: string, stageId: string, serviceId: string, skipped: boolean): Promise<boolean> {
      const result = await db
        .updateTable('services')
        .set({ deploymentStageId: stageId, deploymentSkipped: skipped })
        .where('id', '=', serviceId)
        .where('environmentId', '=', environmentId)
        .where((eb) => eb.exists(eb.selectFrom('deploymentStages').select('id').where('id', '=', stageId).where('environmentId', '=', environmentId)))
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },
  }
}

export type DeploymentStagesRepository = ReturnType<typeof createDeploymentStagesRepository>
