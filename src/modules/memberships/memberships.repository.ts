import type { Db } from '#src/platform/db/database.ts'
import { hasRow } from '#src/platform/db/rows-by-keys.ts'

// The one write an invitation's acceptance makes: the invited user becomes a member with the
// invitation's role, and the invitation is gone, together or not at all.

export function createMembershipsRepository(db: Db) {
  return {
    findInvitation(organizationId: string, invitationId: string) {
      return db
        .selectFrom('memberInvitations as i')
        .innerJoin('organizations as o', 'o.id', 'i.organizationId')
        .selectAll('i')
        .select('o.name as organizationName')
        .where('i.organizationId', '=', organizationId)
        .where('i.id', '=', invitationId)
        .executeTakeFirst()
    },

    /** Makes the user a member with the invitation's role and deletes the invitation; false when the user already was a member. */
    acceptInvitation(
      invitation: { id: string; organizationId: string; role: string; customRoleId: string | null },
      userId: string,
    ): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('organizationMembers')
          .values({ organizationId: invitation.organizationId, userId, role: invitation.role, customRoleId: invitation.customRoleId })
          .onConflict((oc) => oc.columns(['organizationId', 'userId']).doNothing())
          .returning('userId')
          .executeTakeFirst()
        if (!inserted) return false
        await trx.deleteFrom('memberInvitations').where('id', '=', invitation.id).execute()
        return true
      })
    },

    isMember(organizationId: string, userId: string): Promise<boolean> {
      return hasRow(db, 'organizationMembers', { organizationId, userId })
    },
  }
}

export type MembershipsRepository = ReturnType<typeof createMembershipsRepository>
