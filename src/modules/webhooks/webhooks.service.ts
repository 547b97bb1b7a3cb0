import { organizationRecordReads } from '#src/modules/organizations/organization-records.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { whenParentGone } from '#src/platform/db/errors.ts'
import { notFound, validationFailed } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { DeploymentFacts } from './webhook-bodies.ts'
import { targetUrlProblem } from './webhook-targets.ts'
import type { WebhookAttemptRow, WebhookRow, WebhooksRepository } from './webhooks.repository.ts'
import type { WebhookEvent, WebhookKind } from './webhooks.schemas.ts'

interface Deps {
  repo: WebhooksRepository
  organizations: OrganizationsService
  secrets: SecretBox
  /** May a target lead into the server's own network (the operator's opt-in). */
  allowPrivateUrls: boolean
  listLimit?: number
}

/** A webhook as created or replaced. `targetSecret` undefined keeps the stored secret on edit; null removes it. */
export interface WebhookInput {
  kind: WebhookKind
  targetUrl: string
  targetSecret: string | null | undefined
  description: string | null
  enabled: boolean
  events: WebhookEvent[]
  projectNamesFilter: string[]
  environmentTypesFilter: string[]
}

/**
 * Organization webhooks. Every operation needs the ADMIN role, reads included: a target URL is often
 * a credential itself (a Slack incoming webhook's address is all it takes to post to the channel),
 * and the attempts show what receivers answered.
 */
export function createWebhooksService({ repo, organizations, secrets, allowPrivateUrls, listLimit = DEFAULT_LIST_LIMIT }: Deps) {
  function checkInput(input: WebhookInput): void {
    const problem = targetUrlProblem(input.targetUrl, allowPrivateUrls)
    if (problem) throw validationFailed([{ path: '/target_url', message: problem, location: 'body' }])
  }

  const columns = (input: WebhookInput) => ({
    kind: input.kind,
    targetUrl: input.targetUrl,
    description: input.description,
    enabled: input.enabled,
    events: input.events,
    projectNamesFilter: input.projectNamesFilter,
    environmentTypesFilter: input.environmentTypesFilter,
    ...(input.targetSecret === undefined ? {} : { targetSecretSealed: input.targetSecret === null ? null : secrets.seal(input.targetSecret) }),
  })

  const { get, list } = organizationRecordReads(organizations, repo, { role: 'ADMIN', noun: 'webhook', listLimit })

  return {
    list,
    get,

    async create(principal: Principal, organizationId: string, input: WebhookInput): Promise<WebhookRow> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      checkInput(input)
      return whenParentGone(
        () => notFound('organization'),
        () => repo.insert({ organizationId, targetSecretSealed: null, ...columns(input) }),
      )
    },

    async update(principal: Principal, organizationId: string, webhookId: string, input: WebhookInput): Promise<WebhookRow> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      checkInput(input)
      const row = await repo.update(organizationId, webhookId, columns(input))
      if (!row) throw notFound('webhook')
      return row
    },

    async delete(principal: Principal, organizationId: string, webhookId: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      if (!(await repo.delete(organizationId, webhookId))) throw notFound('webhook')
    },

    /**
     * Sends the webhook an example of what it receives (a successful deployment of made-up names,
     * `test: true`), through the outbox like any event, even when disabled: its attempts are listed.
     */
    async test(principal: Principal, organizationId: string, webhookId: string): Promise<{ id: string }> {
      const { organization } = await organizations.requireRole(principal, organizationId, 'ADMIN')
      const webhook = await repo.findById(organizationId, webhookId)
      if (!webhook) throw notFound('webhook')
      const event = webhook.events.includes('DEPLOYMENT_SUCCESSFUL') || webhook.events.length === 0 ? 'DEPLOYMENT_SUCCESSFUL' : webhook.events[0]!
      const now = new Date().toISOString()
      const facts: DeploymentFacts = {
        test: true,
        organization: { id: organizationId, name: organization.name },
        project: { id: null, name: 'example project' },
        environment: { id: '00000000-0000-0000-0000-000000000000', name: 'example environment', mode: 'DEVELOPMENT' },
        entry: {
          status: 'DEPLOYED',
          action_status: 'SUCCESS',
          trigger_action: 'DEPLOY',
          message: 'a test delivery: no deployment happened',
          auditing_data: { created_at: now, updated_at: now },
          stages: [],
        },
        triggered_by: principal.kind === 'api_token' ? principal.name : principal.userId,
        origin: 'API',
        occurred_at: now,
      }
      return { id: await repo.insertTestDelivery(organizationId, webhookId, event, facts) }
    },

    /** Every attempt at delivering to the webhook, newest first. */
    async listEvents(
      principal: Principal,
      organizationId: string,
      webhookId: string,
    ): Promise<CappedList<WebhookAttemptRow & { executionId: string }>> {
      await get(principal, organizationId, webhookId)
      return capped(listLimit, (limit) => repo.listAttempts(organizationId, webhookId, limit))
    },
  }
}

export type WebhooksService = ReturnType<typeof createWebhooksService>
