// One deployment of the history: its trigger, status and who triggered it, its stages as a
// timeline of services, and its logs on demand. The data attributes name what is shown, for the
// end-to-end tests.
import { useState } from 'preact/hooks'
import { formatDuration, isFailed, isUnfinished, toneOf, words } from './format.ts'
import { engineName, servicePage } from './kinds.ts'
import { DeploymentLogs } from './logs.tsx'
import { formatSeconds, useNow } from './polled.ts'
import { dryRunStatus, triggerWords } from './trigger-words.ts'
import { type DeploymentEntry, detailsOf, type ServiceEntry, type Stage } from './types.ts'
import { When } from './ui.tsx'

export function DeploymentCard({
  entry,
  onRollback,
  createdAtOf,
}: {
  entry: DeploymentEntry
  /** When a deployment of the list was made: a rollback names what it restored by it. */
  createdAtOf?: (executionId: string) => string | undefined
  /** Given to DEPLOY and above: a deploy or redeploy that succeeded offers "Roll back to this". */
  onRollback?: ((executionId: string) => Promise<void>) | undefined
}) {
  const [rollbackError, setRollbackError] = useState<string>()
  const [rollingBack, setRollingBack] = useState(false)
  const restorable = onRollback !== undefined && ['DEPLOY', 'RESTART'].includes(entry.trigger_action) && entry.action_status === 'SUCCESS'
  const { auditing_data: audit, identifier } = entry
  const trigger = triggerWords(entry, createdAtOf)
  const tone = trigger.tone
  // The card stays the same element as the history updates it: an open panel stays open, following on.
  const [logsOpen, setLogsOpen] = useState(false)
  return (
    <article
      class={`deployment tone-${tone}${isFailed(entry.status) ? ' failed' : ''}`}
      data-execution-id={entry.identifier.execution_id}
      data-status={entry.status}
      data-action-status={entry.action_status}
      data-trigger={trigger.kind}
    >
      <header>
        <span class={`trigger trigger-${trigger.kind}`} title={entry.trigger_action}>
          {trigger.label}
        </span>
        <span class={`badge tone-${tone}`} data-testid="status" title={entry.status}>
          {trigger.status}
        </span>
        <span class="who">
          by {audit.triggered_by}
          {audit.origin ? <> from {audit.origin}</> : null}
        </span>
        <When at={audit.created_at} />
        <span class="total-duration" title={isUnfinished(entry.action_status) ? 'running for' : 'total duration'}>
          {isUnfinished(entry.action_status) ? <Elapsed since={audit.created_at} /> : formatDuration(entry.total_duration)}
        </span>
        <button
          type="button"
          class="secondary small"
          data-action="logs"
          aria-expanded={logsOpen}
          aria-controls={`logs-${identifier.execution_id}`}
          onClick={() => setLogsOpen((open) => !open)}
        >
          {logsOpen ? 'Hide logs' : 'Logs'}
        </button>
        {restorable ? (
          <button
            type="button"
            class="secondary small"
            data-action="rollback"
            disabled={rollingBack}
            onClick={async () => {
              setRollingBack(true)
              setRollbackError(undefined)
              try {
                await onRollback(identifier.execution_id)
              } catch (failure) {
                setRollbackError(failure instanceof Error ? failure.message : String(failure))
              } finally {
                setRollingBack(false)
              }
            }}
          >
            Roll back to this
          </button>
        ) : null}
      </header>
      {rollbackError ? (
        <p class="error" role="alert">
          {rollbackError}
        </p>
      ) : null}
      {entry.message ? <p class="message">{entry.message}</p> : null}
      {entry.stages.length === 0 ? (
        <p class="hint">No service to deploy.</p>
      ) : (
        <ol class="timeline">
          {entry.stages.map((stage) => (
            <StageView key={stage.name} stage={stage} dryRun={trigger.kind === 'dry-run'} />
          ))}
        </ol>
      )}
      {logsOpen ? (
        <DeploymentLogs environmentId={identifier.environment_id} executionId={identifier.execution_id} running={isUnfinished(entry.action_status)} />
      ) : null}
    </article>
  )
}

function StageView({ stage, dryRun }: { stage: Stage; dryRun: boolean }) {
  // A dry run's stage that ended checked its services: it deployed nothing.
  const checked = dryRun && toneOf(stage.status) === 'success'
  const tone = checked ? 'neutral' : toneOf(stage.status)
  return (
    <li class={`stage tone-${tone}${isFailed(stage.status) ? ' failed' : ''}`} data-stage={stage.name} data-status={stage.status}>
      <div class="stage-head">
        <span class="stage-name">{stage.name}</span>
        <span class={`badge tone-${tone}`}>{checked ? 'checked' : words(stage.status)}</span>
        <span class="duration">{formatDuration(stage.duration)}</span>
      </div>
      <ul class="services">
        {stage.services.map((service) => (
          <ServiceView key={service.identifier.service_id} service={service} dryRun={dryRun} />
        ))}
      </ul>
    </li>
  )
}

function ServiceView({ service, dryRun }: { service: ServiceEntry; dryRun: boolean }) {
  // A dry run deployed nothing: its services read "checked", never "deployed".
  const shown = dryRun ? dryRunStatus(service.status) : { status: words(service.status), tone: toneOf(service.status) }
  const tone = shown.tone
  const details = detailsOf(service)
  const chart = details.repository
  const commit = details.commit
  return (
    <li
      class={`service tone-${tone}${isFailed(service.status) ? ' failed' : ''}`}
      data-service-id={service.identifier.service_id}
      data-status={service.status}
    >
      <a class="service-name" href={servicePage(service.identifier.service_type, service.identifier.service_id)}>
        {service.identifier.name}
      </a>
      <span class={`badge tone-${tone}`} title={`${service.status_details.action} ${service.status_details.status}`}>
        {shown.status}
      </span>
      <span class="duration">{formatDuration(service.total_duration)}</span>
      {chart ? <span class="detail">{`${chart.chart_name} ${chart.chart_version}`}</span> : null}
      {details.database_type ? <span class="detail">{`${engineName(details.database_type)} ${details.version}`}</span> : null}
      {details.image_name ? <span class="detail">{`${dryRun ? 'would deploy ' : ''}${details.image_name}:${details.tag ?? ''}`}</span> : null}
      {commit ? (
        <span class="detail commit" data-commit={commit.git_commit_id} title={commit.message}>
          {`${commit.git_commit_id.slice(0, 7)} ${commit.message.split('\n', 1)[0]} (${commit.author_name})`}
        </span>
      ) : null}
      {service.message ? <p class="message">{service.message}</p> : null}
    </li>
  )
}

/** How long an unfinished deployment has been going, counting up each second. */
export function Elapsed({ since }: { since: string }) {
  const now = useNow()
  return <span data-testid="elapsed">{formatSeconds((now - new Date(since).getTime()) / 1000)}</span>
}
