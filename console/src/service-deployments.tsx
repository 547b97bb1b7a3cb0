// A service's last deployments on its page: when, what (a dry run, a rollback and to which
// execution), how it ended, the version it ran, who, how long; its logs on demand (a dry run's say
// what a deploy would change); and "Roll back to this" on those that deployed successfully.
import { Fragment } from 'preact'
import { useState } from 'preact/hooks'
import { Elapsed } from './deployment-card.tsx'
import { formatDuration, isUnfinished, toneOf, words } from './format.ts'
import { deployedVersion, type KindSpec } from './kinds.ts'
import { DeploymentLogs } from './logs.tsx'
import type { Polled } from './polled.ts'
import { RollbackButton } from './service-actions.tsx'
import type { ServiceTabProps } from './service-tab-props.ts'
import { actionLabel, dryRunStatus, rollbackLabel } from './trigger-words.ts'
import { detailsOf, hasRole, type List, type ServiceEntry } from './types.ts'
import { Empty, ErrorMessage, When } from './ui.tsx'

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

/** What the entry did, in words: `Dry run`, `Rollback to the deploy of Dec 7, 11:30:10`, `Deploy`; and which kind of trigger that is. */
function actionOf(entry: ServiceEntry, dryRun: boolean, entries: ServiceEntry[]): { label: string; kind: 'dry-run' | 'rollback' | 'plain' } {
  if (dryRun) return { label: 'Dry run', kind: 'dry-run' }
  const restores = detailsOf(entry).restores_execution_id
  if (restores) {
    const restored = entries.find((candidate) => candidate.identifier.execution_id === restores)
    return { label: rollbackLabel(restored?.auditing_data.created_at), kind: 'rollback' }
  }
  return { label: actionLabel(entry.status_details.action), kind: 'plain' }
}

export function ServiceDeploymentsTab({ spec, service, history, dryRuns, role, refresh }: ServiceTabProps) {
  return (
    <ServiceDeployments
      spec={spec}
      serviceId={service.id}
      environmentId={service.environment.id}
      history={history}
      dryRuns={dryRuns}
      canDeploy={hasRole(role, 'DEPLOY')}
      onTriggered={refresh}
    />
  )
}

function ServiceDeployments({ spec, serviceId, environmentId, history, dryRuns, canDeploy, onTriggered }: Props) {
  const [open, setOpen] = useState<string>()
  const columns = canDeploy ? 8 : 7
  return (
    <section class="service-deployments panel">
      <h2>Deployments</h2>
      <ErrorMessage message={history.error} />
      {history.data === undefined ? (
        history.error ? null : (
          <p class="loading">Loading…</p>
        )
      ) : history.data.results.length === 0 ? (
        <Empty next="Deploy it from its Overview.">Never deployed.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="data stack">
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
                const action = actionOf(entry, dryRun, history.data!.results)
                const restorable = !dryRun && ['DEPLOY', 'RESTART'].includes(entry.status_details.action) && entry.status_details.status === 'SUCCESS'
                return (
                  <Fragment key={id}>
                    <tr
                      data-execution-id={id}
                      data-status={entry.status_details.status}
                      data-dry-run={String(dryRun)}
                      data-rollback={String(Boolean(detailsOf(entry).restores_execution_id))}
                    >
                      <td data-label="When">
                        <When at={entry.auditing_data.created_at} />
                      </td>
                      <td data-label="Action">
                        <span class={`trigger trigger-${action.kind}`}>{action.label}</span>
                      </td>
                      <td data-label="Status">
                        {dryRun ? (
                          <span class={`badge tone-${dryRunStatus(entry.status).tone}`} title={entry.message ?? entry.status}>
                            {dryRunStatus(entry.status).status}
                          </span>
                        ) : (
                          <span class={`badge tone-${toneOf(entry.status)}`} title={entry.message ?? entry.status}>
                            {words(entry.status)}
                          </span>
                        )}
                      </td>
                      <td data-label="Version" class="wrap version">
                        {dryRun ? `would deploy ${deployedVersion(entry)}` : deployedVersion(entry)}
                      </td>
                      <td data-label="By" class="wrap note">
                        {SCHEDULED_ORIGINS.has(entry.auditing_data.origin ?? '') ? 'schedule' : entry.auditing_data.triggered_by}
                      </td>
                      <td data-label="Took">
                        {isUnfinished(entry.status_details.status) ? (
                          <Elapsed since={entry.auditing_data.created_at} />
                        ) : (
                          formatDuration(entry.total_duration)
                        )}
                      </td>
                      <td data-label="Logs">
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
                        <td data-label="Actions">
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
