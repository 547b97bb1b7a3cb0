import { api } from './api.ts'
import { environmentCrumbs, loadEnvironmentContext } from './environment.tsx'
import { formatDuration, formatTime, toneOf, words } from './format.ts'
import { Breadcrumbs, Show, useLoad } from './pages.tsx'
import type { DatabaseService, ServiceEntry } from './types.ts'

// A database: what it runs and its deployments. Its credentials are not shown: the console reads
// nothing that holds the password.

export function DatabasePage({ databaseId }: { databaseId: string }) {
  const loaded = useLoad(async () => {
    const database = await api.get<DatabaseService>(`/database/${databaseId}`)
    const [context, history] = await Promise.all([
      loadEnvironmentContext(database.environment.id),
      api.get<{ results: ServiceEntry[] }>(`/database/${databaseId}/deploymentHistoryV2?pageSize=20`),
    ])
    return { database, context, history: history.results }
  }, databaseId)
  return (
    <Show loaded={loaded}>
      {({ database, context, history }) => (
        <>
          <Breadcrumbs items={environmentCrumbs(context, { label: database.name })} />
          <header class="page-head">
            <h2>{database.name}</h2>
            <span class="role" title="your role in this organization">
              {context.role}
            </span>
          </header>
          <section class="database">
            <dl>
              <dt>Type</dt>
              <dd>{`${database.type} ${database.version}`}</dd>
              <dt>Mode</dt>
              <dd>{database.mode === 'MANAGED' ? `managed (${database.instance_type})` : 'container'}</dd>
              <dt>Host</dt>
              <dd>{`${database.host}:${database.port} (${database.accessibility.toLowerCase()})`}</dd>
              <dt>Resources</dt>
              <dd>{`${database.cpu}m CPU, ${database.memory} MB memory, ${database.storage} GB storage`}</dd>
            </dl>
          </section>
          <section class="history">
            <h3>Deployments</h3>
            {history.length === 0 ? (
              <p class="empty">Never deployed.</p>
            ) : (
              <ul class="services">
                {history.map((entry) => (
                  <li key={entry.identifier.execution_id} class={`service tone-${toneOf(entry.status)}`} data-status={entry.status}>
                    <span class="service-name">{formatTime(entry.auditing_data.created_at)}</span>
                    <span class={`badge tone-${toneOf(entry.status)}`} title={`${entry.status_details.action} ${entry.status_details.status}`}>
                      {words(entry.status)}
                    </span>
                    <span class="duration">{formatDuration(entry.total_duration)}</span>
                    <span class="detail">{`${entry.details.database_type ?? ''} ${entry.details.version ?? ''}`}</span>
                    {entry.message ? <p class="message">{entry.message}</p> : null}
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
