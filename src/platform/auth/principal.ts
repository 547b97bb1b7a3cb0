import type { Role } from './roles.ts'

/** Who is calling, as established by authentication; passed first to every service function. */
export type Principal = ApiTokenPrincipal

export interface ApiTokenPrincipal {
  readonly kind: 'api_token'
  readonly apiTokenId: string
  readonly name: string
  /** The organization the token was created in, where it holds `role`. */
  readonly organizationId: string
  readonly role: Role
  /** When the token stops working; null for a token without expiry. */
  readonly expiresAt: Date | null
}
