import { createHmac } from 'node:crypto'
import type { WebhookEvent, WebhookKind } from './webhooks.schemas.ts'

// What a delivery sends: the body of a STANDARD or SLACK webhook, built from the facts the outbox
// row holds (written when the deployment changed), and the headers that sign it.

/** What the outbox trigger of migration 0049 records of a deployment when it starts or ends. */
export interface DeploymentFacts {
  organization: { id: string; name: string }
  project: { id: string | null; name: string | null }
  environment: { id: string; name: string | null; mode: string | null }
  /** The deployment's history entry at that moment (contract 2.3). */
  entry: {
    status: string
    action_status: string
    trigger_action: string
    message?: string | null
    total_duration?: string
    auditing_data?: { created_at?: string; updated_at?: string }
    stages: { name: string; status: string; services: ServiceEntry[] }[]
  }
  triggered_by: string
  origin: string
  occurred_at: string
  /** A test delivery asked for through the API: no deployment happened. */
  test?: boolean
}

interface ServiceEntry {
  identifier: { name: string; service_id: string; service_type: string }
  status: string
  details?: Record<string, unknown>
  message?: string | null
}

/** What one outbox row asks to send. */
export interface DeliveryToSend {
  id: string
  event: WebhookEvent
  executionId: string
  facts: DeploymentFacts
}

/** The version a service's entry says was deployed: an image tag, a commit, a chart version; null when none is known. */
function versionOf(details: Record<string, unknown> = {}): string | null {
  const text = (key: string) => (typeof details[key] === 'string' && details[key] !== '' ? (details[key] as string) : undefined)
  const image = text('image_name')
  const tag = text('tag')
  if (tag) return image ? `${image}:${tag}` : tag
  return text('commit_id') ?? text('chart_version') ?? text('version') ?? null
}

const consoleLink = (publicUrl: string, facts: DeploymentFacts) => `${publicUrl}/console/#/environment/${facts.environment.id}/deployments`

/** The STANDARD body (docs/webhooks.md shows one). */
export function standardBody(delivery: DeliveryToSend, publicUrl: string) {
  const { facts } = delivery
  return {
    id: delivery.id,
    event: delivery.event,
    occurred_at: facts.occurred_at,
    organization: facts.organization,
    project: facts.project,
    environment: facts.environment,
    execution_id: delivery.executionId,
    trigger_action: facts.entry.trigger_action,
    status: facts.entry.status,
    action_status: facts.entry.action_status,
    message: facts.entry.message ?? null,
    triggered_by: facts.triggered_by,
    origin: facts.origin,
    created_at: facts.entry.auditing_data?.created_at ?? null,
    updated_at: facts.entry.auditing_data?.updated_at ?? null,
    services: facts.entry.stages.flatMap((stage) =>
      stage.services.map((service) => ({
        id: service.identifier.service_id,
        name: service.identifier.name,
        type: service.identifier.service_type,
        stage: stage.name,
        status: service.status,
        version: versionOf(service.details),
        message: service.message ?? null,
      })),
    ),
    console_url: consoleLink(publicUrl, facts),
    ...(facts.test ? { test: true } : {}),
  }
}

const EVENT_WORDS: Record<WebhookEvent, { text: string; emoji: string }> = {
  DEPLOYMENT_STARTED: { text: 'started', emoji: ':rocket:' },
  DEPLOYMENT_SUCCESSFUL: { text: 'succeeded', emoji: ':white_check_mark:' },
  DEPLOYMENT_FAILURE: { text: 'failed', emoji: ':x:' },
  DEPLOYMENT_CANCELLED: { text: 'was cancelled', emoji: ':no_entry_sign:' },
}

// Slack's mrkdwn gives &, < and > meanings of their own.
const slackText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

/** A message Slack's incoming webhooks accept: `text` for notifications, blocks for the channel. */
export function slackBody(delivery: DeliveryToSend, publicUrl: string) {
  const body = standardBody(delivery, publicUrl)
  const words = EVENT_WORDS[delivery.event]
  const where = `${body.project.name ?? '?'} / ${body.environment.name ?? '?'}`
  const what = `${body.trigger_action} of ${where} ${words.text}`
  const services = body.services.map(
    (service) => `• ${slackText(service.name)}${service.version ? ` (${slackText(service.version)})` : ''}: ${service.status}`,
  )
  return {
    text: `${words.emoji} ${body.test ? '[test] ' : ''}${slackText(what)}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `${words.emoji} *${slackText(what)}*` } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Status*\n${body.status}` },
          { type: 'mrkdwn', text: `*Environment*\n${slackText(where)} (${body.environment.mode ?? '?'})` },
          { type: 'mrkdwn', text: `*Triggered by*\n${slackText(body.triggered_by)} (${body.origin})` },
          { type: 'mrkdwn', text: `*Organization*\n${slackText(body.organization.name)}` },
        ],
      },
      ...(services.length > 0 ? [{ type: 'section', text: { type: 'mrkdwn', text: services.join('\n') } }] : []),
      ...(body.message ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: slackText(body.message) }] }] : []),
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in the console' }, url: body.console_url }] },
    ],
  }
}

export function bodyOf(kind: WebhookKind, delivery: DeliveryToSend, publicUrl: string): object {
  return kind === 'SLACK' ? slackBody(delivery, publicUrl) : standardBody(delivery, publicUrl)
}

/**
 * The Standard Webhooks signature (standardwebhooks.com): HMAC-SHA256 over `id.timestamp.body`,
 * keyed with the secret's UTF-8 bytes, in base64, as `v1,<signature>`.
 */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

/** The headers of one attempt; `secret` null sends no signatures. */
export function deliveryHeaders(id: string, timestamp: number, body: string, secret: string | null): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Berth-Webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    ...(secret === null ? {} : { 'qovery-signature': secret, 'webhook-signature': standardSignature(secret, id, timestamp, body) }),
  }
}

export const MASKED = '********'

/** The request as an attempt records it: the secret header masked. */
export function recordedRequest(url: string, headers: Record<string, string>, body: object) {
  return {
    method: 'POST',
    url,
    headers: 'qovery-signature' in headers ? { ...headers, 'qovery-signature': MASKED } : headers,
    body,
  }
}
