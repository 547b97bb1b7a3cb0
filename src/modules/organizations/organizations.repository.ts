import { type Insertable, type Selectable, sql, type Updateable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { OrganizationsTable } from '#src/platform/db/schema.ts'

export type OrganizationRow = Selectable<OrganizationsTable>
export type NewOrganization = Insertable<OrganizationsTable>
export type OrganizationChanges = Updateable<OrganizationsTable>

export function createOrganizationsRepository(db: Db) {
  return {
    findById(organizationId: string): Promise<OrganizationRow | undefined> {
      return db.selectFrom('organizations').selectAll().where('id', '=', organizationId).executeTakeFirst()
    },

    findByName(name: string): Promise<OrganizationRow | undefined> {
      return db
        .selectFrom('organizations')
        .selectAll()
        .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
        .executeTakeFirst()
    },

    /** The organizations an API token may act in: its own and those it created. */
    listForApiToken(apiTokenId: string, homeOrganizationId: string): Promise<OrganizationRow[]> {
      return db
        .selectFrom('organizations')
        .selectAll()
        .where((eb) => eb.or([eb('id', '=', homeOrganizationId), eb('creatorApiTokenId', '=', apiTokenId)]))
        .orderBy('createdAt')
        .orderBy('id')
        .execute()
    },

    insert(values: NewOrganization): Promise<OrganizationRow> {
      return db.insertInto('organizations').values(values).returningAll().executeTakeFirstOrThrow()
    },

    /** Inserts unless an organization of that name exists; returns the one that now exists. */
    async insertOrFind(values: NewOrganization): Promise<OrganizationRow> {
      const inserted = await db
        .insertInto('organizations')
        .values(values)
        .onConflict((oc) => oc.expression(sql`lower(name)`).doNothing())
        .returningAll()
        .executeTakeFirst()
      return inserted ?? (await this.findByName(values.name))!
    },

    update(organizationId: string, changes: OrganizationChanges): Promise<OrganizationRow | undefined> {
      return db
        .updateTable('organizations')
        .set({ ...changes, updatedAt: new Date() })
        .where('id', '=', organizationId)
        .returningAll()
        .executeTakeFirst()
    },

    async delete(organizationId: string): Promise<boolean> {
      const result = await db.deleteFrom('organizations').where('id', '=', organizationId).executeTakeFirst()
      return result.numDeletedRows > 0n
    },
  }
}

export type OrganizationsRepository = ReturnType<typeof createOrganizationsRepository>
