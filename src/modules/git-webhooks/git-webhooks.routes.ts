import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { type JsonParser, parseJsonBuffer } from '#src/platform/http/body-parsing.ts'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { AppError } from '#src/platform/http/errors.ts'
import { GitWebhookDeliveryResponse, GitWebhookSecretResponse } from './git-webhooks.schemas.ts'
import type { DeliveryOutcome, GitWebhooksService, WebhookSecretRecord } from './git-webhooks.service.ts'
import { DELIVERY_HEADER, EVENT_HEADER } from './push-events.ts'
import { hasSignature, SIGNATURE_HEADER, WEBHOOK_PROVIDERS, type WebhookProvider, webhookPath } from './webhook-signatures.ts'

// Berth-specific routes (docs/git-push.md, "Deploying on git push"): an organization's webhook secret, for
// ADMINs, and the endpoints git providers deliver push events to, signed with it.

const tags = ['Git Webhooks']
const PROVIDER_NAMES: Record<WebhookProvider, string> = { github: 'GitHub', gitlab: 'GitLab', bitbucket: 'Bitbucket Cloud' }
const operationName = (provider: WebhookProvider) => `${provider[0]!.toUpperCase()}${provider.slice(1)}`

function toSecretResponse(record: WebhookSecretRecord) {
  return {
    organization_id: record.organizationId,
    secret: record.secret,
    created_at: record.createdAt?.toISOString() ?? null,
    rotated_at: record.rotatedAt?.toISOString() ?? null,
    webhook_paths: Object.fromEntries(WEBHOOK_PROVIDERS.map((provider) => [provider, webhookPath(record.organizationId, provider)])) as Record<
      WebhookProvider,
      string
    >,
  }
}

const toDeliveryResponse = (outcome: DeliveryOutcome) => ({
  delivery_id: outcome.deliveryId,
  outcome: outcome.outcome,
  reason: outcome.reason,
  deployments: outcome.deployments.map((deployment) => ({
    execution_id: deployment.executionId,
    environment_id: deployment.environmentId,
    service_ids: deployment.serviceIds,
  })),
  ...(outcome.deletedEnvironmentIds === undefined ? {} : { deleted_environment_ids: outcome.deletedEnvironmentIds }),
})

/** The organization's webhook secret: read, made or rotated, removed. ADMIN only; registered with the authenticated routes. */
export function gitWebhookSecretRoutes(webhooks: GitWebhooksService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const path = '/organization/:organizationId/gitWebhookSecret'
    app.get(
      path,
      {
        schema: {
          operationId: 'getGitWebhookSecret',
          summary: "Get the organization's git webhook secret",
          description: 'Berth extension. Needs the ADMIN role. `secret` is null until an ADMIN makes one with POST.',
          tags,
          params: OrganizationParams,
          response: { 200: GitWebhookSecretResponse },
        },
      },
      async (req) => toSecretResponse(await webhooks.getSecret(req.principal, req.params.organizationId)),
    )
    app.post(
      path,
      {
        schema: {
          operationId: 'rotateGitWebhookSecret',
          summary: "Make or rotate the organization's git webhook secret",
          description:
            'Berth extension. Needs the ADMIN role. Makes a new secret, sealed at rest; deliveries signed with the previous one are refused from now on.',
          tags,
          params: OrganizationParams,
          response: { 201: GitWebhookSecretResponse },
        },
      },
      async (req, reply) => reply.code(201).send(toSecretResponse(await webhooks.rotateSecret(req.principal, req.params.organizationId))),
    )
    app.delete(
      path,
      {
        schema: {
          operationId: 'deleteGitWebhookSecret',
          summary: "Remove the organization's git webhook secret",
          description: 'Berth extension. Needs the ADMIN role. Every delivery is refused until a new secret is made.',
          tags,
          params: OrganizationParams,
        },
      },
      async (req, reply) => {
        await webhooks.deleteSecret(req.principal, req.params.organizationId)
        return reply.code(204).send()
      },
    )
  }
}

const unsigned = (provider: WebhookProvider) =>
  new AppError('unauthenticated', `the delivery is not signed: ${SIGNATURE_HEADER[provider]} is missing (README, "Deploying on git push")`)

/**
 * The endpoints providers deliver to. Registered outside the authenticated routes: the provider's
 * signature over the body's bytes is the credential, so the body is kept as bytes and parsed
 * (as every JSON body) only once it verified.
 */
export function gitWebhookDeliveryRoutes(webhooks: GitWebhooksService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const parseJson: JsonParser = app.getDefaultJsonParser('error', 'error')
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

    for (const provider of WEBHOOK_PROVIDERS) {
      app.post(
        `/organization/:organizationId/gitWebhook/${provider}`,
        {
          config: { providerSigned: true },
          // An unsigned delivery is refused before its body is read.
          onRequest: async (request) => {
            if (!hasSignature(provider, request.headers)) throw unsigned(provider)
          },
          schema: {
            operationId: `receive${operationName(provider)}Webhook`,
            summary: `Receive a ${PROVIDER_NAMES[provider]} webhook delivery`,
            description: `Berth extension, called by ${PROVIDER_NAMES[provider]}, not by API clients: no Authorization header; the delivery is verified with \`${SIGNATURE_HEADER[provider]}\` against the organization's git webhook secret. The body is the provider's event as JSON (\`application/json\`); \`${EVENT_HEADER[provider]}\` names the event and \`${DELIVERY_HEADER[provider]}\` the delivery. A push to a branch queues a deployment of every service with \`auto_deploy\` on that follows it (origin GIT); a pull (merge) request opened, updated or closed makes, redeploys or deletes its preview environments (docs/previews.md); other events, tag pushes, deleted branches and replayed deliveries deploy nothing.`,
            tags,
            params: OrganizationParams,
            security: [],
            response: {
              200: GitWebhookDeliveryResponse,
              401: Type.Ref('ErrorResponse', {
                description: "the delivery is unsigned, or its signature does not match the organization's secret (`unauthenticated`)",
              }),
            },
          },
        },
        async (req) => {
          const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
          const parse = (bytes: Buffer) =>
            new Promise<unknown>((resolve, reject) =>
              parseJsonBuffer(parseJson, req, bytes, (error, value) => (error ? reject(error) : resolve(value))),
            )
          return toDeliveryResponse(await webhooks.receive(req.params.organizationId, provider, req.headers, body, parse))
        },
      )
    }
  }
}
