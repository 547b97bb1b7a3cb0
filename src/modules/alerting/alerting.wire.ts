import type { Selectable } from 'kysely'
import type { RuleWithView } from './alert-rules.service.ts'
import type { AlertRuleEditRequest } from './alerting.schemas.ts'
import type { AlertReceiversTable, EmailSettings } from './alerting.tables.ts'

// Rows to the reference's answers; receivers' secrets are never in them.

type ReceiverRow = Selectable<AlertReceiversTable>

export function toAlertReceiverResponse(row: ReceiverRow) {
  const base = {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    ...(row.updatedAt ? { updated_at: row.updatedAt.toISOString() } : {}),
    organization_id: row.organizationId,
    name: row.name,
    description: row.description,
    type: row.type,
    send_resolved: row.sendResolved,
    owner: row.owner,
    severity: row.severity,
  }
  if (row.type !== 'EMAIL') return base
  const s = row.settings as EmailSettings
  return { ...base, to: s.to, from: s.from, smarthost: s.smarthost, auth_username: s.authUsername, require_tls: s.requireTls }
}

export function toAlertRuleResponse(row: RuleWithView) {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    ...(row.updatedAt ? { updated_at: row.updatedAt.toISOString() } : {}),
    source: 'MANAGED' as const,
    name: row.name,
    state: row.state,
    organization_id: row.organizationId,
    cluster_id: row.clusterId,
    description: row.description,
    tag: row.tag,
    condition: row.condition as AlertRuleEditRequest['condition'],
    for_duration: row.forDuration,
    severity: row.severity as 'LOW',
    enabled: row.enabled,
    alert_receiver_ids: row.alertReceiverIds,
    presentation: row.presentation,
    target: {
      target_type: row.targetType,
      target_id: row.targetId,
      ...(row.targetKind ? { service: { id: row.targetId, name: row.targetName, service_type: row.targetKind } } : {}),
    },
    is_up_to_date: row.upToDate,
    ...(row.startsAt ? { starts_at: row.startsAt } : {}),
  }
}
