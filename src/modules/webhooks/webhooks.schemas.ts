import { type Static, Type } from 'typebox'
import { MODES, type Mode } from '#src/modules/environments/environments.schemas.ts'
import { DateTime, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'

export const WEBHOOK_KINDS = ['STANDARD', 'SLACK'] as const
export type WebhookKind = (typeof WEBHOOK_KINDS)[number]
export const WEBHOOK_EVENTS = ['DEPLOYMENT_STARTED', 'DEPLOYMENT_CANCELLED', 'DEPLOYMENT_FAILURE', 'DEPLOYMENT_SUCCESSFUL'] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

const KindEnum = Type.Unsafe<WebhookKind>({ type: 'string', enum: [...WEBHOOK_KINDS], title: 'OrganizationWebhookKindEnum' })
const EventEnum = Type.Unsafe<WebhookEvent>({ type: 'string', enum: [...WEBHOOK_EVENTS], title: 'OrganizationWebhookEventEnum' })
const ModeEnum = Type.Unsafe<Mode>({ type: 'string', enum: [...MODES], title: 'EnvironmentModeEnum' })

export const WebhookRequest = Type.Object(
  {
    kind: KindEnum,
    target_url: Type.String({ minLength: 1, maxLength: 2048, description: 'An http or https URL; the address rules of git providers apply.' }),
    target_secret: Type.Optional(
      Type.String({
        maxLength: 1024,
        description: 'Write-only. Sent as `Qovery-Signature` and used for the `webhook-signature` HMAC. Absent on edit: kept; empty: removed.',
      }),
    ),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    enabled: Type.Optional(Type.Boolean({ description: 'absent: true' })),
    events: Type.Array(EventEnum, { maxItems: 4, uniqueItems: true }),
    project_names_filter: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: 100,
        description: 'Project names; `*` is a wildcard; case-insensitive.',
      }),
    ),
    environment_types_filter: Type.Optional(Type.Array(ModeEnum, { maxItems: 4, uniqueItems: true })),
  },
  { additionalProperties: false, title: 'OrganizationWebhookCreateRequest' },
)
export type WebhookRequest = Static<typeof WebhookRequest>

const webhookFields = {
  id: Uuid,
  created_at: DateTime,
  updated_at: Nullable(DateTime),
  kind: KindEnum,
  target_url: Type.String(),
  target_secret_set: Type.Boolean(),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  events: Type.Array(EventEnum),
  project_names_filter: Type.Array(Type.String()),
  environment_types_filter: Type.Array(ModeEnum),
}

export const WebhookResponse = Type.Object(webhookFields, { title: 'OrganizationWebhookResponse' })
export type WebhookResponse = Static<typeof WebhookResponse>
export const WebhookResponseList = ListResponse(WebhookResponse, 'OrganizationWebhookResponseList')

export const WebhookEventResponse = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    kind: KindEnum,
    matched_event: EventEnum,
    target_url_used: Type.String(),
    request: Type.Object({}, { additionalProperties: true, description: 'The request sent: method, url, headers (the secret masked) and body.' }),
    target_response_status_code: Type.Integer({ description: '0 when no answer came (a network error or a timeout; the body says which).' }),
    target_response_body: Nullable(Type.String({ description: 'The first 4 KiB of what the target answered.' })),
    /** Berth extension. */
    execution_id: Uuid,
  },
  { title: 'WebhookEventResponse' },
)
export type WebhookEventResponse = Static<typeof WebhookEventResponse>
export const WebhookEventResponseList = ListResponse(WebhookEventResponse, 'WebhookEventResponseList')

export const WebhookParams = Type.Object({ organizationId: Uuid, webhookId: Uuid })
