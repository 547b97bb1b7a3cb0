import { api } from './api.ts'
import { environmentCrumbs, loadEnvironmentContext } from './environment.tsx'
import { formatDuration, formatTime, toneOf, words } from './format.ts'
import { Breadcrumbs, Show, useLoad } from './pages.tsx'
import type { JobService, ServiceHistoryPage } from './types.ts'

/** The origin of the runs a schedule starts, in the contract's word and the reference's (BERTH_ENUM_WORDS, docs/enum-words.md). */
const SCHEDULED_ORIGINS = new Set(['PLATFORM_INTERNAL', 'QOVERY_INTERNAL'])

/** What a job runs and when, in a line. */
export function jobSummary(job: JobService): string {
  const image = 'image' in job.source ? `${job.source.image.image_name}:${job.source.image.tag}` : 'built from git'
  const cron = job.schedule.cronjob
  if (cron) return `cron "${cron.scheduled_at}" (${cron.timezone}), ${image}`
  const events = (['on_start', 'on_stop', 'on_delete'] as const).filter((event) => job.schedule[event])
  return `lifecycle ${events.join(', ')}, ${image}`
}

/** A job: what it runs and when, and its own deployment history (its runs, scheduled ones included). */
export function JobPage({ jobId }: { jobId: string }) {
  const loaded = useLoad(async () => {
    const job = await api.get<JobService>(`/job/${jobId}`)
    const [context, history] = await Promise.all([
      loadEnvironmentContext(job.environment.id),
      api.get<ServiceHistoryPage>(`/job/${jobId}/deploymentHistoryV2?pageSize=50`),
    ])
    return { job, context, history }
  }, jobId)
  return (
    <Show loaded={loaded}>
      {({ job, context, history }) => (
        <>
          <Breadcrumbs items={environmentCrumbs(context, { label: job.name })} />
          <header class="page-head">
            <h2>{job.name}</h2>
            <span class="role" title="your role in this organization">
              {context.role}
            </span>
          </header>
          <p class="note">{jobSummary(job)}</p>
          <section class="job-history">
            <h3>Runs and deployments</h3>
            {history.results.length === 0 ? (
              <p class="empty">Never deployed.</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th>When</th>
                    <th>Status</th>
                    <th>By</th>
                    <th>Took</th>
                  </tr>
                </thead>
                <tbody>
                  {history.results.map((entry) => (
                    <tr key={entry.identifier.execution_id}>
                      <td>{formatTime(entry.auditing_data.created_at)}</td>
                      <td class={`tone-${toneOf(entry.status)}`}>{words(entry.status)}</td>
                      <td>{SCHEDULED_ORIGINS.has(entry.auditing_data.origin ?? '') ? 'schedule' : entry.auditing_data.triggered_by}</td>
                      <td>{formatDuration(entry.total_duration)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
    </Show>
  )
}
