import type { FastifyInstance } from 'fastify'

/**
 * Request bodies are JSON and nothing else: other content types get 415. An empty body sent with
 * a JSON content type counts as no body, since some clients send the header on every call.
 */
export function registerBodyParsing(app: FastifyInstance): void {
  // Fastify parses text/plain by default, which would let text reach validation (400, not 415).
  app.removeContentTypeParser('text/plain')
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string
    if (text.trim() === '') return done(null, undefined)
    return parseJson(request, text, done)
  })
}
