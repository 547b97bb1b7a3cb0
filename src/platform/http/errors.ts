/** Every error code the API answers with, and its HTTP status. One table, used everywhere. */
export const ERROR_STATUS = {
  bad_request: 400,
  validation_failed: 400,
  invalid_json: 400,
  /** Another client error the HTTP layer raised (416 for a bad Range, 412 for If-Match…): its own status. */
  client_error: 400,
  unauthenticated: 401,
  /** The request did not arrive in time (Node's request timeout). */
  request_timeout: 408,
  forbidden: 403,
  not_found: 404,
  route_not_found: 404,
  conflict: 409,
  /** An `If-Match` that no longer matches: someone changed the resource since the caller read it. */
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** The request's headers are over Node's limit (--max-http-header-size, 16 KiB by default). */
  headers_too_large: 431,
  /** A git provider refused the git token (wrong, expired, revoked, or without the needed scope). */
  git_token_invalid: 400,
  /** The git provider knows no such repository, or the git token cannot see it. */
  repository_not_found: 404,
  /** The git provider's rate limit is exhausted; `Retry-After` says when it resets. */
  rate_limited: 429,
  internal_error: 500,
  /** A git provider was unreachable, failed, or answered something unusable. */
  bad_gateway: 502,
  service_unavailable: 503,
  /** A git provider did not answer within BERTH_GIT_TIMEOUT_MS. */
  gateway_timeout: 504,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export interface FieldError {
  /** JSON pointer to the offending value, relative to `location`. */
  path: string
  message: string
  location?: 'body' | 'path' | 'query' | 'header'
}

/** The one error type that services and hooks throw; the error handler renders it. */
export class AppError extends Error {
  readonly code: ErrorCode
  readonly errors: FieldError[] | undefined
  readonly headers: Record<string, string> | undefined
  readonly status: number

  constructor(code: ErrorCode, message: string, options: { errors?: FieldError[]; headers?: Record<string, string>; status?: number } = {}) {
    super(message)
    this.name = 'AppError'
    this.code = code
    this.errors = options.errors
    this.headers = options.headers
    this.status = code === 'client_error' && options.status ? options.status : ERROR_STATUS[code]
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`)

export const bodyNotJson = () => new AppError('unsupported_media_type', 'request bodies must be JSON (Content-Type: application/json)')

/** A 400 naming every invalid value; the message summarises the first few. */
export function validationFailed(errors: FieldError[]): AppError {
  const first = errors.slice(0, 3).map((e) => `${e.location === 'body' || !e.location ? '' : `${e.location} `}${e.path || '/'} ${e.message}`)
  const message = `invalid request: ${first.join('; ')}${errors.length > 3 ? `; and ${errors.length - 3} more` : ''}`
  return new AppError('validation_failed', message, { errors })
}
