import type { Insertable, Selectable, Updateable } from 'kysely'
import type { OrganizationsTable } from '#src/platform/db/schema.ts'

// The organizations table's row, as read, inserted and edited.

export type OrganizationRow = Selectable<OrganizationsTable>
export type NewOrganization = Insertable<OrganizationsTable>
export type OrganizationChanges = Updateable<OrganizationsTable>
