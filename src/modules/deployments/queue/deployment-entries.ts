import { shownTriggerAction } from '#src/platform/deployment-states.ts'
import { elapsedMs, isoDuration } from '../iso-duration.ts'
import { type DeploymentRun, familyOf, type ServiceProgress, serviceStatus } from './deployment-progress.ts'

// The history entries of contract 2.3-2.9, rendered from a run whenever it changes and stored as
// JSON text: a history page is these texts joined, never rebuilt from rows.

const auditingData = (run: DeploymentRun, updatedAt: string) => ({
  created_at: run.createdAt,
  updated_at: updatedAt,
  triggered_by: run.triggeredBy,
  origin: run.origin,
})

/** A service's entry (contract 2.6): in a stage of the environment's entry, and alone in the service's own history. */
export function serviceEntry(run: DeploymentRun, service: ServiceProgress) {
  const { status, actionStatus } = serviceStatus(run, service)
  return {
    identifier: { name: service.name, service_id: service.id, service_type: service.type, execution_id: run.id },
    status,
    auditing_data: auditingData(run, service.updatedAt),
    details: service.details,
    status_details: { action: familyOf(run).action, status: actionStatus, sub_action: service.subAction ?? 'NONE' },
    icon_uri: service.iconUri,
    total_duration: isoDuration(elapsedMs(service.startedAt, service.endedAt, service.updatedAt)),
    /** Berth extension: why the service failed, when it did. */
    message: service.message,
  }
}

/** The environment's entry (contract 2.3). */
export function environmentEntry(run: DeploymentRun) {
  return {
    identifier: { execution_id: run.id, environment_id: run.environmentId },
    auditing_data: auditingData(run, run.updatedAt),
    status: run.status,
    trigger_action: shownTriggerAction(
      run.triggerAction,
      run.progress.stages.flatMap((stage) => stage.services.map((service) => service.subAction ?? 'NONE')),
    ),
    total_duration: isoDuration(elapsedMs(run.startedAt, run.endedAt, run.updatedAt)),
    stages: run.progress.stages.map((stage) => ({
      name: stage.name,
      status: stage.status,
      duration: isoDuration(elapsedMs(stage.startedAt, stage.endedAt, run.updatedAt)),
      services: stage.services.map((service) => serviceEntry(run, service)),
    })),
    action_status: run.actionStatus,
    /** Berth extension: why the deployment ended as it did (a failed stage, a cancel, a lost runner); null when there is nothing to say. */
    message: run.message,
  }
}
