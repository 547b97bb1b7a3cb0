import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

const errorResponse = (description: string) => Type.Ref('ErrorResponse', { description })

/** The errors any authenticated operation may answer with, each documented with its cause. */
const COMMON_ERRORS = {
  400: errorResponse('invalid request: `errors[]` names each invalid value (`bad_request`, `validation_failed`, `invalid_json`)'),
  401: errorResponse('missing, malformed, unknown, revoked or expired credentials (`unauthenticated`)'),
  403: errorResponse("the caller's role is too low for the operation (`forbidden`)"),
  '4xx': errorResponse('any other client error'),
  500: errorResponse('unexpected server error; `request_id` finds it in the logs (`internal_error`)'),
  503: errorResponse(
    'the database, or for Bearer JWTs the OpenID Connect issuer, is unavailable; retry after `Retry-After` seconds (`service_unavailable`)',
  ),
  '5xx': errorResponse('any other server error'),
}

/** For operations on a resource named in the path. */
const NOT_FOUND = {
  404: errorResponse('no such resource, or it belongs to an organization the caller is not in (`not_found`)'),
}

/** For operations that take a body. */
const BODY_ERRORS = {
  409: errorResponse('the name is already taken (`conflict`)'),
  413: errorResponse('the body is larger than 1 MiB (`payload_too_large`)'),
  415: errorResponse('the body is not `application/json` (`unsupported_media_type`)'),
}

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
    const methods = [route.method].flat()
    const errors = {
      ...COMMON_ERRORS,
      ...(route.url.includes(':') ? NOT_FOUND : {}),
      ...(methods.includes('POST') || methods.includes('PUT') ? BODY_ERRORS : {}),
    }
    for (const [status, error] of Object.entries(errors)) response[status] ??= error
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
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    // The page must also work over plain HTTP on a private network, where this would break it.
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
    uiConfig: { deepLinking: true },
  })
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger())
}
