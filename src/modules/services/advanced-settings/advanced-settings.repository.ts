import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { AdvancedSettings } from './advanced-settings.schemas.ts'

// A service's advanced settings as stored: the keys that differ from its kind's defaults.

export function createAdvancedSettingsRepository(db: Db) {
  return {
    /** The stored keys of the service; an empty object when it was never given any. */
    async find(serviceId: string): Promise<AdvancedSettings> {
      const row = await db.selectFrom('serviceAdvancedSettings').select('settings').where('serviceId', '=', serviceId).executeTakeFirst()
      return row?.settings ?? {}
    },

    /** The stored keys of each of the services that has any. */
    async findMany(serviceIds: string[]): Promise<Map<string, AdvancedSettings>> {
      if (serviceIds.length === 0) return new Map()
      const rows = await db.selectFrom('serviceAdvancedSettings').select(['serviceId', 'settings']).where('serviceId', 'in', serviceIds).execute()
      return new Map(rows.map((row) => [row.serviceId, row.settings]))
    },

    /**
     * Sets the keys of `set` and removes the keys of `reset`, in one statement, so that two edits
     * of different keys at once both hold.
     */
    async merge(serviceId: string, set: AdvancedSettings, reset: string[]): Promise<void> {
      const settings = JSON.stringify(set)
      await db
        .insertInto('serviceAdvancedSettings')
        .values({ serviceId, settings })
        .onConflict((conflict) =>
          conflict.column('serviceId').doUpdateSet({
            settings: sql<string>`(service_advanced_settings.settings || excluded.settings) - ${sql.val(reset)}::text[]`,
            updatedAt: new Date(),
          }),
        )
        .execute()
    },
  }
}

export type AdvancedSettingsRepository = ReturnType<typeof createAdvancedSettingsRepository>
