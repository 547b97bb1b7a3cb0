import type { ProjectRecord } from './projects.repository.ts'
import type { Project, ProjectRequest } from './projects.schemas.ts'
import type { ProjectInput } from './projects.service.ts'

/** A project as the reference's `Project` shape. */
export function toProjectResponse(record: ProjectRecord): Project {
  return {
    id: record.id,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
    name: record.name,
    description: record.description,
    organization: { id: record.organizationId },
    associated_environments_count: record.environmentsCount,
  }
}

/** A validated create or edit request as the service's input; an omitted description is null. */
export function projectInput(body: ProjectRequest): ProjectInput {
  return { name: body.name.trim(), description: body.description ?? null }
}
