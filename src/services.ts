import { createApiTokensRepository } from './modules/api-tokens/api-tokens.repository.ts'
import { createApiTokensService } from './modules/api-tokens/api-tokens.service.ts'
import { createTokenUsageTracker } from './modules/api-tokens/token-usage.ts'
import { createOrganizationsRepository } from './modules/organizations/organizations.repository.ts'
import { createOrganizationsService } from './modules/organizations/organizations.service.ts'
import type { Db } from './platform/db/database.ts'
import type { SecretBox } from './platform/secrets/secret-box.ts'

export interface ServiceOptions {
  /** How often API token usage is written back; the tracker only flushes once started. */
  tokenUsageFlushMs: number
  onBackgroundError: (error: unknown, what: string) => void
  /** Seals git tokens and repository credentials at rest. */
  secrets: SecretBox
}

/** Wires every module's service over one database: the one place modules meet. */
export function createServices(db: Db, options: ServiceOptions) {
  const organizations = createOrganizationsService({ repo: createOrganizationsRepository(db) })
  const apiTokensRepo = createApiTokensRepository(db)
  const tokenUsage = createTokenUsageTracker(apiTokensRepo, options.tokenUsageFlushMs, (error) =>
    options.onBackgroundError(error, 'could not record API token usage; will retry'),
  )
  const apiTokens = createApiTokensService({ repo: apiTokensRepo, organizations, usage: tokenUsage })
  return { organizations, apiTokens, tokenUsage }
}

export type Services = ReturnType<typeof createServices>
