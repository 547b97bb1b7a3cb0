// What an organization's overview reads: each project's environments, each with its services'
// live statuses and its last deployments. Read again every few seconds while the tab shows.
import { api } from './api.ts'
import { toneOf } from './format.ts'
import { KINDS } from './kinds.ts'
import type { Answer, DeploymentEntry, Environment, HistoryPage, List, Project, ServiceSummary } from './types.ts'

type Statuses = Answer<'getEnvironmentStatuses'>
export type ServiceStatusLine = Statuses['containers'][number]

export interface ServiceGlance {
  id: string
  name: string
  type: string
  state: string
  deploymentStatus: string
}

export interface EnvironmentGlance {
  project: Project
  environment: Environment
  state: string
  services: ServiceGlance[]
  /** Its newest deployments, newest first. */
  deployments: DeploymentEntry[]
}

/** How urgent a state is: failures first, then what is under way, then what is stopped, then the rest. */
export function urgency(state: string): number {
  const tone = toneOf(state)
  if (tone === 'error') return 0
  if (state === 'STOPPED' || state === 'STOP_QUEUED') return 2
  if (tone === 'running' || tone === 'queued') return 1
  return 3
}

const byUrgency = <T extends { state: string; name?: string }>(items: T[]) =>
  [...items].sort((a, b) => urgency(a.state) - urgency(b.state) || (a.name ?? '').localeCompare(b.name ?? ''))

/** The services of an environment with their states, failing first. */
async function environmentGlance(project: Project, environment: Environment): Promise<EnvironmentGlance> {
  const [services, statuses, history] = await Promise.all([
    api.allPages<ServiceSummary>(`/environment/${environment.id}/services`),
    api.get<Statuses>(`/environment/${environment.id}/statuses`),
    api.get<HistoryPage>(`/environment/${environment.id}/deploymentHistoryV2?pageSize=5`),
  ])
  // Each kind's statuses are a member of the answer (`containers`…), named by the kinds table.
  const lines = KINDS.flatMap((kind) => (statuses as unknown as Record<string, ServiceStatusLine[] | undefined>)[kind.statusesMember] ?? [])
  const byId = new Map(lines.map((line) => [line.id, line]))
  return {
    project,
    environment,
    state: statuses.environment.state,
    services: byUrgency(
      services.results.map((service) => ({
        id: service.id,
        name: service.name,
        type: service.service_type,
        state: byId.get(service.id)?.state ?? 'UNKNOWN',
        deploymentStatus: byId.get(service.id)?.service_deployment_status ?? 'NEVER_DEPLOYED',
      })),
    ),
    deployments: history.results,
  }
}

/** Every environment of the organization, those with a failing service first. */
export async function loadOverview(organizationId: string): Promise<EnvironmentGlance[]> {
  const { results: projects } = await api.get<List<Project>>(`/organization/${organizationId}/project`)
  const environments = (
    await Promise.all(
      projects.map(async (project) =>
        (await api.get<List<Environment>>(`/project/${project.id}/environment`)).results.map((e) => ({ project, environment: e })),
      ),
    )
  ).flat()
  const glances = await Promise.all(environments.map(({ project, environment }) => environmentGlance(project, environment)))
  const worst = (glance: EnvironmentGlance) => Math.min(urgency(glance.state), ...glance.services.map((service) => urgency(service.state)))
  return glances.sort(
    (a, b) => worst(a) - worst(b) || a.project.name.localeCompare(b.project.name) || a.environment.name.localeCompare(b.environment.name),
  )
}

/** The newest deployments across the environments, newest first. */
export const lastDeployments = (glances: EnvironmentGlance[], count: number) =>
  glances
    .flatMap((glance) => glance.deployments.map((entry) => ({ glance, entry })))
    .sort((a, b) => b.entry.auditing_data.created_at.localeCompare(a.entry.auditing_data.created_at))
    .slice(0, count)
