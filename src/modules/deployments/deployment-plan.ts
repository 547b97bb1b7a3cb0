import type { HelmServiceRecord } from '#src/modules/helm-services/helm-services.types.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { ServiceProgress, StageProgress } from './deployment-progress.ts'
import { FAMILIES, NEVER_DEPLOYED_STATE, type RunnableTrigger, STAGE_ORDER, type State, stageName } from './deployment-states.ts'

// What a trigger will do, fixed when it is queued: the services in their stages, each with the
// details its history entry shows.

/** What a helm deploy request asks for beyond the service's configuration (reference HelmDeployRequest). */
export interface HelmDeployOverrides {
  chartVersion?: string | undefined
  gitCommitId?: string | undefined
  valuesOverrideGitCommitId?: string | undefined
}

/** What a helm deploy request asks for that the service's sources cannot give (reference HelmDeployRequest). */
export function helmOverrideErrors(helm: HelmServiceRecord, overrides: HelmDeployOverrides): FieldError[] {
  const errors: FieldError[] = []
  const error = (field: string, message: string) => errors.push({ path: `/${field}`, message, location: 'body' })
  const fromRepository = 'helmRepository' in helm.source
  if (overrides.chartVersion !== undefined && overrides.gitCommitId !== undefined) error('git_commit_id', 'cannot be set together with chart_version')
  else if (overrides.chartVersion !== undefined && !fromRepository)
    error('chart_version', 'applies to a chart of a helm repository; this chart is in a git repository')
  else if (overrides.gitCommitId !== undefined && fromRepository)
    error('git_commit_id', 'applies to a chart in a git repository; this chart is from a helm repository')
  const valuesFile = helm.valuesOverride.file
  if (overrides.valuesOverrideGitCommitId !== undefined && !(valuesFile && 'git' in valuesFile)) {
    error('values_override_git_commit_id', 'applies to values files in a git repository; this service has none')
  }
  return errors
}

/**
 * The values-override key that makes the simulated executor fail a service: `true` fails every
 * action; a comma-separated list of `deploy`, `restart`, `stop`, `uninstall` fails those only.
 */
export const SIMULATE_FAILURE_KEY = 'berth.simulate.fail'

const ACTION_WORDS: Record<RunnableTrigger, string> = { DEPLOY: 'deploy', RESTART: 'restart', STOP: 'stop', UNINSTALL: 'uninstall' }

export function simulatesFailure(helm: HelmServiceRecord, trigger: RunnableTrigger): boolean {
  const values = [...helm.valuesOverride.set, ...helm.valuesOverride.setString]
    .filter(([key]) => key === SIMULATE_FAILURE_KEY)
    .map(([, value]) => value.trim().toLowerCase())
  return values.some(
    (value) =>
      value === 'true' ||
      value
        .split(',')
        .map((word) => word.trim())
        .includes(ACTION_WORDS[trigger]),
  )
}

/**
 * A helm service's `details` (contract 2.7, helm shape): its chart and version; for a chart in git,
 * `commit` null, since Berth does not read the repository and knows no commit's author, message or
 * date, and the extension `git_commit_id` when the deploy named one.
 */
export function helmDetails(helm: HelmServiceRecord, overrides: HelmDeployOverrides): Record<string, unknown> {
  if ('helmRepository' in helm.source) {
    const { chartName, chartVersion } = helm.source.helmRepository
    return { repository: { chart_name: chartName, chart_version: overrides.chartVersion ?? chartVersion } }
  }
  return overrides.gitCommitId === undefined ? { commit: null } : { commit: null, git_commit_id: overrides.gitCommitId }
}

/** A service as a trigger plans it, before it has any progress. */
export type PlannedService = Omit<ServiceProgress, 'phase' | 'startedAt' | 'endedAt' | 'updatedAt' | 'message' | 'previousState'>

/** The stages of a deployment: one per kind present, in deploy order, reversed to stop or uninstall. */
export function planStages(trigger: RunnableTrigger, services: PlannedService[], previousStates: Map<string, State>, now: string): StageProgress[] {
  const order = FAMILIES[trigger].reverse ? [...STAGE_ORDER].reverse() : STAGE_ORDER
  return order
    .map((type) => services.filter((service) => service.type === type))
    .filter((group) => group.length > 0)
    .map((group) => ({
      name: stageName(group[0]!.type),
      status: 'QUEUED' as const,
      startedAt: null,
      endedAt: null,
      services: group.map((service) => ({
        ...service,
        previousState: previousStates.get(service.id) ?? NEVER_DEPLOYED_STATE,
        phase: 'QUEUED' as const,
        startedAt: null,
        endedAt: null,
        updatedAt: now,
        message: null,
      })),
    }))
}

/** A helm service as a deployment plans it. */
export function plannedHelm(helm: HelmServiceRecord, trigger: RunnableTrigger, overrides: HelmDeployOverrides): PlannedService {
  return {
    id: helm.id,
    name: helm.name,
    type: 'HELM',
    iconUri: helm.iconUri,
    details: helmDetails(helm, overrides),
    version: helm.version,
    simulateFailure: simulatesFailure(helm, trigger),
  }
}
