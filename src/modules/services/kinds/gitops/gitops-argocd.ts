import { setTimeout as sleep } from 'node:timers/promises'
import { withArgoCdTables } from '#src/modules/argocd/argocd.tables.ts'
import { type ArgoCdApplication, ArgoCdCallError, createArgoCdApi } from '#src/modules/argocd/argocd-api.ts'
import type { ServiceOutcome } from '#src/modules/executors/executor.ts'
import type { ExternalContext } from '#src/modules/executors/workload.ts'
import type { GitOpsConfig, GitOpsOverrides } from './gitops.types.ts'

// What a GITOPS_APP's deployment does: it asks the application's Argo CD (docs/argocd.md). A deploy
// or redeploy syncs (at a revision), a dry run syncs with dryRun (Argo CD's diff), a rollback of
// Berth's history rolls back to that entry's Argo CD history id, and a sync Argo CD performed
// itself (queued by the poller, origin GIT) is only recorded. Argo CD's messages are the logs.

/** How long a runner waits for Argo CD to finish an operation it asked for. */
const OPERATION_WAIT_MS = 10 * 60_000
const CALL_TIMEOUT_MS = 30_000
const TERMINAL = new Set(['Succeeded', 'Failed', 'Error'])

export interface GitOpsAction {
  configuration: GitOpsConfig
  overrides: GitOpsOverrides
  serviceId: string
}

/** Argo CD's operation outcome as log lines and the service's outcome. */
function outcomeOf(context: ExternalContext, step: string, application: ArgoCdApplication): ServiceOutcome {
  const operation = application.status?.operationState
  for (const resource of operation?.syncResult?.resources ?? []) {
    context.log(
      step,
      `${resource.kind ?? '?'}/${resource.name ?? '?'}${resource.namespace ? ` in ${resource.namespace}` : ''}: ${resource.status ?? ''} ${resource.message ?? ''}`.trim(),
    )
  }
  const phase = operation?.phase ?? 'Unknown'
  const message = operation?.message ?? ''
  context.log(step, `Argo CD: ${phase}${message ? `: ${message}` : ''}`, phase === 'Succeeded' ? 'INFO' : 'ERROR')
  const revision = operation?.syncResult?.revision ?? application.status?.sync?.revision
  const details = revision ? { git_commit_id: revision } : undefined
  return phase === 'Succeeded'
    ? { ok: true, ...(details ? { details } : {}) }
    : { ok: false, message: `Argo CD's operation ended ${phase}${message ? `: ${message}` : ''}` }
}

export async function performGitOpsAction(action: GitOpsAction, context: ExternalContext): Promise<ServiceOutcome> {
  const db = withArgoCdTables(context.db)
  const found = await db
    .selectFrom('argocdApps as a')
    .innerJoin('argocdCredentials as c', 'c.id', 'a.credentialsId')
    .select(['a.name', 'c.argocdUrl', 'c.tokenSealed', 'c.privateAllowed'])
    .where('a.serviceId', '=', action.serviceId)
    .executeTakeFirst()
  if (context.action === 'UNINSTALL' || context.action === 'DELETE') {
    context.log('Delete', 'Argo CD keeps the application: Berth forgets its service, which the next poll brings back while its destination is mapped')
    return { ok: true }
  }
  if (context.action === 'STOP') return { ok: false, message: 'Argo CD owns this application: stop it in Argo CD' }
  if (!found) return { ok: false, message: "the application's Argo CD is no longer registered (its credentials were deleted)" }
  const api = createArgoCdApi({ allowPrivateUrls: found.privateAllowed, timeoutMs: CALL_TIMEOUT_MS })
  const instance = { url: found.argocdUrl, token: context.secrets.open(found.tokenSealed) }
  const name = action.configuration.application
  const observed = action.overrides.argocd_observed
  try {
    if (observed) {
      const request = await context.db.selectFrom('deploymentRequests').select('origin').where('id', '=', context.run.id).executeTakeFirst()
      if (request?.origin === 'GIT') {
        // Argo CD did it: the entry says what and who.
        context.log(
          'Sync',
          `Argo CD synced ${name} to ${observed.revision} (its history id ${observed.history_id}), initiated by ${observed.initiated_by}`,
        )
        if (observed.message) context.log('Sync', `Argo CD: ${observed.phase ?? ''}: ${observed.message}`)
        const failed = observed.phase === 'Failed' || observed.phase === 'Error'
        return failed
          ? { ok: false, message: `Argo CD's sync ended ${observed.phase}: ${observed.message ?? ''}` }
          : { ok: true, details: { git_commit_id: observed.revision } }
      }
      // Berth's rollback to a deployment Argo CD had made: Argo CD rolls back to that history id.
      context.log('Rollback', `asking Argo CD to roll ${name} back to its history id ${observed.history_id} (${observed.revision})`)
      await api.rollback(instance, name, { id: observed.history_id })
      return outcomeOf(context, 'Rollback', await finished(api, instance, name, context))
    }
    if (context.action === 'DEPLOY_DRY_RUN') {
      context.log('Diff', `asking Argo CD for a dry run of ${name}${action.overrides.revision ? ` at ${action.overrides.revision}` : ''}`)
      const after = await api.sync(instance, name, { dryRun: true, ...(action.overrides.revision ? { revision: action.overrides.revision } : {}) })
      for (const resource of await api.managedResources(instance, name)) {
        if (resource.modified) context.log('Diff', `${resource.kind}/${resource.name}: differs from its target state`)
      }
      return outcomeOf(context, 'Diff', after.status?.operationState?.phase ? after : await finished(api, instance, name, context))
    }
    const revision = context.action === 'DEPLOY' ? action.overrides.revision : undefined
    context.log('Sync', `asking Argo CD to sync ${name}${revision ? ` to ${revision}` : ''}`)
    await api.sync(instance, name, revision ? { revision } : {})
    return outcomeOf(context, 'Sync', await finished(api, instance, name, context))
  } catch (error) {
    if (!(error instanceof ArgoCdCallError)) throw error
    return { ok: false, message: error.message }
  } finally {
    await api.close()
  }
}

/** The application once its operation ended (Argo CD runs it after answering the request). */
async function finished(api: ReturnType<typeof createArgoCdApi>, instance: { url: string; token: string }, name: string, context: ExternalContext) {
  const deadline = Date.now() + OPERATION_WAIT_MS
  for (;;) {
    const application = await api.getApplication(instance, name)
    const phase = application.status?.operationState?.phase
    if ((phase && TERMINAL.has(phase)) || Date.now() > deadline) return application
    await sleep(2_000, undefined, { signal: context.signal })
  }
}
