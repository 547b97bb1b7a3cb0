import type { HeldRole } from '#src/platform/auth/roles.ts'
import type { Db } from '#src/platform/db/database.ts'

export interface MemberRow {
  userId: string
  name: string | null
  email: string | null
  role: string
  /** The custom role held, with its name (docs/custom-roles.md, "Custom roles"); `role` is then READ. */
  customRoleId: string | null
  customRoleName: string | null
  createdAt: Date
  updatedAt: Date
}

function memberQueries(db: Db) {
  const selectMembers = (organizationId: string) =>
    db
      .selectFrom('organizationMembers as m')
      .innerJoin('users as u', 'u.id', 'm.userId')
      .leftJoin('customRoles as cr', 'cr.id', 'm.customRoleId')
      .select(['m.userId', 'u.name', 'u.email', 'm.role', 'm.customRoleId', 'cr.name as customRoleName', 'm.createdAt', 'm.updatedAt'])
      .where('m.organizationId', '=', organizationId)

  return {
    list(organizationId: string, limit: number): Promise<MemberRow[]> {
      return selectMembers(organizationId).orderBy('m.createdAt').orderBy('m.userId').limit(limit).execute()
    },

    find(organizationId: string, userId: string): Promise<MemberRow | undefined> {
      return selectMembers(organizationId).where('m.userId', '=', userId).executeTakeFirst()
    },

    async countAdmins(organizationId: string): Promise<number> {
      const { count } = await db
        .selectFrom('organizationMembers')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('organizationId', '=', organizationId)
        .where('role', '=', 'ADMIN')
        .executeTakeFirstOrThrow()
      return Number(count)
    },

    async upsert(organizationId: string, userId: string, held: HeldRole): Promise<void> {
      const { role } = held
      const customRoleId = held.customRoleId ?? null
      await db
        .insertInto('organizationMembers')
        .values({ organizationId, userId, role, customRoleId })
        .onConflict((oc) => oc.columns(['organizationId', 'userId']).doUpdateSet({ role, customRoleId, updatedAt: new Date() }))
        .execute()
    },

    async delete(organizationId: string, userId: string): Promise<void> {
      await db.deleteFrom('organizationMembers').where('organizationId', '=', organizationId).where('userId', '=', userId).execute()
    },
  }
}

export type MemberQueries = ReturnType<typeof memberQueries>

export function createMembersRepository(db: Db) {
  return {
    ...memberQueries(db),
    /** The same queries inside the caller's transaction (one that holds the organization locked). */
    within: (trx: Db): MemberQueries => memberQueries(trx),
  }
}

export type MembersRepository = ReturnType<typeof createMembersRepository>
