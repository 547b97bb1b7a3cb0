import type { FastifyInstance, FastifyRequest } from 'fastify'
import { bodyNotJson, validationFailed } from './errors.ts'

// JSON can escape characters PostgreSQL cannot store in text or jsonb: NUL and lone surrogates.
const UNSTORABLE_ESCAPE = /\\u(0000|d[89a-f][0-9a-f]{2})/i

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const isStorable = (text: string) => !text.includes('\0') && !LONE_SURROGATE.test(text)

/** The JSON pointer of the first string (value or key) PostgreSQL cannot store, if any. */
function unstorablePath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isStorable(value) ? undefined : path
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unstorablePath(item, `${path}/${index}`)
      if (found !== undefined) return found
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const pointer = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`
      if (!isStorable(key)) return pointer
      const found = unstorablePath(item, pointer)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * Request bodies are JSON and nothing else: other content types get 415. An empty body sent with
 * a JSON content type counts as no body, since some clients send the header on every call. Text
 * holding NUL or a lone surrogate gets 400 here, before it can reach the database.
 */
export function registerBodyParsing(app: FastifyInstance): void {
  // Fastify parses text/plain by default, which would let text reach validation (400, not 415).
  app.removeContentTypeParser('text/plain')
  // The official client (axios) sends a POST without a body, such as a deploy trigger, as an empty
  // body typed `application/x-www-form-urlencoded`: that is no body. A form body is still refused.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') done(null, undefined)
    else done(bodyNotJson(), undefined)
  })
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string
    if (text.trim() === '') return done(null, undefined)
    if (!UNSTORABLE_ESCAPE.test(text)) return parseJson(request, text, done)
    return parseJson(request, text, (error, value) => {
      const path = error ? undefined : unstorablePath(value)
      if (path === undefined) return done(error, value)
      return done(validationFailed([{ path, message: 'must not contain NUL characters or unpaired surrogates', location: 'body' }]), undefined)
    })
  })
}

/**
 * A route's `preValidation` hook for a body the reference makes optional: no body (or an empty one)
 * is validated, and handled, as `{}`. The official clients send none when the caller passes none.
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {}
}
