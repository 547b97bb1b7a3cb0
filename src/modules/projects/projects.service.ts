import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import type { ProjectRecord, ProjectsRepository } from './projects.repository.ts'

/** The editable fields of a project; an edit replaces both. */
export interface ProjectInput {
  name: string
  description: string | null
}

interface Deps {
  repo: ProjectsRepository
  organizations: OrganizationsService
  /** Told once a project's delete has ended (whether or not it went): what this process remembers of its environments is stale. */
  onDeleted?: (projectId: string) => void
  /** Told after a project was deleted, with the environments that went with it. */
  onEnvironmentsDeleted?: (environmentIds: string[]) => void
  /** The most projects a list answers with (BERTH_LIST_LIMIT). */
  listLimit?: number
}

const nameTaken = (name: string) => new AppError('conflict', `a project named "${name}" already exists in this organization`)

export function createProjectsService({ repo, organizations, onDeleted, onEnvironmentsDeleted, listLimit = DEFAULT_LIST_LIMIT }: Deps) {
  /**
   * Loads a project the principal may act on with at least `needed`: 404 when it does not exist
   * or lies in an organization the principal cannot access, 403 when the role is too low.
   */
  async function requireProject(principal: Principal, projectId: string, needed: Role): Promise<{ project: ProjectRecord; role: Role }> {
    const project = await repo.findById(projectId)
    if (!project) throw notFound('project')
    const scope = { kind: 'project', projectId: project.id } as const
    const role = await organizations.requireScoped(principal, project.organizationId, scope, needed).catch(asNotFound('project'))
    return { project, role }
  }

  /** Runs a write, turning a case-insensitive name clash into 409. */
  const guardName = <T>(name: string, write: () => Promise<T>) => withUniqueName('projects_name_key', () => nameTaken(name), write)

  return {
    requireProject,

    /** A custom role's holder sees the projects it may read something of (docs/custom-roles.md, "Custom roles"). */
    async list(principal: Principal, organizationId: string): Promise<CappedList<ProjectRecord>> {
      const visible = await organizations.visibility(principal, organizationId)
      const list = await capped(listLimit, (limit) => repo.list(organizationId, limit))
      return visible ? { ...list, rows: list.rows.filter((project) => visible({ kind: 'project', projectId: project.id })) } : list
    },

    async get(principal: Principal, projectId: string): Promise<ProjectRecord> {
      return (await requireProject(principal, projectId, 'READ')).project
    },

    /** An organization deleted while this runs: 404, and no project. */
    async create(principal: Principal, organizationId: string, input: ProjectInput): Promise<ProjectRecord> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      return whenParentGone(
        () => notFound('organization'),
        () => guardName(input.name, () => repo.insert({ organizationId, ...input })),
      )
    },

    async update(principal: Principal, projectId: string, input: ProjectInput): Promise<ProjectRecord> {
      const { project } = await requireProject(principal, projectId, 'WRITE')
      const row = await guardName(input.name, () => repo.update(project.organizationId, projectId, input))
      if (!row) throw notFound('project')
      return row
    },

    /**
     * A project's delete, as the deployment triggers' deleteProject runs it (issue 42): marks the
     * project deleting, so that no environment can be added to it meanwhile, and hands its
     * environments to `deleteEnvironments`; the project goes with its last environment (migration
     * 0043), at once when it has none.
     */
    async delete(principal: Principal, projectId: string, deleteEnvironments: (environmentIds: string[]) => Promise<void>): Promise<void> {
      const { project } = await requireProject(principal, projectId, 'WRITE')
      try {
        const environmentIds = await repo.markDeleting(project.organizationId, projectId)
        if (!environmentIds) throw notFound('project')
        if (environmentIds.length === 0) {
          const deleted = await repo.delete(project.organizationId, projectId)
          if (!deleted) throw notFound('project')
          onEnvironmentsDeleted?.(deleted.environmentIds)
          return
        }
        await deleteEnvironments(environmentIds)
      } finally {
        onDeleted?.(project.id)
      }
    },
  }
}

export type ProjectsService = ReturnType<typeof createProjectsService>
