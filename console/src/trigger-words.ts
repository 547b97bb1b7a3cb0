// What a deployment did, in true words: a dry run checked and deployed nothing, a rollback deployed
// an earlier deployment's snapshot again. The API's words otherwise. No DOM here.
import { type Tone, toneOf, words } from './format.ts'
import { type DeploymentEntry, detailsOf } from './types.ts'

/** The execution a rollback restores, from its services' details (a Berth extension), if it is one. */
export function restoredExecution(entry: DeploymentEntry): string | undefined {
  for (const stage of entry.stages)
    for (const service of stage.services) if (detailsOf(service).restores_execution_id) return detailsOf(service).restores_execution_id
  return undefined
}

export const isDryRun = (entry: Pick<DeploymentEntry, 'trigger_action'>) => entry.trigger_action === 'DEPLOY_DRY_RUN'

/** How a status reads for a dry run: it deployed nothing, whatever the state word says. */
export function dryRunStatus(status: string): { status: string; tone: Tone } {
  const tone = toneOf(status)
  if (tone === 'success') return { status: 'checked, nothing deployed', tone: 'neutral' }
  return { status: `dry run ${words(status)}`, tone }
}

const LABELS: Record<string, string> = { DEPLOY: 'Deploy', RESTART: 'Redeploy', STOP: 'Stop', DELETE: 'Delete', UNINSTALL: 'Uninstall' }

/** The trigger's label, and the status as it reads (and its colour). */
export function triggerWords(entry: DeploymentEntry): { label: string; status: string; tone: Tone; kind: 'dry-run' | 'rollback' | 'plain' } {
  if (isDryRun(entry)) return { label: 'Dry run', ...dryRunStatus(entry.status), kind: 'dry-run' }
  const restores = restoredExecution(entry)
  const status = { status: words(entry.status), tone: toneOf(entry.status) }
  if (restores) return { label: `Rollback to ${restores.slice(0, 8)}`, ...status, kind: 'rollback' }
  return { label: LABELS[entry.trigger_action] ?? words(entry.trigger_action), ...status, kind: 'plain' }
}
