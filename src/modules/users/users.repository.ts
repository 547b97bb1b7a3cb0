import { type Selectable, sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { UsersTable } from '#src/platform/db/schema.ts'

export type UserRow = Selectable<UsersTable>

export interface UserClaims {
  issuer: string
  subject: string
  name: string | undefined
  email: string | undefined
}

export function createUsersRepository(db: Db) {
  return {
    findById(userId: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst()
    },

    findBySubject(issuer: string, subject: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst()
    },

    /** Sets the email the user wants to be written to. */
    setCommunicationEmail(userId: string, communicationEmail: string): Promise<UserRow | undefined> {
      return db.updateTable('users').set({ communicationEmail, updatedAt: new Date() }).where('id', '=', userId).returningAll().executeTakeFirst()
    },

    /** Creates the user, or updates the claims it carries; a claim the token lacks keeps its value. */
    upsert(claims: UserClaims): Promise<UserRow> {
      return db
        .insertInto('users')
        .values({ issuer: claims.issuer, subject: claims.subject, name: claims.name ?? null, email: claims.email ?? null })
        .onConflict((oc) =>
          oc.constraint('users_issuer_subject_key').doUpdateSet({
            name: sql`coalesce(excluded.name, users.name)`,
            email: sql`coalesce(excluded.email, users.email)`,
            updatedAt: new Date(),
          }),
        )
        .returningAll()
        .executeTakeFirstOrThrow()
    },
  }
}

export type UsersRepository = ReturnType<typeof createUsersRepository>
