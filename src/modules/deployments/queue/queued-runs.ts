import { groupLabels } from '#src/modules/services/service-groups.ts'
import type { ServiceRecord, ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { ResolvedVariables } from '#src/modules/variables/resolved-variables.ts'
import { FAMILIES, type Origin, type RunnableTrigger, type State } from '#src/platform/deployment-states.ts'
import { type PlannedService, type PlannedStage, planStages } from './deployment-plan.ts'
import type { DeploymentRun } from './deployment-progress.ts'

// A run as a trigger queues it, and what it deploys: shared by the API's triggers and the cron
// scheduler's ticks.

/** The stage a service runs in, from the environment's stages as they were read. */
export function stageOfService(
  services: Pick<ServiceRecord, 'id' | 'deploymentStageId'>[],
  stages: { id: string; name: string; position: number }[],
): (service: PlannedService) => PlannedStage {
  const byId = new Map(stages.map((stage) => [stage.id, stage]))
  const stageOf = new Map(services.map((service) => [service.id, byId.get(service.deploymentStageId)]))
  return (service) => {
    const stage = stageOf.get(service.id)
    // A stage deleted between reading the services and now: its services run last.
    return stage ? { name: stage.name, position: stage.position } : { name: 'DEFAULT', position: Number.MAX_SAFE_INTEGER }
  }
}

/** What a run deploys of a service: its configuration and variables as of the trigger. */
export function snapshotOf(
  service: ServiceRecord,
  overrides: object,
  resolved: ResolvedVariables | undefined,
  advancedSettings: Record<string, unknown> | undefined,
): ServiceSnapshot {
  return {
    serviceId: service.id,
    kind: service.kind,
    name: service.name,
    version: service.version,
    configuration: service.configuration,
    overrides: { ...overrides },
    variables: resolved?.variables ?? [],
    variablesFingerprint: resolved?.fingerprint ?? '',
    advancedSettings: advancedSettings ?? {},
    labels: groupLabels(service.references),
  }
}

/** A run just queued: its stages planned, nothing started. */
export function queuedRun(run: {
  id: string
  environment: { id: string; organizationId: string }
  serviceId: string | null
  trigger: RunnableTrigger
  origin: Origin
  triggeredBy: string
  planned: PlannedService[]
  states: Map<string, State>
  createdAt: string
  stageOf: (service: PlannedService) => PlannedStage
}): DeploymentRun {
  return {
    id: run.id,
    organizationId: run.environment.organizationId,
    environmentId: run.environment.id,
    serviceId: run.serviceId,
    triggerAction: run.trigger,
    origin: run.origin,
    triggeredBy: run.triggeredBy,
    status: FAMILIES[run.trigger].queued,
    actionStatus: 'QUEUED',
    message: null,
    createdAt: run.createdAt,
    updatedAt: run.createdAt,
    startedAt: null,
    endedAt: null,
    progress: { stages: planStages(run.trigger, run.planned, run.states, run.createdAt, run.stageOf) },
  }
}
