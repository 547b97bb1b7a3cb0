import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { ProjectsService } from '#src/modules/projects/projects.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import type { ClusterRow, ClustersRepository, NewCluster } from './clusters.repository.ts'
import type { EnvironmentChanges, EnvironmentRecord, EnvironmentsRepository } from './environments.repository.ts'
import type { CreateMode } from './environments.schemas.ts'

export interface NewEnvironmentInput {
  name: string
  mode: CreateMode
  autoPreview: boolean
  /** A cluster of the organization; absent: the organization's default cluster. */
  clusterId?: string | undefined
}

/** A partial edit: an absent field keeps its value. */
export interface EnvironmentEdit {
  name?: string | undefined
  mode?: CreateMode | undefined
  autoPreview?: boolean | undefined
}

interface Deps {
  repo: EnvironmentsRepository
  clusters: ClustersRepository
  organizations: OrganizationsService
  projects: ProjectsService
  /** Told once an environment's delete has ended (whether or not it went): what this process remembers of it is stale. */
  onDeleted?: (environmentId: string) => void
  /** The most environments a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
  /**
   * The project's deployment rule a new environment of that name falls under (docs/deployment-rules.md):
   * its mode and cluster replace the request's, and `apply` gives the created environment the rest.
   */
  deploymentRuleFor?: (organizationId: string, projectId: string, name: string) => Promise<NewEnvironmentRule | undefined>
}

/** What a project's deployment rule gives a new environment. */
export interface NewEnvironmentRule {
  mode: CreateMode
  clusterId: string
  apply(environment: EnvironmentRecord): Promise<void>
}

/** Berth deploys onto the machine it runs on: the one cluster each organization gets. */
export const DEFAULT_CLUSTER: NewCluster = { name: 'default', cloudProvider: 'ON_PREMISE', region: 'on-premise' }

const nameTaken = (name: string) => new AppError('conflict', `an environment named "${name}" already exists in this project`)

/** Where an environment lies, as access checks take it. */
const scopeOf = (environment: EnvironmentRecord) =>
  ({ kind: 'environment', projectId: environment.projectId, mode: environment.mode, clusterId: environment.clusterId }) as const

const unknownCluster = (clusterId: string) =>
  new AppError('validation_failed', `cluster ${clusterId} is not a cluster of this organization`, {
    errors: [{ path: '/cluster', message: 'is not a cluster of this organization', location: 'body' }],
  })

export function createEnvironmentsService({
  repo,
  clusters,
  organizations,
  projects,
  onDeleted,
  listLimit = DEFAULT_LIST_LIMIT,
  deploymentRuleFor,
}: Deps) {
  /**
   * Loads an environment the principal may act on with at least `needed`: 404 when it does not
   * exist or lies in an organization the principal cannot access, 403 when the role is too low.
   */
  async function requireEnvironment(
    principal: Principal,
    environmentId: string,
    needed: Role,
  ): Promise<{ environment: EnvironmentRecord; role: Role }> {
    const environment = await repo.findById(environmentId)
    if (!environment) throw notFound('environment')
    const role = await organizations
      .requireScoped(principal, environment.organizationId, scopeOf(environment), needed)
      .catch(asNotFound('environment'))
    return { environment, role }
  }

  /**
   * The organization's default cluster, made on first use. Concurrent first uses race on the
   * unique `clusters_default_key`: the losers insert nothing and read the winner's row.
   */
  async function defaultCluster(organizationId: string): Promise<ClusterRow> {
    return (
      (await clusters.findDefault(organizationId)) ??
      (await clusters.insertDefaultIfMissing(organizationId, DEFAULT_CLUSTER)) ??
      (await clusters.findDefault(organizationId))!
    )
  }

  async function chooseCluster(organizationId: string, clusterId: string | undefined): Promise<ClusterRow> {
    if (!clusterId) return defaultCluster(organizationId)
    const cluster = await clusters.findById(organizationId, clusterId)
    if (!cluster) throw unknownCluster(clusterId)
    return cluster
  }

  const guardName = <T>(name: string, write: () => Promise<T>) => withUniqueName('environments_name_key', () => nameTaken(name), write)

  return {
    requireEnvironment,

    /** A custom role's holder sees the environments of the modes it may read (docs/custom-roles.md, "Custom roles"). */
    async list(principal: Principal, projectId: string): Promise<CappedList<EnvironmentRecord>> {
      const { project } = await projects.requireProject(principal, projectId, 'READ')
      const visible = await organizations.visibility(principal, project.organizationId)
      const list = await capped(listLimit, (limit) => repo.list(project.organizationId, projectId, limit))
      return visible ? { ...list, rows: list.rows.filter((environment) => visible(scopeOf(environment))) } : list
    },

    async get(principal: Principal, environmentId: string): Promise<EnvironmentRecord> {
      return (await requireEnvironment(principal, environmentId, 'READ')).environment
    },

    /** A project (or organization) deleted while this runs: 404, and no environment. */
    async create(principal: Principal, projectId: string, requested: NewEnvironmentInput): Promise<EnvironmentRecord> {
      const { project } = await projects.requireProject(principal, projectId, 'READ')
      const rule = await deploymentRuleFor?.(project.organizationId, projectId, requested.name)
      const input = rule ? { ...requested, mode: rule.mode, clusterId: rule.clusterId } : requested
      // WRITE where the environment is to lie: for a custom role, in that mode on that cluster (a
      // default cluster not made yet is one the role leaves at VIEWER).
      const clusterId = input.clusterId ?? (await clusters.findDefault(project.organizationId))?.id ?? ''
      const scope = { kind: 'environment', projectId, mode: input.mode, clusterId } as const
      await organizations.requireScoped(principal, project.organizationId, scope, 'WRITE').catch(asNotFound('project'))
      return whenParentGone(
        () => notFound('project'),
        async () => {
          const cluster = await chooseCluster(project.organizationId, input.clusterId)
          const created = await guardName(input.name, () =>
            repo.insert({
              organizationId: project.organizationId,
              projectId,
              clusterId: cluster.id,
              name: input.name,
              mode: input.mode,
              autoPreview: input.autoPreview,
            }),
          )
          await rule?.apply(created)
          return created
        },
      )
    },

    /** A partial edit; an edit that changes nothing leaves the environment, and its updated_at, alone. */
    async update(principal: Principal, environmentId: string, edit: EnvironmentEdit): Promise<EnvironmentRecord> {
      const { environment } = await requireEnvironment(principal, environmentId, 'WRITE')
      // A new mode is checked as well: a custom role may not move an environment where it may not write.
      if (edit.mode !== undefined && edit.mode !== environment.mode) {
        const scope = { ...scopeOf(environment), mode: edit.mode }
        await organizations.requireScoped(principal, environment.organizationId, scope, 'WRITE').catch(asNotFound('environment'))
      }
      const changes: EnvironmentChanges = Object.fromEntries(Object.entries(edit).filter(([, value]) => value !== undefined))
      if (Object.keys(changes).length === 0) return environment
      const record = await guardName(edit.name ?? environment.name, () => repo.update(environment.organizationId, environmentId, changes))
      if (!record) throw notFound('environment')
      return record
    },

    async delete(principal: Principal, environmentId: string): Promise<void> {
      const { environment } = await requireEnvironment(principal, environmentId, 'WRITE')
      const deleted = await repo.delete(environment.organizationId, environment.projectId, environmentId).finally(() => onDeleted?.(environment.id))
      if (!deleted) throw notFound('environment')
    },

    /** Deletes an environment for no principal (a preview without services): nothing when it is gone already. */
    async deleteUnchecked(environmentId: string): Promise<void> {
      const environment = await repo.findById(environmentId)
      if (!environment) return
      await repo.delete(environment.organizationId, environment.projectId, environmentId).finally(() => onDeleted?.(environment.id))
    },
  }
}

export type EnvironmentsService = ReturnType<typeof createEnvironmentsService>
