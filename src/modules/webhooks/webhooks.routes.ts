import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { organizationResourceRoutes } from '#src/platform/http/organization-resource.routes.ts'
import { WebhookEventResponseList, WebhookParams, WebhookRequest, WebhookResponse, WebhookResponseList } from './webhooks.schemas.ts'
import type { WebhooksService } from './webhooks.service.ts'
import { toWebhookEventResponse, toWebhookResponse, webhookInput } from './webhooks.wire.ts'

const tags = ['Organization Webhook']
const ADMIN = 'Needs the ADMIN role (a target URL is often a credential itself).'

export function webhooksRoutes(webhooks: WebhooksService): FastifyPluginAsyncTypebox {
  const resource = organizationResourceRoutes(
    {
      segment: 'webhook',
      param: 'webhookId',
      tags,
      schemas: { params: WebhookParams, request: WebhookRequest, response: WebhookResponse, responseList: WebhookResponseList },
      docs: {
        list: { operationId: 'listOrganizationWebHooks', summary: 'List organization webhooks', description: `${ADMIN} Oldest first.` },
        create: {
          operationId: 'createOrganizationWebhook',
          summary: 'Create an organization webhook',
          description: `${ADMIN} The target URL follows the address rules of git providers (BERTH_ALLOW_PRIVATE_URLS lets it lead to loopback or private addresses). The secret is never returned.`,
        },
        get: { operationId: 'getOrganizationWebhook', summary: 'Get an Organization webhook', description: ADMIN },
        edit: {
          operationId: 'editOrganizationWebhook',
          summary: 'Edit an organization webhook',
          description: `${ADMIN} A full replacement, except target_secret: absent keeps the stored secret, empty removes it. Takes effect for the next event.`,
        },
        delete: {
          operationId: 'deleteOrganizationWebhook',
          summary: 'Delete organization webhook',
          description: `${ADMIN} Events not yet delivered to it are dropped.`,
        },
      },
      inUse: 'never refused',
      toInput: webhookInput,
      toResponse: toWebhookResponse,
    },
    webhooks,
  )

  return async (app) => {
    await app.register(resource)
    app.get(
      '/organization/:organizationId/webhook/:webhookId/event',
      {
        schema: {
          operationId: 'listWebhookEvent',
          summary: 'List events of a webhook',
          description: `${ADMIN} Every attempt at a delivery, newest first: the request sent (the secret masked) and what the target answered.`,
          tags,
          params: WebhookParams,
          response: { 200: WebhookEventResponseList },
        },
      },
      async (req) => listBody(await webhooks.listEvents(req.principal, req.params.organizationId, req.params.webhookId), toWebhookEventResponse),
    )

    app.post(
      '/organization/:organizationId/webhook/:webhookId/test',
      {
        schema: {
          operationId: 'testOrganizationWebhook',
          summary: 'Send a test delivery to an organization webhook',
          description: `Berth extension. ${ADMIN} Queues an example event (a successful deployment of made-up names, \`test: true\`), delivered like any other, even to a disabled webhook; its attempts are listed by listWebhookEvent.`,
          tags,
          params: WebhookParams,
          response: { 201: Type.Object({ id: Uuid }, { description: 'the test event, queued' }) },
        },
      },
      async (req, reply) => reply.code(201).send(await webhooks.test(req.principal, req.params.organizationId, req.params.webhookId)),
    )
  }
}
