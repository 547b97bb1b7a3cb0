// An environment with what every page under it shows: its project, its organization and the
// caller's role there (the buttons it allows are shown).
import { api } from './api.ts'
import type { CurrentRole, Environment, Organization, Project, Role } from './types.ts'
import type { Crumb } from './ui.tsx'

export interface EnvironmentContext {
  environment: Environment
  project: Project
  organization: Organization
  role: Role
}

export async function loadEnvironmentContext(environmentId: string): Promise<EnvironmentContext> {
  const environment = await api.get<Environment>(`/environment/${environmentId}`)
  const organizationId = environment.organization.id
  const [project, organization, { role }] = await Promise.all([
    api.get<Project>(`/project/${environment.project.id}`),
    api.get<Organization>(`/organization/${organizationId}`),
    api.get<CurrentRole>(`/organization/${organizationId}/currentRole`),
  ])
  return { environment, project, organization, role }
}

export const environmentCrumbs = ({ organization, project, environment }: EnvironmentContext, here?: Crumb): Crumb[] => [
  { label: organization.name, href: `#/organization/${organization.id}` },
  { label: project.name, href: `#/project/${project.id}` },
  here ? { label: environment.name, href: `#/environment/${environment.id}` } : { label: environment.name },
  ...(here ? [here] : []),
]
