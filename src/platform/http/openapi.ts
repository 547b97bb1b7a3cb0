import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { ErrorRef } from './common-schemas.ts'

const DESCRIPTION = `Berth serves the deployment-platform REST API (version 1.0.4 of the public contract).

Authenticate every call with \`Authorization: Token <api token>\` (create one with \`berth token create\`
or \`POST /organization/{organizationId}/apiToken\`) or \`Authorization: Bearer <jwt>\`.

Every error has one JSON body, \`ErrorResponse\`: \`status\`, \`error\`, \`message\`, \`detail\` (same as
\`message\`), \`code\`, \`request_id\`, and \`errors[]\` (\`path\`, \`message\`, \`location\`) for invalid input.`

/**
 * Serves the OpenAPI document at `/openapi.json` and a browsable page at `/docs`. Must run before
 * routes are added: it gives every route the error responses and the security requirement.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (route.config?.public || route.schema?.hide) return
    route.schema ??= {}
    const schema = route.schema
    schema.security ??= [{ bearerAuth: [] }, { ApiKeyAuth: [] }]
    schema.response ??= {}
    const response = schema.response as Record<string, unknown>
    response['4xx'] ??= ErrorRef
    response['5xx'] ??= ErrorRef
    if (route.method === 'DELETE') response[204] ??= { type: 'null', description: 'deleted' }
  })

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Berth: deployment-platform API', version: '1.0.4', description: DESCRIPTION },
      components: {
        securitySchemes: {
          ApiKeyAuth: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'An API token, sent as `Token <api token>`.',
          },
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'A JWT from the configured OpenID Connect issuer.',
          },
        },
      },
    },
    refResolver: {
      // Name shared schemas by their $id instead of def-N.
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  })
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: true } })
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger())
}
