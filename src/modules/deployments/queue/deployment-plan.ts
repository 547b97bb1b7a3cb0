import type { ServiceProgress, StageProgress } from '#src/modules/deployments/queue/deployment-progress.ts'
import type { ServiceKind } from '#src/modules/services/service-kinds.ts'
import { FAMILIES, NEVER_DEPLOYED_STATE, type RunnableTrigger, STAGE_ORDER, type State, stageName } from '#src/platform/deployment-states.ts'

// What a trigger will do, fixed when it is queued: the services in their stages, each with the
// details its history entry shows.

/** A service as a trigger plans it, before it has any progress. */
export type PlannedService = Omit<ServiceProgress, 'phase' | 'startedAt' | 'endedAt' | 'updatedAt' | 'message' | 'previousState'>

/** The deployment stage a planned service runs in, as the environment's stages were at the trigger. */
export interface PlannedStage {
  name: string
  position: number
}

/**
 * The stages of a deployment, in deploy order (reversed to stop, uninstall or delete), with only
 * the stages that hold a service of it. A service runs in the stage `stageOf` gives; without it,
 * in its kind's default stage, the kinds in their usual order.
 */
export function planStages(
  trigger: RunnableTrigger,
  services: PlannedService[],
  previousStates: Map<string, State>,
  now: string,
  stageOf: (service: PlannedService) => PlannedStage = (service) => ({ name: stageName(service.type), position: STAGE_ORDER.indexOf(service.type) }),
): StageProgress[] {
  const groups = new Map<string, { stage: PlannedStage; services: PlannedService[] }>()
  for (const service of services) {
    const stage = stageOf(service)
    const group = groups.get(stage.name) ?? { stage, services: [] }
    group.services.push(service)
    groups.set(stage.name, group)
  }
  const ordered = [...groups.values()].sort((a, b) => a.stage.position - b.stage.position)
  if (FAMILIES[trigger].reverse) ordered.reverse()
  return ordered.map(({ stage, services: group }) => ({
    name: stage.name,
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

/** What planning a service needs of its kind. */
type Planning<Config, Overrides> = Pick<
  ServiceKind<unknown, Config, Overrides & object>,
  'type' | 'details' | 'iconUri' | 'simulatesFailure' | 'subAction'
>

/** A service as a deployment plans it: what its history entry shows, fixed at the trigger. */
export function plannedService<Config, Overrides>(
  kind: Planning<Config, Overrides>,
  service: { id: string; name: string; version: number; configuration: Config },
  trigger: RunnableTrigger,
  overrides: Overrides,
  executionId?: string,
): PlannedService {
  return {
    id: service.id,
    name: service.name,
    type: kind.type,
    iconUri: kind.iconUri(service.configuration),
    details: kind.details(service.configuration, overrides as Overrides & object, executionId === undefined ? undefined : { executionId }),
    version: service.version,
    simulateFailure: kind.simulatesFailure(service.configuration, trigger),
    ...(kind.subAction ? { subAction: kind.subAction(service.configuration, overrides as Overrides & object, trigger) } : {}),
  }
}
