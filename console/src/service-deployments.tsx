// A service's last deployments on its page: when, what (a dry run, a rollback and to which
// execution), how it ended, the version it ran, who, how long; its logs on demand (a dry run's say
// what a deploy would change); and "Roll back to this" on those that deployed successfully.
import { Fragment } from 'preact'
import { useState } from 'preact/hooks'
import { Elapsed } from './deployment-card.tsx'
import { formatDuration, formatTime, isUnfinished, toneOf, words } from './format.ts'
import { deployedVersion, type KindSpec } from './kinds.ts'
import { DeploymentLogs } from './logs.tsx'
import { ErrorMessage } from './pages.tsx'
import type { Polled } from './polled.ts'
import { RollbackButton } from './service-actions.tsx'
import type { List, ServiceEntry } from './types.ts'

/** The origin of the runs a schedule starts, in the contract's word and the reference's (BERTH_ENUM_WORDS, docs/enum-words.md). */
const SCHEDULED_ORIGINS = new Set(['PLATFORM_INTERNAL', 'QOVERY_INTERNAL'])

interface Props {
  spec: KindSpec
  serviceId: string
  environmentId: string
  history: Polled<List<ServiceEntry>>
  dryRuns: Set<string> | undefined
  canDeploy: boolean
  onTriggered: () => void
}

/** What the entry did, in words: `dry run`, `rollback to 1a2b3c4`, `deploy`. */
function actionOf(entry: ServiceEntry, dryRun: boolean): string {
  if (dryRun) return 'dry run'
  const restores = (entry.details as { restores_execution_id?: string }).restores_execution_id
  if (restores) return `rollback to ${restores.slice(0, 8)}`
  return words(entry.status_details.action)
}

export function ServiceDeployments({ spec, serviceId, environmentId, history, dryRuns, canDeploy, onTriggered }: Props) {
  const [open, setOpen] = useState<string>()
  const columns = canDeploy ? 8 : 7
  return (
    <section class="service-deployments">
      <h3>Last deployments</h3>
      <ErrorMessage message={history.error} />
      {history.data === undefined ? (
        history.error ? null : (
          <p class="loading">Loading…</p>
        )
      ) : history.data.results.length === 0 ? (
        <p class="empty">Never deployed.</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Status</th>
                <th scope="col">Version</th>
                <th scope="col">By</th>
                <th scope="col">Took</th>
                <th scope="col">Logs</th>
                {canDeploy ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {history.data.results.map((entry) => {
                const id = entry.identifier.execution_id ?? ''
                const dryRun = dryRuns?.has(id) ?? false
                const restorable = !dryRun && ['DEPLOY', 'RESTART'].includes(entry.status_details.action) && entry.status_details.status === 'SUCCESS'
                return (
                  <Fragment key={id}>
                    <tr data-execution-id={id} data-status={entry.status_details.status} data-dry-run={String(dryRun)}>
                      <td>{formatTime(entry.auditing_data.created_at)}</td>
                      <td>{actionOf(entry, dryRun)}</td>
                      <td>
                        <span class={`badge tone-${toneOf(entry.status)}`} title={entry.message ?? entry.status}>
                          {dryRun && entry.status_details.status === 'SUCCESS' ? 'checked' : words(entry.status)}
                        </span>
                      </td>
                      <td class="wrap version">{deployedVersion(entry)}</td>
                      <td class="wrap">{SCHEDULED_ORIGINS.has(entry.auditing_data.origin ?? '') ? 'schedule' : entry.auditing_data.triggered_by}</td>
                      <td>
                        {isUnfinished(entry.status_details.status) ? (
                          <Elapsed since={entry.auditing_data.created_at} />
                        ) : (
                          formatDuration(entry.total_duration)
                        )}
                      </td>
                      <td>
                        <button
                          type="button"
                          class="secondary small"
                          data-action="logs"
                          aria-expanded={open === id}
                          onClick={() => setOpen(open === id ? undefined : id)}
                        >
                          {open === id ? 'Hide' : 'Logs'}
                        </button>
                      </td>
                      {canDeploy ? (
                        <td>
                          {restorable && id ? <RollbackButton spec={spec} serviceId={serviceId} executionId={id} onTriggered={onTriggered} /> : null}
                        </td>
                      ) : null}
                    </tr>
                    {open === id ? (
                      <tr class="logs-row">
                        <td colSpan={columns}>
                          {entry.message ? <p class="message">{entry.message}</p> : null}
                          <DeploymentLogs environmentId={environmentId} executionId={id} running={isUnfinished(entry.status_details.status)} />
                        </td>
                      </tr>
                    ) : null}
                  </Fragment>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
