// The words of the contract's section 3 and how a deployment moves through them (docs/architecture.md).

import type { ServiceType } from './service-types.ts'

export { SERVICE_TYPES, type ServiceType, STAGE_ORDER } from './service-types.ts'

export const STATES = [
  'BUILDING',
  'BUILD_ERROR',
  'CANCELED',
  'CANCELING',
  'DELETED',
  'DELETE_ERROR',
  'DELETE_QUEUED',
  'DELETING',
  'DEPLOYED',
  'DEPLOYING',
  'DEPLOYMENT_ERROR',
  'DEPLOYMENT_QUEUED',
  'EXECUTING',
  'QUEUED',
  'READY',
  'RECAP',
  'RESTARTED',
  'RESTARTING',
  'RESTART_ERROR',
  'RESTART_QUEUED',
  'STOPPED',
  'STOPPING',
  'STOP_ERROR',
  'STOP_QUEUED',
  'UNAVAILABLE',
  'WAITING_DELETING',
  'WAITING_RESTARTING',
  'WAITING_RUNNING',
  'WAITING_STOPPING',
] as const
export type State = (typeof STATES)[number]

export const TRIGGER_ACTIONS = [
  'DEPLOY',
  'DELETE',
  'RESTART',
  'STOP',
  'DEPLOY_DRY_RUN',
  'IAC_FORCE_UNLOCK',
  'IAC_MIGRATE_STATE',
  'DELETE_RESOURCES_ONLY',
  'UNKNOWN',
  'UNINSTALL',
] as const
export type TriggerAction = (typeof TRIGGER_ACTIONS)[number]

export const ACTION_STATUSES = ['QUEUED', 'ONGOING', 'SUCCESS', 'ERROR', 'CANCELED', 'CANCELING', 'NEVER'] as const
export type ActionStatus = (typeof ACTION_STATUSES)[number]
/** The request states a runner still has work in. */
export const UNFINISHED: readonly ActionStatus[] = ['QUEUED', 'ONGOING', 'CANCELING']

export const STAGE_STATUSES = ['QUEUED', 'ONGOING', 'DONE', 'ERROR', 'SKIPPED', 'CANCELED'] as const
export type StageStatus = (typeof STAGE_STATUSES)[number]

export const SERVICE_ACTIONS = ['DEPLOY', 'DELETE', 'RESTART', 'STOP', 'UNKNOWN'] as const
export type ServiceAction = (typeof SERVICE_ACTIONS)[number]

export const SERVICE_ACTION_STATUSES = ['QUEUED', 'ONGOING', 'SUCCESS', 'ERROR', 'EXECUTING', 'CANCELED', 'CANCELING', 'NEVER'] as const
export type ServiceActionStatus = (typeof SERVICE_ACTION_STATUSES)[number]

/** What an infrastructure-as-code service's part of a deployment runs (contract: ServiceSubActionEnum); NONE for every other kind. */
export const SERVICE_SUB_ACTIONS = [
  'NONE',
  'IAC_PLAN_ONLY',
  'IAC_PLAN_AND_APPLY',
  'IAC_DESTROY',
  'IAC_FORCE_UNLOCK_STATE',
  'IAC_MIGRATE_STATE',
] as const
export type ServiceSubAction = (typeof SERVICE_SUB_ACTIONS)[number]

/**
 * The trigger action a deployment's entry shows: IAC_FORCE_UNLOCK and IAC_MIGRATE_STATE when every
 * service of it runs that sub-action (a deploy of an IAC service with that `action`), else the trigger.
 */
export function shownTriggerAction(trigger: RunnableTrigger, subActions: readonly ServiceSubAction[]): TriggerAction {
  if (subActions.length > 0 && subActions.every((sub) => sub === 'IAC_FORCE_UNLOCK_STATE')) return 'IAC_FORCE_UNLOCK'
  if (subActions.length > 0 && subActions.every((sub) => sub === 'IAC_MIGRATE_STATE')) return 'IAC_MIGRATE_STATE'
  return trigger
}

export const ORIGINS = ['API', 'CLI', 'CONSOLE', 'GIT', 'PLATFORM_INTERNAL', 'IAC_PROVIDER'] as const
export type Origin = (typeof ORIGINS)[number]

/** The triggers Berth runs: what each does to services and the state words it goes through. */
export type RunnableTrigger = 'DEPLOY' | 'DEPLOY_DRY_RUN' | 'RESTART' | 'STOP' | 'UNINSTALL' | 'DELETE'

interface Family {
  action: ServiceAction
  queued: State
  running: State
  done: State
  failed: State
  /** Stop and uninstall take services down in the reverse order of deploying them. */
  reverse: boolean
}

export const FAMILIES: Record<RunnableTrigger, Family> = {
  DEPLOY: { action: 'DEPLOY', queued: 'DEPLOYMENT_QUEUED', running: 'DEPLOYING', done: 'DEPLOYED', failed: 'DEPLOYMENT_ERROR', reverse: false },
  // A dry run goes through a deploy's words, but what it records reaches no service (deployment-rows.ts).
  DEPLOY_DRY_RUN: {
    action: 'DEPLOY',
    queued: 'DEPLOYMENT_QUEUED',
    running: 'DEPLOYING',
    done: 'DEPLOYED',
    failed: 'DEPLOYMENT_ERROR',
    reverse: false,
  },
  // Redeploying restarts what runs, as the platform's console calls it.
  RESTART: { action: 'RESTART', queued: 'RESTART_QUEUED', running: 'RESTARTING', done: 'RESTARTED', failed: 'RESTART_ERROR', reverse: false },
  STOP: { action: 'STOP', queued: 'STOP_QUEUED', running: 'STOPPING', done: 'STOPPED', failed: 'STOP_ERROR', reverse: true },
  UNINSTALL: { action: 'DELETE', queued: 'DELETE_QUEUED', running: 'DELETING', done: 'DELETED', failed: 'DELETE_ERROR', reverse: true },
  // Uninstalls, then deletes the services themselves once that succeeded (deleteSelectedServices).
  DELETE: { action: 'DELETE', queued: 'DELETE_QUEUED', running: 'DELETING', done: 'DELETED', failed: 'DELETE_ERROR', reverse: true },
}

/** The state of a service nothing has deployed yet. */
export const NEVER_DEPLOYED_STATE: State = 'READY'

/** The name of the stage a kind's services join unless moved. */
export const stageName = (type: ServiceType) => `${type} DEFAULT`
