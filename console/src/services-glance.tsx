// The services of an environment with their live status, grouped by deployment stage in deploy
// order (`GET /environment/{id}/statusesWithStages`, read again every 2 s), each linked to its page.
import { api } from './api.ts'
import { words } from './format.ts'
import { kindOfType } from './kinds.ts'
import { usePolled } from './polled.ts'
import type { ServiceSummary } from './types.ts'
import { Empty, ErrorMessage, Show, StateBadge } from './ui.tsx'

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
  // Read again with the statuses: a service made since the page opened gets its name.
  const services = usePolled(() => api.allPages<ServiceSummary>(`/environment/${environmentId}/services`), environmentId, 10_000)
  const statuses = usePolled(() => api.get<StagesStatuses>(`/environment/${environmentId}/statusesWithStages`), environmentId, STATUS_POLL_MS)
  return (
    <section class="services-glance panel" aria-label="Services">
      <h2>Services</h2>
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
          return (
            <div class="table-wrap">
              <table class="data services-table stack">
                <thead>
                  <tr>
                    <th scope="col">Service</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Status</th>
                    <th scope="col">Last deploy</th>
                  </tr>
                </thead>
                {statuses.data.stages.map((stage, index) => {
                  // Each kind's statuses are a member of the stage (`containers`…): a kind the console has no page for yet still shows.
                  const states = Object.values(stage).flatMap((member) => (Array.isArray(member) ? (member as ServiceState[]) : []))
                  return (
                    <tbody class="stage-group" key={stage.stage.id} data-stage={stage.stage.name}>
                      <tr class="stage-row">
                        <th scope="rowgroup" colSpan={4}>
                          <span class="plan-order">{index + 1}</span> <span class="wrap">{stage.stage.name}</span>
                          {stage.stage.status ? <span class="note"> last run {words(stage.stage.status)}</span> : null}
                        </th>
                      </tr>
                      {states.length === 0 ? (
                        <tr>
                          <td colSpan={4} class="empty">
                            No service in this stage.
                          </td>
                        </tr>
                      ) : (
                        states.map((state) => {
                          const service = byId.get(state.id)
                          const spec = service ? kindOfType(service.service_type) : undefined
                          const name = service?.name ?? 'a new service'
                          return (
                            <tr key={state.id} data-service-id={state.id} data-kind={spec?.segment ?? service?.service_type}>
                              <td data-label="Service" class="wrap">
                                {spec ? <a href={`#/${spec.segment}/${state.id}`}>{name}</a> : name}
                              </td>
                              <td data-label="Kind">{spec?.title ?? (service ? words(service.service_type) : '')}</td>
                              <td data-label="Status">
                                <StateBadge state={state.state} />
                              </td>
                              <td data-label="Last deploy" class="note">
                                {deploymentWords(state.service_deployment_status)}
                              </td>
                            </tr>
                          )
                        })
                      )}
                    </tbody>
                  )
                })}
              </table>
            </div>
          )
        }}
      </Show>
    </section>
  )
}
