import assert from 'node:assert/strict'
import { STATUS_CODES } from 'node:http'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

export interface ErrorBody {
  status: number
  error: string
  message: string
  detail: string
  code: string
  request_id: string
  errors?: { path: string; message: string; location?: string }[]
}

const ERROR_KEYS = new Set(['status', 'error', 'message', 'detail', 'code', 'request_id', 'errors'])

/**
 * Asserts that a response is the API's one error body (docs/errors.md, "Errors") with that status and code, and
 * returns the body for further checks.
 */
export function assertError(res: LightMyRequestResponse, status: number, code: string): ErrorBody {
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode}: ${res.body}`)
  assert.match(String(res.headers['content-type']), /^application\/json\b/)
  const body = res.json() as ErrorBody
  for (const key of Object.keys(body)) assert.ok(ERROR_KEYS.has(key), `unexpected error field ${key}`)
  assert.equal(body.status, status)
  assert.equal(body.error, STATUS_CODES[status])
  assert.equal(body.code, code)
  assert.equal(typeof body.message, 'string')
  assert.ok(body.message.length > 0, 'message is empty')
  assert.equal(body.detail, body.message)
  assert.equal(typeof body.request_id, 'string')
  assert.ok(body.request_id.length > 0, 'request_id is empty')
  assert.equal(body.request_id, res.headers['x-request-id'])
  if (body.errors !== undefined) {
    assert.ok(Array.isArray(body.errors))
    for (const e of body.errors) {
      assert.equal(typeof e.path, 'string')
      assert.equal(typeof e.message, 'string')
    }
  }
  return body
}

/** A 400 validation error: returns its field errors, which must be present and non-empty. */
export function assertValidationError(res: LightMyRequestResponse): NonNullable<ErrorBody['errors']> {
  const body = assertError(res, 400, 'validation_failed')
  assert.ok(Array.isArray(body.errors) && body.errors.length > 0, `no field errors in ${res.body}`)
  return body.errors
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** An ISO 8601 timestamp as `Date#toISOString` writes it. */
export function assertIsoTimestamp(value: unknown, field: string): void {
  assert.equal(typeof value, 'string', `${field} is not a string`)
  assert.equal(new Date(value as string).toISOString(), value, `${field} is not an ISO timestamp`)
}

/** The HTTP status of the axios error an official-client call rejected with. */
export async function rejectedStatus(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call
  } catch (error) {
    return (error as { response?: { status?: number } }).response?.status
  }
  assert.fail('expected the call to be refused')
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

/** Asserts 401 on each route both without credentials and with an API token that does not exist. */
export async function assertRoutesNeedCredentials(app: FastifyInstance, routes: [Method, string][]): Promise<void> {
  for (const [method, url] of routes) {
    assertError(await app.inject({ method, url }), 401, 'unauthenticated')
    assertError(await app.inject({ method, url, headers: { authorization: 'Token berth_nope' } }), 401, 'unauthenticated')
  }
}

/** `assertError` for an answer read over real HTTP (`call` of berth-processes.ts) rather than injected. */
export function assertErrorAnswer(
  answer: { status: number; text: string; body: unknown; headers: Headers },
  status: number,
  code: string,
): ErrorBody {
  const res = { statusCode: answer.status, headers: Object.fromEntries(answer.headers), body: answer.text, json: () => answer.body }
  return assertError(res as unknown as LightMyRequestResponse, status, code)
}
