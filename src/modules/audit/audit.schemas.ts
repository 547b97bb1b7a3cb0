import { type Static, Type } from 'typebox'
import { Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { AUDIT_TARGET_TYPES } from '#src/platform/service-types.ts'

// The reference's Organization Event shapes. Enum words follow BERTH_ENUM_WORDS: the contract's IAC
// and IAC_PROVIDER here, the reference's TERRAFORM and TERRAFORM_PROVIDER with `reference`.

export const EVENT_TYPES = [
  'CREATE',
  'UPDATE',
  'DELETE',
  'ACCEPT',
  'EXPORT',
  'CLONE',
  'DEPLOY_QUEUED',
  'STOP_QUEUED',
  'RESTART_QUEUED',
  'DELETE_QUEUED',
  'UNINSTALL_QUEUED',
  'MAINTENANCE',
  'DRY_RUN',
  'TRIGGER_REDEPLOY',
  'TRIGGER_CANCEL',
  'FORCE_RUN_QUEUED',
  'FORCE_RUN_QUEUED_DEPLOY',
  'FORCE_RUN_QUEUED_STOP',
  'FORCE_RUN_QUEUED_DELETE',
  'TRIGGER_DEPLOY',
  'TRIGGER_STOP',
  'TRIGGER_RESTART',
  'TRIGGER_DELETE',
  'TRIGGER_UNINSTALL',
  'TRIGGER_DEPLOY_DRY_RUN',
  'TRIGGER_TERRAFORM_FORCE_UNLOCK',
  'TRIGGER_TERRAFORM_MIGRATE_STATE',
  'TRIGGER_FORCE_RUN',
  'TRIGGER_FORCE_RUN_DEPLOY',
  'TRIGGER_FORCE_RUN_STOP',
  'TRIGGER_FORCE_RUN_DELETE',
  'DEPLOYED',
  'STOPPED',
  'DELETED',
  'UNINSTALLED',
  'RESTARTED',
  'DEPLOYED_DRY_RUN',
  'FORCE_RUN_SUCCEEDED',
  'TERRAFORM_FORCE_UNLOCK_SUCCEEDED',
  'TERRAFORM_MIGRATE_STATE_SUCCEEDED',
  'DEPLOY_FAILED',
  'STOP_FAILED',
  'DELETE_FAILED',
  'UNINSTALL_FAILED',
  'RESTART_FAILED',
  'DEPLOYED_DRY_RUN_FAILED',
  'FORCE_RUN_FAILED',
  'TERRAFORM_FORCE_UNLOCK_FAILED',
  'TERRAFORM_MIGRATE_STATE_FAILED',
  'SHELL',
  'PORT_FORWARD',
  'REMOTE_DEBUG',
  'MCP',
  'IMPORT',
  'LOCK',
  'UNLOCK',
  'POLICY_FAILED',
] as const
export const SUB_TARGET_TYPES = [
  'ADVANCED_SETTINGS',
  'ALERT_RECEIVER',
  'ALERT_RULE',
  'ANNOTATIONS_GROUP',
  'API_TOKEN',
  'ARGOCD_CLUSTER_MAPPING',
  'ARGOCD_CONFIGURATION',
  'BILLING_INFO',
  'BILLING_USAGE_REPORT',
  'BLUEPRINT_MIGRATION',
  'CLOUD_PROVIDER_CREDENTIALS',
  'CLUSTER_CREDENTIALS',
  'CLUSTER_ROUTING_TABLE',
  'CONFIG',
  'CREDIT_CARD',
  'CREDIT_CODE',
  'CUSTOM_DOMAIN',
  'CUSTOM_ROLE',
  'DEPLOYMENT_RULE',
  'DEPLOYMENT_STAGE',
  'DNS_PROVIDER',
  'GITHUB_APP',
  'GIT_REPOSITORY',
  'GIT_TOKEN',
  'INVITATION',
  'JWT_TOKEN_FORGED',
  'KUBERNETES_CONFIGURATION',
  'KUBERNETES_CREDENTIALS',
  'LABELS_GROUP',
  'MCP_SERVER',
  'MEMBER_ROLE',
  'PLAN',
  'POLICY_API_TOKEN',
  'REMOTE_ACCESS',
  'SECRET',
  'SSO',
  'TERRAFORM',
  'TOOL_CALL',
  'TRANSFER_OWNERSHIP',
  'VARIABLE',
] as const
export const EVENT_ORIGINS = ['API', 'CLI', 'CONSOLE', 'GIT', 'PLATFORM_INTERNAL', 'SKILL', 'IAC_PROVIDER'] as const
export const TARGET_LEVELS = ['PROJECT', 'ENVIRONMENT'] as const

const words = <T extends readonly string[]>(values: T, title: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], title, description: `${title} (docs/audit-log.md)` })

const EventType = words(EVENT_TYPES, 'OrganizationEventType')
const TargetType = words(AUDIT_TARGET_TYPES, 'OrganizationEventTargetType')
const SubTargetType = words(SUB_TARGET_TYPES, 'OrganizationEventSubTargetType')
const Origin = words(EVENT_ORIGINS, 'OrganizationEventOrigin')
const TargetLevel = words(TARGET_LEVELS, 'OrganizationEventTargetLevel')

const timestamp = (what: string) =>
  Type.String({
    maxLength: 40,
    description: `${what}: an RFC 3339 date-time, or or nanoseconds since 1970 (milliseconds when 15 digits or fewer)`,
  })

const sharedFilters = {
  fromTimestamp: Type.Optional(timestamp('events at or after this time')),
  toTimestamp: Type.Optional(timestamp('events before this time')),
  eventType: Type.Optional(EventType),
  targetType: Type.Optional(TargetType),
  triggeredBy: Type.Optional(Type.String({ maxLength: 255, description: "the token's or member's name, or its id" })),
  origin: Type.Optional(Origin),
}

export const EventsQuery = Type.Object({
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'how many events the page holds, 1 to 100' })),
  continueToken: Type.Optional(Type.String({ pattern: '^[0-9]{1,19}$', description: 'from `links.next`: the page of older events' })),
  stepBackToken: Type.Optional(Type.String({ pattern: '^[0-9]{1,19}$', description: 'from `links.previous`: the page of newer events' })),
  ...sharedFilters,
  targetId: Type.Optional(Uuid),
  subTargetType: Type.Optional(SubTargetType),
  serviceProjectId: Type.Optional(Uuid),
  serviceEnvironmentId: Type.Optional(Uuid),
})
export type EventsQuery = Static<typeof EventsQuery>

export const EventTargetsQuery = Type.Object({
  ...sharedFilters,
  projectId: Type.Optional(Uuid),
  environmentId: Type.Optional(Uuid),
  targetLevelToFetch: Type.Optional(TargetLevel),
})
export type EventTargetsQuery = Static<typeof EventTargetsQuery>

export const EventResponse = Type.Object(
  {
    id: Uuid,
    timestamp: Type.String({ format: 'date-time' }),
    event_type: EventType,
    target_id: Nullable(Uuid),
    target_name: Type.String(),
    target_type: TargetType,
    sub_target_type: Nullable(SubTargetType),
    change: Nullable(
      Type.String({
        description: 'JSON: the target or sub-target (`id`, `name`), its values `before` and `after` (what changed only, secrets masked)',
      }),
    ),
    origin: Origin,
    triggered_by: Type.String(),
    triggered_by_id: Nullable(Type.String({ description: "Berth extension: the API token's or the member's id" })),
    project_id: Nullable(Uuid),
    project_name: Type.String(),
    environment_id: Nullable(Uuid),
    environment_name: Type.String(),
    user_agent: Nullable(Type.String()),
    original_change: Nullable(Type.String()),
  },
  { title: 'OrganizationEventResponse' },
)
export type EventResponse = Static<typeof EventResponse>

export const EventResponseList = Type.Object(
  {
    links: Type.Object({
      previous: Type.Optional(Type.String({ description: 'the page of newer events (absent on the newest page)' })),
      next: Type.Optional(Type.String({ description: 'the page of older events (absent on the oldest page)' })),
    }),
    organization_max_limit_reached: Type.Boolean({ description: 'true when the time range starts before what BERTH_AUDIT_RETENTION_DAYS keeps' }),
    events: Type.Array(EventResponse),
  },
  { title: 'OrganizationEventResponseList' },
)

export const EventTargetResponseList = Type.Object(
  { targets: Type.Array(Type.Object({ id: Uuid, name: Type.String() })) },
  { title: 'OrganizationEventTargetResponseList' },
)
