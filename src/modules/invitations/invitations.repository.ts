import type { Selectable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { deleteRows } from '#src/platform/db/rows-by-keys.ts'
import type { MemberInvitationsTable } from '#src/platform/db/schema.ts'

export type InvitationRow = Selectable<MemberInvitationsTable>

export function createInvitationsRepository(db: Db) {
  return {
    list(organizationId: string, limit: number): Promise<InvitationRow[]> {
      return db
        .selectFrom('memberInvitations')
        .selectAll()
        .where('organizationId', '=', organizationId)
        .orderBy('createdAt')
        .orderBy('id')
        .limit(limit)
        .execute()
    },

    findById(organizationId: string, invitationId: string): Promise<InvitationRow | undefined> {
      return db
        .selectFrom('memberInvitations')
        .selectAll()
        .where('organizationId', '=', organizationId)
        .where('id', '=', invitationId)
        .executeTakeFirst()
    },

    insert(values: { organizationId: string; email: string; role: string; customRoleId: string | null; inviter: string }): Promise<InvitationRow> {
      return db.insertInto('memberInvitations').values(values).returningAll().executeTakeFirstOrThrow()
    },

    delete(organizationId: string, invitationId: string): Promise<boolean> {
      return deleteRows(db, 'memberInvitations', { organizationId, id: invitationId })
    },
  }
}

export type InvitationsRepository = ReturnType<typeof createInvitationsRepository>
