import type { Mode } from '#src/modules/environments/environments.schemas.ts'
import type { WebhookAttemptRow, WebhookRow } from './webhooks.repository.ts'
import type { WebhookEvent, WebhookEventResponse, WebhookKind, WebhookRequest, WebhookResponse } from './webhooks.schemas.ts'
import type { WebhookInput } from './webhooks.service.ts'

/** A webhook as the reference's `OrganizationWebhookResponse`: whether a secret is set, never the secret. */
export function toWebhookResponse(row: WebhookRow): WebhookResponse {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt?.toISOString() ?? null,
    kind: row.kind as WebhookKind,
    target_url: row.targetUrl,
    target_secret_set: row.targetSecretSealed !== null,
    description: row.description,
    enabled: row.enabled,
    events: row.events as WebhookEvent[],
    project_names_filter: row.projectNamesFilter,
    environment_types_filter: row.environmentTypesFilter as Mode[],
  }
}

/** A validated request as the service's input: an empty secret removes the stored one, an absent one keeps it. */
export function webhookInput(body: WebhookRequest): WebhookInput {
  return {
    kind: body.kind,
    targetUrl: body.target_url.trim(),
    targetSecret: body.target_secret === undefined ? undefined : body.target_secret === '' ? null : body.target_secret,
    description: body.description?.trim() ? body.description : null,
    enabled: body.enabled ?? true,
    events: body.events,
    projectNamesFilter: (body.project_names_filter ?? []).map((name) => name.trim()).filter((name) => name !== ''),
    environmentTypesFilter: body.environment_types_filter ?? [],
  }
}

export function toWebhookEventResponse(row: WebhookAttemptRow & { executionId: string }): WebhookEventResponse {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    kind: row.kind as WebhookKind,
    matched_event: row.matchedEvent as WebhookEvent,
    target_url_used: row.targetUrlUsed,
    request: row.request as Record<string, unknown>,
    target_response_status_code: row.statusCode,
    target_response_body: row.responseBody,
    execution_id: row.executionId,
  }
}
