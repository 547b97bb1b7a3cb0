// The environment page's overview: each service with its live status, grouped by deployment
// stage in deploy order (`GET /environment/{id}/statusesWithStages`, read again every 2 s), each
// linked to its page; and the environment's previews.
import { api } from './api.ts'
import { words } from './format.ts'
import { type KindSpec, kindOfType } from './kinds.ts'
import { ErrorMessage, Show, useLoad } from './pages.tsx'
import { usePolled } from './polled.ts'
import { StateBadge } from './service-page.tsx'
import type { Environment, List, Project, ServiceSummary } from './types.ts'

interface ServiceState {
  id: string
  state: string
  service_deployment_status: string
}

interface StagesStatuses {
  environment: { state: string }
  /** Each stage with its services' statuses, one member per kind (`containers`, `helms`…). */
  stages: ({ stage: { id: string; name: string; status?: string } } & Record<string, unknown>)[]
}

const STATUS_POLL_MS = 2000

export function ServicesAtAGlance({ environmentId }: { environmentId: string }) {
  const services = useLoad(() => api.allPages<ServiceSummary>(`/environment/${environmentId}/services`), environmentId)
  const statuses = usePolled(() => api.get<StagesStatuses>(`/environment/${environmentId}/statusesWithStages`), environmentId, STATUS_POLL_MS)
  return (
    <section class="services-glance" aria-label="Services">
      <h3>Services</h3>
      <ErrorMessage message={statuses.error} />
      <Show loaded={services}>
        {({ results }) => {
          if (results.length === 0) return <p class="empty">No service yet.</p>
          if (!statuses.data) return statuses.error ? null : <p class="loading">Loading…</p>
          const byId = new Map(results.map((service) => [service.id, service]))
          return statuses.data.stages.map((stage) => {
            const rows: { spec: KindSpec | undefined; type: string; state: ServiceState; name: string }[] = []
            // Each kind's statuses are a member of the stage (`containers`…): a kind the console has no page for yet still shows.
            const states = Object.values(stage).flatMap((member) => (Array.isArray(member) ? (member as ServiceState[]) : []))
            for (const service of results) {
              const state = states.find((s) => s.id === service.id)
              if (state)
                rows.push({
                  spec: kindOfType(service.service_type),
                  type: service.service_type,
                  state,
                  name: byId.get(service.id)?.name ?? service.id,
                })
            }
            return (
              <div class="stage-group" key={stage.stage.id} data-stage={stage.stage.name}>
                <h4>
                  <span class="wrap">{stage.stage.name}</span>
                  {stage.stage.status ? <span class="note"> last run {words(stage.stage.status)}</span> : null}
                </h4>
                {rows.length === 0 ? (
                  <p class="empty">No service in this stage.</p>
                ) : (
                  <div class="table-wrap">
                    <table class="data">
                      <thead>
                        <tr>
                          <th scope="col">Service</th>
                          <th scope="col">Kind</th>
                          <th scope="col">Status</th>
                          <th scope="col">Configuration</th>
                        </tr>
                      </thead>
                      <tbody>
                        {rows.map(({ spec, type, state, name }) => (
                          <tr key={state.id} data-service-id={state.id} data-kind={spec?.name ?? type}>
                            <td class="wrap">{spec ? <a href={`#/${spec.name}/${state.id}`}>{name}</a> : name}</td>
                            <td>{spec?.title ?? words(type)}</td>
                            <td>
                              <StateBadge state={state.state} />
                            </td>
                            <td>{words(state.service_deployment_status)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                )}
              </div>
            )
          })
        }}
      </Show>
    </section>
  )
}

/**
 * The previews of an environment's project: its environments of mode PREVIEW. The one place that
 * says what a preview is, so that a dedicated previews API can take its place.
 */
export async function listPreviews(project: Project): Promise<Environment[]> {
  const { results } = await api.get<List<Environment>>(`/project/${project.id}/environment`)
  return results.filter((environment) => environment.mode === 'PREVIEW')
}

export function Previews({ project }: { project: Project }) {
  const previews = useLoad(() => listPreviews(project), project.id)
  return (
    <section class="previews" aria-label="Previews">
      <h3>Previews</h3>
      <Show loaded={previews}>
        {(list) =>
          list.length === 0 ? (
            <p class="empty">No preview environment.</p>
          ) : (
            <ul class="links">
              {list.map((preview) => (
                <li key={preview.id}>
                  <a href={`#/environment/${preview.id}`} class="wrap">
                    {preview.name}
                  </a>
                  <span class="note">{preview.cluster_name}</span>
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  )
}
