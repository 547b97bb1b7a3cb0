import { comparisonStep } from '#src/modules/services/dry-run-plans.ts'
import type { PlannedStep, ServiceKind, ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { RunnableTrigger, ServiceSubAction } from '#src/platform/deployment-states.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { IacDeployAction } from './iac.schemas.ts'
import type { IacConfig } from './iac.types.ts'
import { engineProgram } from './iac-engines.ts'

// What deploying an IAC service means (docs/iac.md): a deploy runs init, plan and apply (or stops
// after the plan, or releases the state's lock, or migrates the state, as its `action` says); an
// uninstall or delete runs destroy; a stop changes nothing. The history records which as the
// service's `sub_action` (contract ServiceSubActionEnum).

/** What an IAC deploy asks for beyond the configuration (reference TerraformDeployRequest, DeleteTerraformAction). */
export interface IacDeployOverrides {
  gitCommitId?: string | undefined
  action?: IacDeployAction | undefined
  /** SKIP_DESTROY: an uninstall or delete forgets what was applied without destroying it. */
  skipDestroy?: boolean | undefined
}

/** What a run does, as the engine's commands go. */
export type IacRun = 'PLAN_AND_APPLY' | 'PLAN_ONLY' | 'DESTROY' | 'FORCE_UNLOCK' | 'MIGRATE_STATE' | 'NONE'

/** The argument that makes the simulated executor fail a run: a service whose plan's extra arguments hold it. */
export const SIMULATE_FAILURE_ARGUMENT = 'berth.simulate.fail'

/** What a run of `trigger` with these overrides does. */
export function iacRunOf(overrides: IacDeployOverrides, trigger: RunnableTrigger): IacRun {
  if (trigger === 'UNINSTALL' || trigger === 'DELETE') return overrides.skipDestroy ? 'NONE' : 'DESTROY'
  if (trigger === 'STOP') return 'NONE'
  // A dry run changes nothing: its plan is all it runs.
  if (trigger === 'DEPLOY_DRY_RUN' || overrides.action === 'PLAN') return 'PLAN_ONLY'
  if (overrides.action === 'FORCE_UNLOCK') return 'FORCE_UNLOCK'
  if (overrides.action === 'MIGRATE_STATE') return 'MIGRATE_STATE'
  return 'PLAN_AND_APPLY'
}

const SUB_ACTION: Record<IacRun, ServiceSubAction> = {
  PLAN_AND_APPLY: 'IAC_PLAN_AND_APPLY',
  PLAN_ONLY: 'IAC_PLAN_ONLY',
  DESTROY: 'IAC_DESTROY',
  FORCE_UNLOCK: 'IAC_FORCE_UNLOCK_STATE',
  MIGRATE_STATE: 'IAC_MIGRATE_STATE',
  NONE: 'NONE',
}

/** What an IAC deploy request asks that the service cannot give. */
export function iacOverrideErrors(_configuration: IacConfig, overrides: IacDeployOverrides): FieldError[] {
  const commit = overrides.gitCommitId
  if (commit !== undefined && !/^[0-9A-Za-z._/-]{1,255}$/.test(commit)) {
    return [{ path: '/git_commit_id', message: 'must be a commit id, a branch or a tag', location: 'body' }]
  }
  return []
}

/** An IAC service's history `details` (Berth extension: IacDeploymentHistoryDetails); what it runs is its `sub_action`. */
export function iacDetails(configuration: IacConfig, overrides: IacDeployOverrides): Record<string, unknown> {
  return {
    commit: null,
    ...(overrides.gitCommitId ? { git_commit_id: overrides.gitCommitId } : {}),
    engine: configuration.engine,
    engine_version: configuration.engineVersion,
  }
}

/** What an executor does for an IAC service, as it reports it. */
export function iacPlan(snapshot: ServiceSnapshot<IacConfig>, action: RunnableTrigger): PlannedStep[] {
  if (action === 'DEPLOY_DRY_RUN') return [comparisonStep('plan', `the configuration of ${snapshot.name} with its state (a plan)`)]
  const configuration = snapshot.configuration
  const overrides = snapshot.overrides as IacDeployOverrides
  const run = iacRunOf(overrides, action)
  const program = engineProgram(configuration.engine)
  const { git } = configuration
  const at = overrides.gitCommitId ? `commit ${overrides.gitCommitId}` : git.branch ? `branch ${git.branch}` : 'the default branch'
  if (run === 'NONE') return [{ step: 'run', lines: [`nothing to run (${action === 'STOP' ? 'a stop changes no infrastructure' : 'SKIP_DESTROY'})`] }]
  const commands: Record<Exclude<IacRun, 'NONE'>, string> = {
    PLAN_AND_APPLY: 'init, plan, apply',
    PLAN_ONLY: 'init, plan (plan only)',
    DESTROY: 'init, destroy',
    FORCE_UNLOCK: 'init, force-unlock',
    MIGRATE_STATE: 'init -migrate-state',
  }
  const steps: PlannedStep[] = [
    { step: 'build', lines: [`building the ${program} ${configuration.engineVersion} image with ${git.url}${git.rootPath} at ${at}`] },
    { step: 'run', lines: [`running ${program}: ${commands[run]}; at most ${configuration.timeoutSec}s`] },
  ]
  if ((configuration.actionExtraArguments.plan ?? []).includes(SIMULATE_FAILURE_ARGUMENT)) {
    steps[1] = { ...steps[1]!, failure: `${program} plan failed (simulated: its extra arguments hold ${SIMULATE_FAILURE_ARGUMENT})` }
  }
  return steps
}

/** What a deployment of an IAC service records of it, as the service kind says it. */
export const iacPlanning: Pick<
  ServiceKind<unknown, IacConfig, IacDeployOverrides>,
  'type' | 'details' | 'iconUri' | 'simulatesFailure' | 'subAction'
> = {
  type: 'IAC',
  details: (configuration, overrides) => iacDetails(configuration, overrides),
  iconUri: (configuration) => configuration.iconUri,
  simulatesFailure: () => false,
  subAction: (_configuration, overrides, trigger) => SUB_ACTION[iacRunOf(overrides, trigger)],
}
