import { type Static, Type } from 'typebox'
import { DateTime, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'

export const ProjectRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'name is case insensitive; unique in the organization' }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  },
  { additionalProperties: false, title: 'ProjectRequest' },
)
export type ProjectRequest = Static<typeof ProjectRequest>

export const Project = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: DateTime,
    name: Type.String(),
    description: Nullable(Type.String()),
    organization: Type.Object({ id: Uuid }),
    associated_environments_count: Type.Integer(),
  },
  { title: 'Project' },
)
export type Project = Static<typeof Project>

export const ProjectResponseList = ListResponse(Project, 'ProjectResponseList')

export const ProjectParams = Type.Object({ projectId: Uuid })
