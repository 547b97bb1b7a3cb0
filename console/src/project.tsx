// A project: its environments, each with its state (read every 5 s).
import { useEffect } from 'preact/hooks'
import { api } from './api.ts'
import { place } from './place.ts'
import { usePolled } from './polled.ts'
import type { Environment, List, Organization, Project } from './types.ts'
import { Breadcrumbs, Empty, Show, StateBadge, useLoad, usePageTitle } from './ui.tsx'

export function ProjectPage({ projectId }: { projectId: string }) {
  const states = usePolled(() => api.get<List<{ id: string; state: string }>>(`/project/${projectId}/environment/status`), projectId, 5000)
  const stateOf = new Map((states.data?.results ?? []).map((status) => [status.id, status.state]))
  const loaded = useLoad(async () => {
    const [project, { results }] = await Promise.all([
      api.get<Project>(`/project/${projectId}`),
      api.get<List<Environment>>(`/project/${projectId}/environment`),
    ])
    return { project, organization: await api.get<Organization>(`/organization/${project.organization.id}`), environments: results }
  }, projectId)
  const organizationId = loaded.data?.organization.id
  useEffect(() => {
    if (organizationId) place.set({ organizationId, projectId })
  }, [organizationId, projectId])
  usePageTitle([loaded.data?.project.name])
  return (
    <Show loaded={loaded}>
      {({ project, organization, environments }) => (
        <>
          <Breadcrumbs items={[{ label: organization.name, href: `#/organization/${organization.id}` }, { label: project.name }]} />
          <header class="page-head">
            <h1>{project.name}</h1>
          </header>
          <section class="panel" aria-label="Environments">
            <h2>Environments</h2>
            {environments.length === 0 ? (
              <Empty next="Create one with berth environment create, or POST /project/{id}/environment.">No environment yet.</Empty>
            ) : (
              <ul class="links">
                {environments.map((environment) => (
                  <li key={environment.id}>
                    <a href={`#/environment/${environment.id}`}>{environment.name}</a>
                    {stateOf.get(environment.id) ? <StateBadge state={stateOf.get(environment.id)!} /> : null}
                    <span class="chip">{environment.mode.toLowerCase()}</span>
                    <span class="note">on {environment.cluster_name}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      )}
    </Show>
  )
}
