import type { ColumnType, Generated } from 'kysely'

/** Kysely's view of the tables, in camelCase (the CamelCasePlugin maps to snake_case SQL). */
export interface Database {
  organizations: OrganizationsTable
  apiTokens: ApiTokensTable
}

/** Set by the database on insert. */
type CreatedAt = ColumnType<Date, Date | undefined, never>
type UpdatedAt = ColumnType<Date, Date | undefined, Date>

export interface OrganizationsTable {
  id: Generated<string>
  name: string
  description: string | null
  plan: string
  websiteUrl: string | null
  repository: string | null
  logoUrl: string | null
  iconUrl: string | null
  adminEmails: string[] | null
  /** An API token that created the organization through the API; it holds ADMIN there. */
  creatorApiTokenId: string | null
  createdAt: CreatedAt
  updatedAt: UpdatedAt
}

export interface ApiTokensTable {
  id: Generated<string>
  organizationId: string
  name: string
  description: string | null
  role: string
  /** SHA-256 of the whole token; the token itself is never stored. */
  digest: Buffer
  /** The first characters of the token, safe to show so people can tell tokens apart. */
  tokenStart: string
  createdByApiTokenId: string | null
  createdAt: CreatedAt
  updatedAt: UpdatedAt
  expiredAt: Date | null
  lastUsedAt: Date | null
}
