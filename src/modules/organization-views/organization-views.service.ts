import type { EnvironmentStatusRecord } from '#src/modules/deployments/api/triggers/deployment-statuses.ts'
import type { AccessScope } from '#src/modules/organizations/custom-role-grants.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { ProjectsService } from '#src/modules/projects/projects.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { ROLE_IDS, ROLES } from '#src/platform/auth/roles.ts'
import { notFound } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import type { AssociatedServiceRow, OnboardingStatus, OrganizationViewsRepository, ServiceFilters } from './organization-views.repository.ts'

interface Deps {
  repo: OrganizationViewsRepository
  organizations: Pick<OrganizationsService, 'requireAccess' | 'visibility'>
  projects: Pick<ProjectsService, 'requireProject'>
  requireGitToken(principal: Principal, organizationId: string, gitTokenId: string): Promise<unknown>
  requireHelmRepository(principal: Principal, organizationId: string, helmRepositoryId: string): Promise<unknown>
  /** The status of each environment of the project the principal sees. */
  projectEnvironmentStatuses(principal: Principal, projectId: string): Promise<EnvironmentStatusRecord[]>
  listLimit?: number
}

const environmentScope = (environment: { projectId: string; mode: string; clusterId: string }): AccessScope => ({
  kind: 'environment',
  projectId: environment.projectId,
  mode: environment.mode,
  clusterId: environment.clusterId,
})

/** GITOPS_APP services are deployed by Argo CD; every other kind by Berth itself. */
function managedBy(kinds: string[]): 'QOVERY' | 'ARGOCD' | 'MIXED' {
  const gitops = kinds.filter((kind) => kind === 'GITOPS_APP').length
  return gitops === 0 ? 'QOVERY' : gitops === kinds.length ? 'ARGOCD' : 'MIXED'
}

/**
 * The organization's own views across its projects (docs/organization-views.md): lists and counts of
 * its environments and services, and which services use a git token or a helm repository. A custom
 * role's holder sees only the environments it may read, in lists and in counts.
 */
export function createOrganizationViewsService({ repo, organizations, listLimit = DEFAULT_LIST_LIMIT, ...deps }: Deps) {
  /** Keeps what lies in environments the principal may read. */
  async function visibleIn<T>(principal: Principal, organizationId: string, rows: T[], scopeOf: (row: T) => AccessScope): Promise<T[]> {
    const visible = await organizations.visibility(principal, organizationId)
    return visible ? rows.filter((row) => visible(scopeOf(row))) : rows
  }

  async function environmentsWithServices(principal: Principal, organizationId: string, projectId?: string) {
    return visibleIn(principal, organizationId, await repo.environmentsWithServices(organizationId, projectId), environmentScope)
  }

  async function associated(principal: Principal, organizationId: string, rows: CappedList<AssociatedServiceRow>) {
    const environments = new Map((await environmentsWithServices(principal, organizationId)).map((environment) => [environment.id, environment]))
    return { ...rows, rows: rows.rows.filter((row) => environments.has(row.environmentId)) }
  }

  return {
    async listServices(principal: Principal, organizationId: string, filters: ServiceFilters) {
      await organizations.requireAccess(principal, organizationId, 'READ')
      const list = await capped(listLimit, (limit) => repo.listServices(organizationId, filters, limit))
      const rows = await visibleIn(principal, organizationId, list.rows, (row) =>
        environmentScope({ projectId: row.projectId, mode: row.environmentMode, clusterId: row.clusterId }),
      )
      return { ...list, rows }
    },

    async listEnvironments(principal: Principal, organizationId: string) {
      await organizations.requireAccess(principal, organizationId, 'READ')
      const list = await capped(listLimit, (limit) => repo.listEnvironments(organizationId, limit))
      return { ...list, rows: await visibleIn(principal, organizationId, list.rows, environmentScope) }
    },

    /** Per project of the organization: how many environments and services the principal sees in it. */
    async projectStats(principal: Principal, organizationId: string) {
      await organizations.requireAccess(principal, organizationId, 'READ')
      const [projectIds, environments, visible] = await Promise.all([
        repo.listProjectIds(organizationId),
        environmentsWithServices(principal, organizationId),
        organizations.visibility(principal, organizationId),
      ])
      return projectIds
        .filter((projectId) => !visible || visible({ kind: 'project', projectId }))
        .map((projectId) => {
          const inProject = environments.filter((environment) => environment.projectId === projectId)
          return {
            id: projectId,
            environments: inProject.length,
            services: inProject.reduce((sum, environment) => sum + environment.serviceKinds.length, 0),
          }
        })
    },

    /** Per environment of the project: how many services it has. */
    async environmentStats(principal: Principal, projectId: string) {
      const { project } = await deps.projects.requireProject(principal, projectId, 'READ')
      return (await environmentsWithServices(principal, project.organizationId, project.id)).map((environment) => ({
        id: environment.id,
        services: environment.serviceKinds.length,
      }))
    },

    /** Each environment of the project with its cluster, its services' count and who deploys them, and its status. */
    async environmentsOverview(principal: Principal, projectId: string) {
      const { project } = await deps.projects.requireProject(principal, projectId, 'READ')
      const [environments, statuses] = await Promise.all([
        environmentsWithServices(principal, project.organizationId, project.id),
        deps.projectEnvironmentStatuses(principal, project.id),
      ])
      const statusOf = new Map(statuses.map((status) => [status.id, status]))
      return environments.map((environment) => ({
        ...environment,
        managedBy: managedBy(environment.serviceKinds),
        status: statusOf.get(environment.id) ?? null,
      }))
    },

    /** The built-in roles (by their fixed ids), then the organization's custom roles, by name. */
    async availableRoles(principal: Principal, organizationId: string) {
      await organizations.requireAccess(principal, organizationId, 'READ')
      const custom = await repo.listCustomRoles(organizationId, listLimit)
      return [...ROLES.map((role) => ({ id: ROLE_IDS[role], name: role })), ...custom]
    },

    async onboarding(principal: Principal, organizationId: string) {
      await organizations.requireAccess(principal, organizationId, 'READ')
      const status = await repo.onboardingStatus(organizationId)
      if (!status) throw notFound('organization')
      return status
    },

    async setOnboarding(principal: Principal, organizationId: string, status: OnboardingStatus) {
      await organizations.requireAccess(principal, organizationId, 'WRITE')
      const stored = await repo.setOnboardingStatus(organizationId, status)
      if (!stored) throw notFound('organization')
      return stored
    },

    async gitTokenServices(principal: Principal, organizationId: string, gitTokenId: string) {
      await deps.requireGitToken(principal, organizationId, gitTokenId)
      return associated(
        principal,
        organizationId,
        await capped(listLimit, (limit) => repo.listAssociatedServices(organizationId, { gitTokenId }, limit)),
      )
    },

    async helmRepositoryServices(principal: Principal, organizationId: string, helmRepositoryId: string) {
      await deps.requireHelmRepository(principal, organizationId, helmRepositoryId)
      return associated(
        principal,
        organizationId,
        await capped(listLimit, (limit) => repo.listAssociatedServices(organizationId, { helmRepositoryId }, limit)),
      )
    },
  }
}

export type OrganizationViewsService = ReturnType<typeof createOrganizationViewsService>
