import type { Principal } from '#src/platform/auth/principal.ts'
import type { RunnableTrigger } from '#src/platform/deployment-states.ts'
import { AppError, type FieldError, validationFailed } from '#src/platform/http/errors.ts'
import { includes } from '../../queue/deployment-rows.ts'
import type { EnvironmentStatusRecord, StatusRecord } from './deployment-statuses.ts'
import { isStopped, type RunEnqueueing } from './run-enqueueing.ts'
import { environmentStatusOf } from './status-reads.ts'
import type { DeploymentTriggersDeps, Selected, SelectionItem, Target } from './trigger-deps.ts'

// Triggers of a selection of an environment's services that a bulk request names (deploy, restart,
// stop, uninstall, delete), each service with its overrides checked.

export type SelectionTriggersDeps = Pick<
  DeploymentTriggersDeps,
  'statuses' | 'kinds' | 'environments' | 'listServices' | 'listServiceSummaries' | 'users'
>

/** "a helm", "an application". */
const article = (noun: string) => `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`

export function createSelectionTriggers(deps: SelectionTriggersDeps, { enqueue, kindOf }: RunEnqueueing) {
  const { statuses, kinds } = deps

  /**
   * The services a bulk request names, each a service of the environment of the kind it is named
   * as, with its overrides checked: every error of the request at once.
   */
  async function selection(environment: Target, items: SelectionItem[]): Promise<Selected[]> {
    if (items.length === 0) throw validationFailed([{ path: '', message: 'names no service', location: 'body' }])
    const byId = new Map((await deps.listServices(environment.organizationId, environment.id)).map((service) => [service.id, service]))
    const errors: FieldError[] = []
    const selected = new Map<string, Selected>()
    for (const item of items) {
      const service = byId.get(item.id)
      if (!service || service.kind !== item.type) {
        errors.push({
          path: item.path,
          message: `is not ${article(kinds.get(item.type)?.noun ?? item.type.toLowerCase())} service of this environment`,
          location: 'body',
        })
        continue
      }
      const overrideErrors = kindOf(service.kind).overrideErrors(service.configuration, item.overrides)
      const itemPath = item.path.replace(/\/(id|application_id)$/, '')
      errors.push(...overrideErrors.map((error) => ({ ...error, path: `${itemPath}${error.path}` })))
      selected.set(service.id, { service, overrides: item.overrides, path: itemPath })
    }
    if (errors.length > 0) throw validationFailed(errors)
    return [...selected.values()]
  }

  /** Queues one run of the selected services of the environment. */
  async function triggerSelection(principal: Principal, environmentId: string, trigger: RunnableTrigger, items: SelectionItem[]) {
    // Deleting services takes them away for good: the role that may delete them (WRITE), not only deploy them.
    const { environment } = await deps.environments.requireEnvironment(principal, environmentId, trigger === 'DELETE' ? 'WRITE' : 'DEPLOY')
    const selected = await selection(environment, items)
    const triggeredBy = await deps.users.actorName(principal)
    const serviceId = selected.length === 1 ? selected[0]!.service.id : null
    const queued = await enqueue(environment, { serviceId, trigger, selected }, triggeredBy, async (queue, unfinished) => {
      if (trigger !== 'STOP') return undefined
      const services = selected.map(({ service }) => service)
      const pending = unfinished.some((run) => services.some((service) => includes(run, service.id)))
      return !pending && (await isStopped(queue, services)) ? new AppError('conflict', 'every selected service is already stopped') : undefined
    })
    return { environment, ...queued }
  }

  return {
    /** deployAllServices: deploys the selection, each service with its overrides. */
    async deploySelected(principal: Principal, environmentId: string, items: SelectionItem[]): Promise<EnvironmentStatusRecord> {
      const { environment } = await triggerSelection(principal, environmentId, 'DEPLOY', items)
      return environmentStatusOf(deps, environment)
    },

    /** rebootServices: restarts the selection; answers the environment's Status as of the trigger. */
    async restartSelected(principal: Principal, environmentId: string, items: SelectionItem[]): Promise<StatusRecord> {
      const { environment, run, unfinished } = await triggerSelection(principal, environmentId, 'RESTART', items)
      const services = await deps.listServiceSummaries(environment.organizationId, environment.id)
      return statuses.queuedStatus(environment.id, run, unfinished.length, await statuses.deploymentStatus(services, environment.id))
    },

    /** stopSelectedServices, uninstallSelectedServices, deleteSelectedServices. */
    async triggerSelected(
      principal: Principal,
      environmentId: string,
      trigger: 'STOP' | 'UNINSTALL' | 'DELETE',
      items: SelectionItem[],
    ): Promise<EnvironmentStatusRecord> {
      const { environment } = await triggerSelection(principal, environmentId, trigger, items)
      return environmentStatusOf(deps, environment)
    },
  }
}
