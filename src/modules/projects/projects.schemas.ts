import { type Static, Type } from 'typebox'
import { Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import { NamedResource, RequestBody, RequestName } from '#src/platform/http/named-resources.ts'

export const ProjectRequest = RequestBody('ProjectRequest', {
  name: RequestName('name is case insensitive; unique in the organization'),
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
})
export type ProjectRequest = Static<typeof ProjectRequest>

export const Project = NamedResource('Project', {
  description: Nullable(Type.String()),
  organization: Type.Object({ id: Uuid }),
  associated_environments_count: Type.Integer(),
})
export type Project = Static<typeof Project>

export const ProjectResponseList = ListResponse(Project, 'ProjectResponseList')

export const ProjectParams = Type.Object({ projectId: Uuid })
