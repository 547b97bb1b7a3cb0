import type { FastifyInstance } from 'fastify'

/** The API's content security policy: it serves JSON, which needs nothing. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'"

/**
 * Headers every response carries: JSON is not sniffed as something else, framed, or read by other
 * origins' pages, and nothing of the URL leaks in a Referer. Also written by hand on the answers
 * to requests Node's HTTP parser refused (error-handler.ts), which never reach Fastify's hooks.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
})

/**
 * Sets `SECURITY_HEADERS` on every response. A response that set its own content security policy
 * (the /docs page) keeps it. No CORS headers are sent: browsers on other origins are refused, as
 * nothing configures otherwise.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  // Fastify's callback form: no promise per response.
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.headers(SECURITY_HEADERS)
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', API_CONTENT_SECURITY_POLICY)
    done(null, payload)
  })
}
