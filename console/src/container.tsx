import { api } from './api.ts'
import { environmentCrumbs, loadEnvironmentContext } from './environment.tsx'
import { formatTime, toneOf, words } from './format.ts'
import { Breadcrumbs, Show, useLoad } from './pages.tsx'
import type { ContainerService, ServiceEntry } from './types.ts'
import { VariablesPanel } from './variables.tsx'

/** A container: what it runs, and its own deployments (the image and tag each deployed). */
export function ContainerPage({ containerId }: { containerId: string }) {
  const loaded = useLoad(async () => {
    const container = await api.get<ContainerService>(`/container/${containerId}`)
    const [context, history] = await Promise.all([
      loadEnvironmentContext(container.environment.id),
      api.get<{ results: ServiceEntry[] }>(`/container/${containerId}/deploymentHistoryV2?pageSize=20`),
    ])
    return { container, context, history: history.results }
  }, containerId)
  return (
    <Show loaded={loaded}>
      {({ container, context, history }) => (
        <>
          <Breadcrumbs items={environmentCrumbs(context, { label: container.name })} />
          <header class="page-head">
            <h2>{container.name}</h2>
            <span class="role" title="your role in this organization">
              {context.role}
            </span>
          </header>
          <section class="container-summary">
            <dl>
              <dt>Image</dt>
              <dd>{`${container.image_name}:${container.tag}`}</dd>
              <dt>Registry</dt>
              <dd>{`${container.registry.name} (${container.registry.kind}, ${container.registry.url})`}</dd>
              <dt>Resources</dt>
              <dd>{`${container.cpu}m cpu, ${container.memory} MB, ${container.min_running_instances}-${container.max_running_instances} instance(s)`}</dd>
              <dt>Ports</dt>
              <dd>
                {container.ports.length === 0
                  ? 'none'
                  : container.ports.map((port) => `${port.internal_port}/${port.protocol}${port.publicly_accessible ? ' public' : ''}`).join(', ')}
              </dd>
            </dl>
          </section>
          <section class="container-history">
            <h3>Deployments</h3>
            {history.length === 0 ? (
              <p class="empty">Never deployed.</p>
            ) : (
              <ul class="services">
                {history.map((entry) => (
                  <li key={entry.identifier.execution_id} class={`service tone-${toneOf(entry.status)}`} data-status={entry.status}>
                    <span class={`badge tone-${toneOf(entry.status)}`}>{words(entry.status)}</span>
                    <span class="detail">{`${entry.details.image_name ?? container.image_name}:${entry.details.tag ?? ''}`}</span>
                    <span class="duration">{formatTime(entry.auditing_data.created_at)}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <VariablesPanel scope="CONTAINER" parentId={container.id} role={context.role} />
        </>
      )}
    </Show>
  )
}
