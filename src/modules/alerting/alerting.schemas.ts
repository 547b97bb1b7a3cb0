import { type Static, Type } from 'typebox'
import { DateTime, Nullable, OrganizationParams, Uuid } from '#src/platform/http/common-schemas.ts'
import { ALERT_TARGET_TYPES } from '#src/platform/service-types.ts'

// The reference's alert receivers and alert rules (docs/alerting.md).

/** An enum of words, typed as its words. */
const words = <T extends string>(values: readonly T[], options: { description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options })

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' })
const Description = Type.String({ maxLength: 10_000 })
const Email = Type.String({ format: 'email', maxLength: 320 })
const Smarthost = Type.String({ minLength: 3, maxLength: 300, pattern: '^[^\\s:/]+:[0-9]{1,5}$', description: "SMTP server in format 'host:port'" })
const WebhookUrl = Type.String({ format: 'uri', maxLength: 2048, description: 'Write-only: stored encrypted, never returned.' })
const Password = Type.String({ maxLength: 1024, description: 'Write-only: stored encrypted, never returned. "": no SMTP authentication.' })
const ReceiverType = Type.Union([Type.Literal('SLACK'), Type.Literal('EMAIL')])

const receiverBase = {
  name: Name,
  description: Description,
  send_resolved: Type.Boolean(),
  owner: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  severity: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
}
const emailFields = {
  to: Email,
  from: Email,
  smarthost: Smarthost,
  auth_username: Type.Optional(Nullable(Type.String({ maxLength: 320 }))),
  require_tls: Type.Boolean(),
}

export const AlertReceiverCreationRequest = Type.Union(
  [
    Type.Object({ organization_id: Uuid, ...receiverBase, type: Type.Literal('SLACK'), webhook_url: WebhookUrl }),
    Type.Object(
      { organization_id: Uuid, ...receiverBase, type: Type.Literal('EMAIL'), ...emailFields, auth_password: Password },
      { additionalProperties: false },
    ),
  ],
  { title: 'AlertReceiverCreationRequest' },
)
export type AlertReceiverCreationRequest = Static<typeof AlertReceiverCreationRequest>

export const AlertReceiverEditRequest = Type.Union(
  [
    Type.Object({ ...receiverBase, type: Type.Literal('SLACK'), webhook_url: Type.Optional(Nullable(WebhookUrl)) }),
    Type.Object(
      { ...receiverBase, type: Type.Literal('EMAIL'), ...emailFields, auth_password: Type.Optional(Nullable(Password)) },
      { additionalProperties: false },
    ),
  ],
  { title: 'AlertReceiverEditRequest' },
)
export type AlertReceiverEditRequest = Static<typeof AlertReceiverEditRequest>

export const AlertReceiverResponse = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: Type.Optional(DateTime),
    organization_id: Uuid,
    name: Type.String(),
    description: Type.String(),
    type: ReceiverType,
    send_resolved: Type.Boolean(),
    owner: Nullable(Type.String()),
    severity: Nullable(Type.String()),
    to: Type.Optional(Type.String()),
    from: Type.Optional(Type.String()),
    smarthost: Type.Optional(Type.String()),
    auth_username: Type.Optional(Nullable(Type.String())),
    require_tls: Type.Optional(Type.Boolean()),
  },
  { title: 'AlertReceiverResponse', description: 'webhook_url and auth_password are write-only.' },
)
export const AlertReceiverList = Type.Object({ results: Type.Array(AlertReceiverResponse) })

export const AlertReceiverParams = Type.Object({ alertReceiverId: Uuid })
export const AlertRuleParams = Type.Object({ alertRuleId: Uuid })
export { OrganizationParams }

export const AlertReceiverValidationRequest = Type.Object({ message: Type.Optional(Type.String({ maxLength: 2000 })) })
export const AlertReceiverCreationValidationRequest = Type.Object({
  alert_receiver: AlertReceiverCreationRequest,
  message: Type.Optional(Type.String({ maxLength: 2000 })),
})
export const AlertReceiverValidationResponse = Type.Object(
  { sent: Type.Boolean(), message: Type.Optional(Type.String()) },
  { description: "Berth extension: whether the test notification went, and if not, why. The reference's 200 has no body." },
)

const Severity = Type.Union([Type.Literal('LOW'), Type.Literal('MEDIUM'), Type.Literal('HIGH'), Type.Literal('CRITICAL')])
const Condition = Type.Object({
  kind: Type.Union([Type.Literal('CUSTOM'), Type.Literal('BUILT')]),
  operator: Type.Optional(words(['NONE', 'ABOVE', 'BELOW', 'ABOVE_OR_EQUAL', 'BELOW_OR_EQUAL', 'EQUAL'] as const)),
  threshold: Type.Optional(Type.Number()),
  function: Type.Optional(words(['NONE', 'AVG', 'MAX', 'MIN', 'SUM', 'COUNT'] as const)),
  promql: Type.String({ minLength: 1, maxLength: 10_000 }),
})
const ForDuration = Type.String({ maxLength: 64, pattern: '^P', description: 'ISO-8601 duration, e.g. PT10S, PT5M' })
const Presentation = Type.Object({
  summary: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  runbook_url: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2048 }))),
})
const Target = Type.Object({
  target_type: Type.Union(
    ALERT_TARGET_TYPES.map((w) => Type.Literal(w)),
    { description: "' CLUSTER' (the reference's spelling) and CLUSTER are the same" },
  ),
  target_id: Uuid,
})
const ReceiverIds = Type.Array(Uuid, { minItems: 1, maxItems: 50, uniqueItems: true })
const ruleFields = {
  name: Name,
  description: Description,
  tag: Type.String({ maxLength: 255 }),
  condition: Condition,
  for_duration: ForDuration,
  severity: Severity,
  presentation: Presentation,
  enabled: Type.Boolean(),
  alert_receiver_ids: ReceiverIds,
}
export const AlertRuleCreationRequest = Type.Object(
  { organization_id: Uuid, cluster_id: Uuid, ...ruleFields, target: Target },
  { title: 'AlertRuleCreationRequest' },
)
export type AlertRuleCreationRequest = Static<typeof AlertRuleCreationRequest>
export const AlertRuleEditRequest = Type.Object(ruleFields, { title: 'AlertRuleEditRequest' })
export type AlertRuleEditRequest = Static<typeof AlertRuleEditRequest>

export const ALERT_RULE_STATES = ['UNDEPLOYED', 'OK', 'TRIGGERED', 'PENDING_NOTIFICATION', 'NOTIFIED', 'SUPPRESSED', 'UNROUTED'] as const
export const AlertRuleResponse = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: Type.Optional(DateTime),
    source: Type.Literal('MANAGED'),
    name: Type.String(),
    state: words(ALERT_RULE_STATES),
    organization_id: Uuid,
    cluster_id: Uuid,
    description: Type.String(),
    tag: Type.String(),
    condition: Condition,
    for_duration: Type.String(),
    severity: Severity,
    enabled: Type.Boolean(),
    alert_receiver_ids: Type.Array(Uuid),
    presentation: Presentation,
    target: Type.Object({
      target_type: Type.String(),
      target_id: Uuid,
      service: Type.Optional(Type.Object({ id: Uuid, name: Type.String(), service_type: Type.String() })),
    }),
    is_up_to_date: Type.Boolean(),
    starts_at: Type.Optional(DateTime),
  },
  { title: 'AlertRuleResponse' },
)
export const AlertRuleList = Type.Object({ results: Type.Array(AlertRuleResponse) })

export const ClusterMetricsParams = Type.Object({ clusterId: Uuid })
export const ClusterMetricsQuery = Type.Object({
  endpoint: Type.String({ maxLength: 64, description: 'api/v1/query or api/v1/query_range' }),
  query: Type.String({ minLength: 1, maxLength: 10_000 }),
  start: Type.Optional(Type.String({ maxLength: 64 })),
  end: Type.Optional(Type.String({ maxLength: 64 })),
  step: Type.Optional(Type.String({ maxLength: 64 })),
  time: Type.Optional(Type.String({ maxLength: 64 })),
  timeout: Type.Optional(Type.String({ maxLength: 64 })),
})
export const ClusterMetricsResponse = Type.Object({ metrics: Type.String({ description: "Prometheus' answer, as JSON text" }) })
