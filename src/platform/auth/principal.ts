import type { Role } from './roles.ts'

/** Who is calling, as established by authentication; passed first to every service function. */
export type Principal = ApiTokenPrincipal | UserPrincipal

export interface ApiTokenPrincipal {
  readonly kind: 'api_token'
  readonly apiTokenId: string
  readonly name: string
  /** The organization the token was created in, where it holds `role`. */
  readonly organizationId: string
  readonly role: Role
  /** The custom role of its organization the token holds (docs/custom-roles.md, "Custom roles"); `role` is then READ. */
  readonly customRoleId: string | null
  /** When the token stops working; null for a token without expiry. */
  readonly expiresAt: Date | null
  /** The member whose role bounds the token (see api_tokens.owner_user_id); null when no user is behind it. */
  readonly ownerUserId: string | null
  /** A policy token's rego policy (token-policy.ts), which every request it makes must satisfy; absent or null for other tokens. */
  readonly policy?: string | null
}

/**
 * A person signed in at the OpenID Connect issuer, calling with its JWT. Holds a role in each
 * organization it is a member of (organization_members), and none anywhere else.
 */
export interface UserPrincipal {
  readonly kind: 'user'
  readonly userId: string
}
