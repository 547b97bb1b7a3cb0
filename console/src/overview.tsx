// An organization at a glance: what needs attention, every environment with its services' live
// states (those failing first), and the last deployments across the organization.
import { ATTENTION_SOURCES } from './attention.tsx'
import { formatTime, toneOf, words } from './format.ts'
import { kindOfType, servicePage } from './kinds.ts'
import type { OrganizationPageProps } from './organization-page-props.ts'
import { type EnvironmentGlance, lastDeployments, loadOverview } from './overview-data.ts'
import { usePolled } from './polled.ts'
import { triggerWords } from './trigger-words.ts'
import { Empty, ErrorMessage, StateBadge } from './ui.tsx'

const POLL_MS = 5000

export function OrganizationOverview({ organization }: OrganizationPageProps) {
  const overview = usePolled(() => loadOverview(organization.id), organization.id, POLL_MS)
  const glances = overview.data
  return (
    <div class="overview">
      <ErrorMessage message={overview.error} />
      {glances === undefined ? (
        overview.error ? null : (
          <p class="loading">Loading…</p>
        )
      ) : glances.length === 0 ? (
        <Empty next="Create a project and an environment with the API or the CLI (berth project create), then add services here.">
          This organization has no environment yet.
        </Empty>
      ) : (
        <>
          <Attention organizationId={organization.id} glances={glances} />
          <section class="environments-glance" aria-label="Environments">
            <h2>Environments</h2>
            <ul class="cards">
              {glances.map((glance) => (
                <EnvironmentCard key={glance.environment.id} glance={glance} />
              ))}
            </ul>
          </section>
          <LastDeployments glances={glances} />
        </>
      )}
    </div>
  )
}

function Attention({ organizationId, glances }: { organizationId: string; glances: EnvironmentGlance[] }) {
  // Each source is a hook: the table is fixed, so they are called in the same order every time.
  const found = ATTENTION_SOURCES.map((source) => ({ source, ...source.useItems(organizationId, glances) }))
  const count = found.reduce((sum, { items }) => sum + (items?.length ?? 0), 0)
  return (
    <section class="attention" aria-label="Needs attention" data-count={count}>
      <h2>Needs attention</h2>
      {count === 0 && found.every(({ error }) => !error) ? <p class="all-clear">Nothing failed and nothing is stopped.</p> : null}
      {found.map(({ source, items, error }) =>
        (items?.length ?? 0) > 0 || error ? (
          <div key={source.id} class="attention-source" data-source={source.id}>
            <h3>{source.title}</h3>
            <ErrorMessage message={error} />
            <ul>
              {(items ?? []).map((item) => (
                <li key={item.key}>
                  {item.href ? <a href={item.href}>{item.text}</a> : item.text} <span class="note">{item.where}</span>
                </li>
              ))}
            </ul>
          </div>
        ) : null,
      )}
    </section>
  )
}

function EnvironmentCard({ glance }: { glance: EnvironmentGlance }) {
  const { project, environment, services } = glance
  const failing = services.filter((service) => toneOf(service.state) === 'error').length
  return (
    <li class={`card environment-card tone-${failing > 0 ? 'error' : toneOf(glance.state)}`} data-environment-id={environment.id}>
      <div class="card-head">
        <a href={`#/environment/${environment.id}`} class="card-title">
          {environment.name}
        </a>
        <span class="note">{project.name}</span>
        <StateBadge state={glance.state} />
      </div>
      {services.length === 0 ? (
        <p class="empty">
          No service. <a href={`#/environment/${environment.id}/new`}>Add one</a>
        </p>
      ) : (
        <ul class="service-states">
          {services.map((service) => {
            const href = servicePage(service.type, service.id)
            return (
              <li key={service.id} data-service-id={service.id} data-state={service.state}>
                {href ? <a href={href}>{service.name}</a> : service.name}
                <span class="note kind">{kindOfType(service.type)?.title ?? words(service.type)}</span>
                <StateBadge state={service.state} />
              </li>
            )
          })}
        </ul>
      )}
    </li>
  )
}

function LastDeployments({ glances }: { glances: EnvironmentGlance[] }) {
  const last = lastDeployments(glances, 10)
  return (
    <section class="last-deployments" aria-label="Last deployments">
      <h2>Last deployments</h2>
      {last.length === 0 ? (
        <Empty next="Deploy an environment from its page.">Nothing was deployed yet.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Environment</th>
                <th scope="col">What</th>
                <th scope="col">Status</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {last.map(({ glance, entry }) => {
                const trigger = triggerWords(entry)
                return (
                  <tr key={entry.identifier.execution_id} data-execution-id={entry.identifier.execution_id}>
                    <td>{formatTime(entry.auditing_data.created_at)}</td>
                    <td>
                      <a href={`#/environment/${glance.environment.id}`}>{glance.environment.name}</a> <span class="note">{glance.project.name}</span>
                    </td>
                    <td>{trigger.label}</td>
                    <td>
                      <span class={`badge tone-${trigger.tone}`}>{trigger.status}</span>
                    </td>
                    <td class="note">{entry.auditing_data.triggered_by}</td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
