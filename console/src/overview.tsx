// An organization at a glance: what needs attention, every environment with its services' live
// states (those failing first), and the last deployments across the organization.
import { ATTENTION_SOURCES } from './attention.tsx'
import { toneOf, words } from './format.ts'
import { kindOfType, servicePage } from './kinds.ts'
import type { OrganizationPageProps } from './organization-page-props.ts'
import { type EnvironmentGlance, lastDeployments, loadOverview } from './overview-data.ts'
import { usePolled } from './polled.ts'
import { servicesIn, triggerWords } from './trigger-words.ts'
import { Empty, ErrorMessage, StateBadge, When } from './ui.tsx'

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
          <Stats glances={glances} />
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

/** The organization in numbers: how many environments and services, and how many of them fail, run a deployment or are stopped. */
function Stats({ glances }: { glances: EnvironmentGlance[] }) {
  const services = glances.flatMap((glance) => glance.services)
  const count = (tone: string) => services.filter((service) => toneOf(service.state) === tone).length
  const stopped = services.filter((service) => service.state === 'STOPPED').length
  const figures = [
    { id: 'environments', label: glances.length === 1 ? 'environment' : 'environments', value: glances.length, tone: 'neutral' },
    { id: 'services', label: services.length === 1 ? 'service' : 'services', value: services.length, tone: 'neutral' },
    { id: 'failing', label: 'failing', value: count('error'), tone: count('error') > 0 ? 'error' : 'neutral' },
    { id: 'deploying', label: 'deploying', value: count('running') + count('queued'), tone: 'neutral' },
    { id: 'stopped', label: 'stopped', value: stopped, tone: stopped > 0 ? 'canceled' : 'neutral' },
  ]
  return (
    <ul class="stats" aria-label="At a glance">
      {figures.map((figure) => (
        <li key={figure.id} class={`tone-${figure.tone}`} data-figure={figure.id}>
          <span class="value">{figure.value}</span>
          <span class="note">{figure.label}</span>
        </li>
      ))}
    </ul>
  )
}

function Attention({ organizationId, glances }: { organizationId: string; glances: EnvironmentGlance[] }) {
  // Each source is a hook: the table is fixed, so they are called in the same order every time.
  const found = ATTENTION_SOURCES.map((source) => ({ source, ...source.useItems(organizationId, glances) }))
  const count = found.reduce((sum, { items }) => sum + (items?.length ?? 0), 0)
  return (
    <section class={`attention panel${count > 0 ? ' tone-error' : ''}`} aria-label="Needs attention" data-count={count}>
      <h2>Needs attention {count > 0 ? <span class="count">{count}</span> : null}</h2>
      {count === 0 && found.every(({ error }) => !error) ? <p class="all-clear">Nothing failed and nothing is stopped.</p> : null}
      {found.map(({ source, items, error }) =>
        (items?.length ?? 0) > 0 || error ? (
          <div key={source.id} class="attention-source" data-source={source.id}>
            <h3>{source.title}</h3>
            <ErrorMessage message={error} />
            <ul class="attention-items">
              {(items ?? []).map((item) => (
                <li key={item.key}>
                  {item.badge ? <span class={`badge tone-${item.badge.tone}`}>{item.badge.text}</span> : null}
                  {item.href ? <a href={item.href}>{item.text}</a> : <span>{item.text}</span>}
                  <span class="note">{item.where}</span>
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
  const createdAt = new Map(
    glances.flatMap((glance) => glance.deployments.map((entry) => [entry.identifier.execution_id, entry.auditing_data.created_at])),
  )
  return (
    <section class="last-deployments panel" aria-label="Last deployments">
      <h2>Last deployments</h2>
      {last.length === 0 ? (
        <Empty next="Deploy an environment from its page.">Nothing was deployed yet.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="data stack">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">What</th>
                <th scope="col">Environment</th>
                <th scope="col">Status</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {last.map(({ glance, entry }) => {
                const trigger = triggerWords(entry, (id) => createdAt.get(id))
                const services = servicesIn(entry)
                return (
                  <tr key={entry.identifier.execution_id} data-execution-id={entry.identifier.execution_id} data-trigger={trigger.kind}>
                    <td data-label="When">
                      <When at={entry.auditing_data.created_at} />
                    </td>
                    <td data-label="What" class="wrap">
                      <span class={`trigger trigger-${trigger.kind}`}>{trigger.label}</span>
                      {services ? <span class="note">{services}</span> : null}
                    </td>
                    <td data-label="Where" class="wrap">
                      <a href={`#/environment/${glance.environment.id}/deployments`}>{glance.environment.name}</a>
                      <span class="note">{glance.project.name}</span>
                    </td>
                    <td data-label="Status">
                      <span class={`badge tone-${trigger.tone}`}>{trigger.status}</span>
                    </td>
                    <td data-label="By" class="note wrap">
                      {entry.auditing_data.triggered_by}
                    </td>
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
