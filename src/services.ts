import { createApiTokensRepository } from './modules/api-tokens/api-tokens.repository.ts'
import { createApiTokensService } from './modules/api-tokens/api-tokens.service.ts'
import { createTokenUsageTracker } from './modules/api-tokens/token-usage.ts'
import { createClustersRepository } from './modules/environments/clusters.repository.ts'
import { createEnvironmentsRepository } from './modules/environments/environments.repository.ts'
import { createEnvironmentsService } from './modules/environments/environments.service.ts'
import { createGitTokensRepository } from './modules/git-tokens/git-tokens.repository.ts'
import { createGitTokensService } from './modules/git-tokens/git-tokens.service.ts'
import { createHelmRepositoriesRepository } from './modules/helm-repositories/helm-repositories.repository.ts'
import { createHelmRepositoriesService } from './modules/helm-repositories/helm-repositories.service.ts'
import { createHelmServicesRepository } from './modules/helm-services/helm-services.repository.ts'
import { createHelmServicesService } from './modules/helm-services/helm-services.service.ts'
import { createOrganizationsRepository } from './modules/organizations/organizations.repository.ts'
import { createOrganizationsService } from './modules/organizations/organizations.service.ts'
import { createProjectsRepository } from './modules/projects/projects.repository.ts'
import { createProjectsService } from './modules/projects/projects.service.ts'
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
  const projects = createProjectsService({ repo: createProjectsRepository(db), organizations })
  const environments = createEnvironmentsService({
    repo: createEnvironmentsRepository(db),
    clusters: createClustersRepository(db),
    organizations,
    projects,
  })
  const gitTokens = createGitTokensService({ repo: createGitTokensRepository(db), organizations, secrets: options.secrets })
  const helmRepositories = createHelmRepositoriesService({ repo: createHelmRepositoriesRepository(db), organizations, secrets: options.secrets })
  const helmServices = createHelmServicesService({
    repo: createHelmServicesRepository(db),
    requireOrganizationRole: organizations.requireRole,
    requireEnvironment: environments.requireEnvironment,
    findGitToken: gitTokens.findGitToken,
    findHelmRepository: helmRepositories.findHelmRepository,
  })
  return { organizations, apiTokens, tokenUsage, projects, environments, gitTokens, helmRepositories, helmServices }
}

export type Services = ReturnType<typeof createServices>
