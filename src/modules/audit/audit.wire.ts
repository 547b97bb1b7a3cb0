import type { AuditEventRow } from './audit.repository.ts'
import type { EventResponse } from './audit.schemas.ts'

export function toEventResponse(row: AuditEventRow): EventResponse {
  return {
    id: row.id,
    timestamp: row.createdAt.toISOString(),
    event_type: row.eventType as EventResponse['event_type'],
    target_id: row.targetId,
    target_name: row.targetName,
    target_type: row.targetType as EventResponse['target_type'],
    sub_target_type: row.subTargetType as EventResponse['sub_target_type'],
    change: row.change,
    origin: row.origin as EventResponse['origin'],
    triggered_by: row.triggeredBy,
    triggered_by_id: row.triggeredById,
    project_id: row.projectId,
    project_name: row.projectName,
    environment_id: row.environmentId,
    environment_name: row.environmentName,
    user_agent: row.userAgent,
    original_change: null,
  }
}
