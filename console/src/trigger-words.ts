// What a deployment did, in true words: a dry run checked and deployed nothing, a rollback deployed
// an earlier deployment's snapshot again. The API's words otherwise. No DOM here.
import { formatTime, type Tone, toneOf, words } from './format.ts'
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

/** An action of the API (`DEPLOY`, `RESTART`…) as a button would say it. */
export const actionLabel = (action: string) => LABELS[action] ?? words(action)

/** What a rollback restored, by the time of the deployment it deployed again (execution ids mean nothing to a reader). */
export const rollbackLabel = (restoredAt: string | undefined) =>
  `Rollback to ${restoredAt ? `the deploy of ${formatTime(restoredAt)}` : 'an earlier deploy'}`

/**
 * The trigger's label, and the status as it reads (and its colour). `createdAtOf` tells when a
 * deployment the reader has in view was made, for naming what a rollback restored.
 */
export function triggerWords(
  entry: DeploymentEntry,
  createdAtOf: (executionId: string) => string | undefined = () => undefined,
): { label: string; status: string; tone: Tone; kind: 'dry-run' | 'rollback' | 'plain' } {
  if (isDryRun(entry)) return { label: 'Dry run', ...dryRunStatus(entry.status), kind: 'dry-run' }
  const restores = restoredExecution(entry)
  const status = { status: words(entry.status), tone: toneOf(entry.status) }
  if (restores) return { label: rollbackLabel(createdAtOf(restores)), ...status, kind: 'rollback' }
  return { label: actionLabel(entry.trigger_action), ...status, kind: 'plain' }
}

/** The services a deployment covers, in a few words: `api`, `api and web`, `api, web and 3 more`; empty when none. */
export function servicesIn(entry: DeploymentEntry): string {
  const names = entry.stages.flatMap((stage) => stage.services.map((service) => service.identifier.name))
  if (names.length <= 2) return names.join(' and ')
  return `${names.slice(0, 2).join(', ')} and ${names.length - 2} more`
}
