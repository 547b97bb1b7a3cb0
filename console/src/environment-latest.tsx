// The newest deployment of an environment, in one line at the top of its Services tab, with a link
// to its Deployments tab: what happened last is seen without looking for it.
import { usePolledPath } from './polled.ts'
import { servicesIn, triggerWords } from './trigger-words.ts'
import type { HistoryPage } from './types.ts'
import { When } from './ui.tsx'

const POLL_MS = 2000

export function LatestDeployment({ environmentId }: { environmentId: string }) {
  const newest = usePolledPath<HistoryPage>(`/environment/${environmentId}/deploymentHistoryV2?pageSize=1`, POLL_MS)
  const entry = newest.data?.results[0]
  if (!entry) return null
  const trigger = triggerWords(entry)
  const services = servicesIn(entry)
  return (
    <p class="latest-deployment" data-execution-id={entry.identifier.execution_id} data-trigger={trigger.kind}>
      <span class="label">Last deployment</span>
      <span class={`trigger trigger-${trigger.kind}`}>{trigger.label}</span>
      {services ? <span class="wrap">{services}</span> : null}
      <span class={`badge tone-${trigger.tone}`}>{trigger.status}</span>
      <span class="note">
        <When at={entry.auditing_data.created_at} /> by {entry.auditing_data.triggered_by}
      </span>
      <a href={`#/environment/${environmentId}/deployments`} class="more">
        All deployments
      </a>
    </p>
  )
}
