import type { FastifyInstance } from 'fastify'

/**
 * Headers every response carries: JSON is not sniffed as something else, framed, or read by other
 * origins' pages, and nothing of the URL leaks in a Referer. A response that set its own content
 * security policy (the /docs page) keeps it. No CORS headers are sent: browsers on other origins
 * are refused, as nothing configures otherwise.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff')
    reply.header('x-frame-options', 'DENY')
    reply.header('referrer-policy', 'no-referrer')
    reply.header('cross-origin-resource-policy', 'same-origin')
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'")
  })
}
