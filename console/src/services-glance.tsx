// The environment page's overview: each service with its live status, grouped by deployment
// stage in deploy order (`GET /environment/{id}/statusesWithStages`, read again every 2 s), each
// linked to its page; and the environment's previews.
import { api } from './api.ts'
import { words } from './format.ts'
import { type KindSpec, kindOfType } from './kinds.ts'
import { usePolled } from './polled.ts'
import type { List, Preview, ServiceSummary } from './types.ts'
import { Empty, ErrorMessage, Show, StateBadge, useLoad } from './ui.tsx'

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

/** What the API's `service_deployment_status` says, in words that claim no more than it does. */
export const deploymentWords = (status: string) =>
  status === 'UP_TO_DATE' ? 'configuration deployed' : status === 'OUT_OF_DATE' ? 'configuration changed since' : 'never deployed'

export function ServicesAtAGlance({ environmentId }: { environmentId: string }) {
  const services = useLoad(() => api.allPages<ServiceSummary>(`/environment/${environmentId}/services`), environmentId)
  const statuses = usePolled(() => api.get<StagesStatuses>(`/environment/${environmentId}/statusesWithStages`), environmentId, STATUS_POLL_MS)
  return (
    <section class="services-glance" aria-label="Services">
      <h3>Services</h3>
      <ErrorMessage message={statuses.error} />
      <Show loaded={services}>
        {({ results }) => {
          if (results.length === 0)
            return (
              <Empty
                next={<a href={`#/environment/${environmentId}/new`}>Create a service: an application from git, a container, a database, a job…</a>}
              >
                No service yet.
              </Empty>
            )
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
                          <th scope="col">Last deploy</th>
                        </tr>
                      </thead>
                      <tbody>
                        {rows.map(({ spec, type, state, name }) => (
                          <tr key={state.id} data-service-id={state.id} data-kind={spec?.segment ?? type}>
                            <td class="wrap">{spec ? <a href={`#/${spec.segment}/${state.id}`}>{name}</a> : name}</td>
                            <td>{spec?.title ?? words(type)}</td>
                            <td>
                              <StateBadge state={state.state} />
                            </td>
                            <td>{deploymentWords(state.service_deployment_status)}</td>
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

/** The previews made from the environment, oldest first. */
export async function listPreviews(environmentId: string): Promise<Preview[]> {
  return (await api.get<List<Preview>>(`/environment/${environmentId}/previews`)).results
}

/** What asked for the preview, in a line: its pull request (a link to it), or its image tag. */
function PreviewCause({ preview }: { preview: Preview }) {
  const pr = preview.pull_request
  if (!pr) return <span class="note">image tag {preview.image_tag}</span>
  const label = `#${pr.number}${pr.title ? ` ${pr.title}` : ''}`
  return (
    <span class="note wrap">
      {pr.url ? (
        <a href={pr.url} target="_blank" rel="noopener noreferrer" data-testid="pull-request">
          {label}
        </a>
      ) : (
        label
      )}
      {pr.head_branch ? ` from ${pr.head_branch}` : ''}
      {pr.head_commit ? ` at ${pr.head_commit.slice(0, 7)}` : ''}
      {pr.author ? ` by ${pr.author}` : ''}
    </span>
  )
}

export function Previews({ environmentId }: { environmentId: string }) {
  const previews = useLoad(() => listPreviews(environmentId), environmentId)
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
                  {preview.environment_id ? (
                    <a href={`#/environment/${preview.environment_id}`} class="wrap">
                      {preview.environment_name}
                    </a>
                  ) : (
                    <span class="loading">being made…</span>
                  )}
                  <PreviewCause preview={preview} />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  )
}
