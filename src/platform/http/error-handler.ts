import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable, isTransactionConflict, violatedForeignKey } from '../db/errors.ts'
import { redactUrl } from '../logger.ts'
import { AppError, bodyNotJson, type FieldError, validationFailed } from './errors.ts'
import { API_CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from './security-headers.ts'

const LOCATION = { body: 'body', params: 'path', querystring: 'query', headers: 'header' } as const

interface AjvIssue {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
  schemaPath?: string
}

const isAlternatives = (issue: AjvIssue) => issue.keyword === 'anyOf' || issue.keyword === 'oneOf'

/**
 * A value that fits none of a union's alternatives yields one issue per alternative plus one for
 * the union. Report it once ("must be string or null"), or not at all when the real mistake is
 * deeper inside the value and reported there.
 */
function collapseAlternatives(issues: AjvIssue[]): AjvIssue[] {
  const unionPaths = new Set(issues.filter(isAlternatives).map((issue) => issue.instancePath))
  if (unionPaths.size === 0) return issues
  const kept = issues.filter((issue) => !unionPaths.has(issue.instancePath))
  for (const path of unionPaths) {
    if (kept.some((issue) => issue.instancePath.startsWith(`${path}/`))) continue
    const types = [...new Set(issues.filter((i) => i.instancePath === path && i.keyword === 'type').map((i) => String(i.params.type)))]
    const message = types.length > 0 ? `must be ${types.join(' or ')}` : 'does not match any of the allowed shapes'
    kept.push({ instancePath: path, keyword: 'alternatives', message, params: {} })
  }
  return kept
}

/** Turns Ajv's issues into field errors that name the offending value by its JSON pointer. */
function fieldErrors(issues: AjvIssue[], context: string | undefined): FieldError[] {
  const location = LOCATION[context as keyof typeof LOCATION] ?? 'body'
  const seen = new Set<string>()
  const errors: FieldError[] = []
  for (const issue of collapseAlternatives(issues)) {
    let pointer = issue.instancePath
    if (issue.keyword === 'required') pointer += `/${String(issue.params.missingProperty)}`
    if (location !== 'body' && pointer === '' && issue.keyword !== 'required') pointer = '/'
    let message = issue.message ?? 'is invalid'
    if (issue.keyword === 'required') message = 'is required'
    else if (issue.keyword === 'enum') message = `must be one of ${(issue.params.allowedValues as unknown[]).join(', ')}`
    // An object that refuses other members (`additionalProperties: {not: {}}`) names each one.
    else if (issue.keyword === 'not' && issue.schemaPath?.endsWith('/additionalProperties/not')) message = 'is not a known key'
    // One error per value: the first rule it breaks is enough to act on.
    const key = pointer
    if (seen.has(key)) continue
    seen.add(key)
    errors.push({ path: pointer, message, location })
  }
  return errors
}

/** Maps Fastify's own errors (parsing, limits, validation) onto the API's error codes. */
function fromFastifyError(error: FastifyError): AppError {
  if (error.validation) {
    const errors = fieldErrors(error.validation as AjvIssue[], error.validationContext)
    return validationFailed(errors)
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'request body is larger than 1 MiB')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return bodyNotJson()
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('bad_request', 'Content-Length does not match the body')
    case 'FST_ERR_BAD_URL':
      return new AppError('bad_request', 'the URL path is not valid percent-encoded UTF-8')
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('bad_request', 'a path segment is longer than 200 characters')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_json', 'request body is not valid JSON')
  }
  if (isDatabaseUnavailable(error)) {
    return new AppError('service_unavailable', 'the database is unavailable; try again shortly', { headers: { 'retry-after': '5' } })
  }
  // What a service did not expect of a race: a row it refers to deleted meanwhile, or a deadlock
  // it lost. Either statement failed whole, so the request changed nothing and may be sent again.
  if (violatedForeignKey(error) !== undefined) {
    return new AppError('conflict', 'something this request refers to was deleted while it ran; nothing was changed')
  }
  if (isTransactionConflict(error)) {
    return new AppError('conflict', 'the request collided with a concurrent change and was undone; send it again', {
      headers: { 'retry-after': '1' },
    })
  }
  if (error instanceof SyntaxError) {
    // JSON.parse failures and secure-json-parse's prototype-poisoning refusal.
    return new AppError('invalid_json', 'request body is not valid JSON or uses a forbidden key (__proto__, constructor.prototype)')
  }
  const status = error.statusCode ?? 500
  // Another client error (a static file's Range or If-Match): its message describes the request.
  if (status >= 400 && status < 500) return new AppError('client_error', error.message, { status })
  return new AppError('internal_error', 'internal server error')
}

export function errorBody(error: AppError, requestId: string) {
  return {
    status: error.status,
    error: STATUS_CODES[error.status] ?? 'Error',
    message: error.message,
    detail: error.message,
    code: error.code,
    request_id: requestId,
    ...(error.errors ? { errors: error.errors } : {}),
  }
}

function send(reply: FastifyReply, request: FastifyRequest, error: AppError) {
  if (error.headers) reply.headers(error.headers)
  // Errors raised before routing (a malformed URL) skip the onRequest hook that sets it.
  reply.header('x-request-id', request.id)
  return reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(error, request.id))
}

function handleError(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
  const appError = error instanceof AppError ? error : fromFastifyError(error)
  if (appError.status >= 500) request.log.error({ err: error }, 'request failed')
  else request.log.info({ code: appError.code, status: appError.status }, appError.message)
  return send(reply, request, appError)
}

/**
 * For Fastify's `frameworkErrors` option: errors the router raises before any route or hook runs
 * (a malformed URL, an over-long path segment) leave in the same shape as every other error.
 */
export const frameworkErrors = handleError

/** One error handler for the whole app: every error leaves as the one JSON error body (docs/errors.md, "Errors"); 5xx never leak. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(handleError)
  app.setNotFoundHandler((request, reply) =>
    // The message is logged: a credential pasted into the path must not be.
    send(reply, request, new AppError('route_not_found', `no route ${request.method} ${redactUrl(request.url.split('?')[0]!)}`)),
  )
}

/** What Node's HTTP parser refused, as one of the API's errors (llhttp's error codes). */
function parserError(error: NodeJS.ErrnoException): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('headers_too_large', 'the request headers are larger than this server accepts (16 KiB in all)')
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('request_timeout', 'the request did not arrive in time')
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      // Two framings that proxies may read differently: the classic request smuggling.
      return new AppError('bad_request', 'a request may not carry both Content-Length and Transfer-Encoding, nor an unknown Transfer-Encoding')
    case 'HPE_INVALID_CONTENT_LENGTH':
      return new AppError('bad_request', 'the Content-Length header is not a single number')
    default:
      return new AppError('bad_request', 'malformed HTTP request: it could not be parsed')
  }
}

/**
 * For Fastify's `clientErrorHandler`: a request Node's HTTP parser refused (headers over the limit,
 * a malformed request line or header, Content-Length with Transfer-Encoding) never becomes a
 * Fastify request, so no hook runs for it. Its answer is written here by hand, in the error shape
 * and with the security headers of every other answer, and the connection is closed: after a
 * parse error nothing further on it can be trusted.
 */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const appError = parserError(error)
  const requestId = randomUUID()
  this.log.debug({ code: appError.code, parserCode: error.code, reqId: requestId }, appError.message)
  // Not when a response on this connection has begun: its bytes would be mixed with these.
  const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true
  if (socket.writable && !started) {
    const body = JSON.stringify(errorBody(appError, requestId))
    const headers: Record<string, string> = {
      ...SECURITY_HEADERS,
      'content-security-policy': API_CONTENT_SECURITY_POLICY,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      'x-request-id': requestId,
      connection: 'close',
    }
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')
    socket.write(`HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\n${head}\r\n${body}`)
  }
  socket.destroy()
}
