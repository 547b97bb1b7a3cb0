import type { FastifyInstance, FastifyRequest } from 'fastify'
import { unstorablePointer } from '../db/storable-text.ts'
import { AppError, bodyNotJson, validationFailed } from './errors.ts'

// JSON text is UTF-8 (RFC 8259 §8.1). A lenient decoding would turn malformed bytes into U+FFFD
// and store those instead of refusing the body; the BOM is left for the JSON parser to deal with.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

// JSON can escape characters PostgreSQL cannot store in text or jsonb: NUL and lone surrogates.
const UNSTORABLE_ESCAPE = /\\u(0000|d[89a-f][0-9a-f]{2})/i

/**
 * Request bodies are JSON and nothing else: other content types get 415. An empty body sent with
 * a JSON content type counts as no body, since some clients send the header on every call. A body
 * that is not UTF-8, or whose text holds NUL or a lone surrogate, gets 400 here, before it can
 * reach the database.
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
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) =>
    parseJsonBuffer(parseJson, request, body as Buffer, done),
  )
}

/** Fastify's JSON parser, as `getDefaultJsonParser` gives it (prototype poisoning refused). */
export type JsonParser = ReturnType<FastifyInstance['getDefaultJsonParser']>

/**
 * A JSON body's bytes as the app reads every body: UTF-8 only, the empty body as no body, and no
 * text PostgreSQL cannot store (400 at its JSON pointer). For routes that read the bytes themselves
 * first (a signed webhook) and parse after.
 */
export function parseJsonBuffer(
  parseJson: JsonParser,
  request: FastifyRequest,
  body: Buffer,
  done: (error: Error | null, value?: unknown) => void,
): void {
  let text: string
  try {
    text = UTF8.decode(body)
  } catch {
    done(new AppError('invalid_json', 'request body is not valid JSON: it is not UTF-8'), undefined)
    return
  }
  if (text.trim() === '') {
    done(null, undefined)
    return
  }
  if (!UNSTORABLE_ESCAPE.test(text)) {
    parseJson(request, text, done)
    return
  }
  parseJson(request, text, (error, value) => {
    const path = error ? undefined : unstorablePointer(value, { keys: true })
    if (path === undefined) return done(error, value)
    return done(validationFailed([{ path, message: 'must not contain NUL characters or unpaired surrogates', location: 'body' }]), undefined)
  })
}

/**
 * A route's `preValidation` hook for a body the reference makes optional: no body (or an empty one)
 * is validated, and handled, as `{}`. The official clients send none when the caller passes none.
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {}
}
