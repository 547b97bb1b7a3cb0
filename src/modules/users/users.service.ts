import type { VerifiedIdentity } from '#src/platform/auth/oidc-verifier.ts'
import type { Principal, UserPrincipal } from '#src/platform/auth/principal.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import type { UserRow, UsersRepository } from './users.repository.ts'

export function createUsersService({ repo }: { repo: UsersRepository }) {
  /** How records such as deployment history name the user: name, else email, else the issuer's subject. */
  async function displayName(userId: string): Promise<string> {
    const user = await repo.findById(userId)
    return user?.name ?? user?.email ?? user?.subject ?? userId
  }

  /** The calling user's own record; API tokens are not people and have none. */
  async function account(principal: Principal): Promise<UserRow> {
    if (principal.kind !== 'user') {
      throw new AppError('forbidden', 'an account belongs to a user signed in with a Bearer JWT; API tokens have none')
    }
    const user = await repo.findById(principal.userId)
    if (!user) throw notFound('user')
    return user
  }

  return {
    /**
     * The user a verified JWT speaks for, created on first sight. Name and email follow the
     * token's claims when it carries them; a token without them changes nothing. Only a change
     * costs a write, so an ordinary request reads one row.
     */
    async signIn(identity: VerifiedIdentity): Promise<UserPrincipal> {
      const known = await repo.findBySubject(identity.issuer, identity.subject)
      const changed =
        !known || (identity.name !== undefined && identity.name !== known.name) || (identity.email !== undefined && identity.email !== known.email)
      const user = changed ? await repo.upsert(identity) : known
      return { kind: 'user', userId: user.id }
    },

    account,

    /** editAccountInformation: the calling user's email to write to (Berth sends none itself; docs/organization-views.md). */
    async editAccount(principal: Principal, edit: { communicationEmail?: string }): Promise<UserRow> {
      const user = await account(principal)
      if (edit.communicationEmail === undefined) return user
      const updated = await repo.setCommunicationEmail(user.id, edit.communicationEmail)
      if (!updated) throw notFound('user')
      return updated
    },

    displayName,

    /** How records name who acted: an API token by its name, a user by `displayName`. */
    async actorName(principal: Principal): Promise<string> {
      return principal.kind === 'api_token' ? `API token ${principal.name}` : displayName(principal.userId)
    },

    /** A user known to this server (one that has called it with a JWT at least once). */
    async get(userId: string): Promise<UserRow> {
      const user = await repo.findById(userId)
      if (!user) throw notFound('user')
      return user
    },
  }
}

export type UsersService = ReturnType<typeof createUsersService>
