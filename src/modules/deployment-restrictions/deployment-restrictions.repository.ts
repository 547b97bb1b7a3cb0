import type { Db } from '#src/platform/db/database.ts'
import { deleteRows } from '#src/platform/db/rows-by-keys.ts'
import type { PathRestriction } from './path-restrictions.ts'

/** A restriction as stored. */
export interface RestrictionRecord extends PathRestriction {
  id: string
  serviceId: string
  createdAt: Date
  updatedAt: Date | null
}

const COLUMNS = ['id', 'serviceId', 'mode', 'type', 'value', 'createdAt', 'updatedAt'] as const

export function createDeploymentRestrictionsRepository(db: Db) {
  return {
    /** The service's restrictions, oldest first. */
    async list(serviceId: string): Promise<RestrictionRecord[]> {
      return db.selectFrom('deploymentRestrictions').select(COLUMNS).where('serviceId', '=', serviceId).orderBy('createdAt').orderBy('id').execute()
    },

    /** The restrictions of each of `serviceIds` that has any. */
    async listOf(serviceIds: readonly string[]): Promise<Map<string, RestrictionRecord[]>> {
      const byService = new Map<string, RestrictionRecord[]>()
      if (serviceIds.length === 0) return byService
      const rows = await db.selectFrom('deploymentRestrictions').select(COLUMNS).where('serviceId', 'in', serviceIds).execute()
      for (const row of rows) byService.set(row.serviceId, [...(byService.get(row.serviceId) ?? []), row])
      return byService
    },

    /**
     * Adds a restriction unless the service holds `limit` already: undefined then. The count and
     * the insert are one statement; two concurrent creates may both pass at the limit, which only
     * bounds the list loosely.
     */
    async create(serviceId: string, restriction: PathRestriction, limit: number): Promise<RestrictionRecord | undefined> {
      return db
        .insertInto('deploymentRestrictions')
        .columns(['serviceId', 'mode', 'type', 'value'])
        .expression((eb) =>
          eb
            .selectFrom('services')
            .select((s) => [
              s.val(serviceId).as('serviceId'),
              s.val(restriction.mode).as('mode'),
              s.val(restriction.type).as('type'),
              s.val(restriction.value).as('value'),
            ])
            .where('id', '=', serviceId)
            .where((w) =>
              w(
                w
                  .selectFrom('deploymentRestrictions')
                  .select((c) => c.fn.countAll().as('n'))
                  .where('serviceId', '=', serviceId),
                '<',
                limit,
              ),
            ),
        )
        .returning(COLUMNS)
        .executeTakeFirst()
    },

    async update(serviceId: string, id: string, restriction: PathRestriction): Promise<RestrictionRecord | undefined> {
      return db
        .updateTable('deploymentRestrictions')
        .set({ mode: restriction.mode, type: restriction.type, value: restriction.value, updatedAt: new Date() })
        .where('serviceId', '=', serviceId)
        .where('id', '=', id)
        .returning(COLUMNS)
        .executeTakeFirst()
    },

    delete(serviceId: string, id: string): Promise<boolean> {
      return deleteRows(db, 'deploymentRestrictions', { serviceId, id })
    },
  }
}

export type DeploymentRestrictionsRepository = ReturnType<typeof createDeploymentRestrictionsRepository>
