import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { createTestApp, type TestApp } from './app.ts'
import { createIsolatedDatabase } from './isolated-database.ts'

/**
 * Reads until `done` holds for what was read, and returns that value; fails with the last value
 * read after `timeoutMs`. For waiting on what runs in the background (a deployment runner), never
 * for timing it.
 */
export async function until<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 25, what = 'condition' } = options
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) assert.fail(`${what} not reached within ${timeoutMs} ms; last read: ${JSON.stringify(value)?.slice(0, 3000)}`)
    await sleep(intervalMs)
  }
}

/** An ISO 8601 duration as Berth writes them: `PT0S`, `PT1.5S`, `PT2M3S`, `PT1H`. */
export const ISO_DURATION = /^PT(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?$/

/** The milliseconds of an ISO 8601 duration as Berth writes them. */
export function durationMs(duration: string): number {
  const match = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(duration)
  assert.ok(match, `not an ISO 8601 duration: ${duration}`)
  return Math.round((Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0)) * 1000)
}

/** The fields of a history entry (contract 2.3), a service's entry (2.6), a Status and an EnvironmentStatus. */
export const ENTRY_KEYS = ['action_status', 'auditing_data', 'identifier', 'message', 'stages', 'status', 'total_duration', 'trigger_action']
export const SERVICE_KEYS = ['auditing_data', 'details', 'icon_uri', 'identifier', 'message', 'status', 'status_details', 'total_duration']
export const STATUS_KEYS = [
  'deployment_request_id',
  'deployment_requests_count',
  'execution_id',
  'id',
  'is_part_last_deployment',
  'last_deployment_date',
  'service_deployment_status',
  'state',
  'status_details',
]
export const ENVIRONMENT_STATUS_KEYS = [
  'deployment_request_id',
  'deployment_status',
  'id',
  'last_deployment_date',
  'last_deployment_id',
  'last_deployment_state',
  'origin',
  'state',
  'total_deployment_duration_in_seconds',
  'triggered_by',
]

export interface AuditingData {
  created_at: string
  updated_at: string
  triggered_by: string
  origin?: string
}

export interface ServiceEntry {
  identifier: { name: string; service_id: string; service_type: string; execution_id: string }
  status: string
  auditing_data: AuditingData
  // biome-ignore lint/suspicious/noExplicitAny: details differ by kind and are read field by field
  details: Record<string, any>
  status_details: { action: string; status: string; sub_action: string }
  icon_uri: string
  total_duration: string
  message: string | null
}

export interface StageEntry {
  name: string
  status: string
  duration: string
  services: ServiceEntry[]
}

export interface EnvironmentEntry {
  identifier: { execution_id: string; environment_id: string }
  auditing_data: AuditingData
  status: string
  trigger_action: string
  total_duration: string
  stages: StageEntry[]
  action_status: string
  message: string | null
}

export interface HistoryPage<T> {
  page: number
  page_size: number
  results: T[]
  next_start_id: string | null
  has_more: boolean
}

/** When a finished run started: its end (`updated_at`) less its `total_duration`. */
export const startedAt = (entry: EnvironmentEntry) => Date.parse(entry.auditing_data.updated_at) - durationMs(entry.total_duration)
export const endedAt = (entry: EnvironmentEntry) => Date.parse(entry.auditing_data.updated_at)

export const FINISHED_ACTION_STATUSES = ['SUCCESS', 'ERROR', 'CANCELED']
export const isFinished = (entry: { action_status: string }) => FINISHED_ACTION_STATUSES.includes(entry.action_status)

export interface DeploymentsTestApp extends TestApp {
  /** The step of the simulated executor: how long each service of a deployment takes. */
  stepMs: number
}

/**
 * The app with a deployment runner in-process, on a database of its own (a runner takes every
 * queued deployment of its database). Polls every 50 ms, leases for 2 s.
 */
export async function createDeploymentsApp(stepMs: number, env: Record<string, string> = {}): Promise<DeploymentsTestApp> {
  const database = await createIsolatedDatabase()
  try {
    const t = await createTestApp(
      {
        DATABASE_URL: database.url,
        BERTH_SIMULATED_STEP_MS: String(stepMs),
        BERTH_RUNNER_POLL_MS: '50',
        BERTH_RUNNER_LEASE_MS: '2000',
        ...env,
      },
      { runner: true },
    )
    return {
      ...t,
      stepMs,
      async close() {
        try {
          await t.close()
        } finally {
          await database.drop()
        }
      },
    }
  } catch (error) {
    await database.drop()
    throw error
  }
}

/** The deployment endpoints through `app.inject`, checked for the status codes that let a test go on. */
export function deploymentCalls(app: FastifyInstance) {
  const inject = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    authorization: string,
    payload?: object,
    headers: Record<string, string> = {},
  ) => app.inject({ method, url, headers: { authorization, ...headers }, ...(payload === undefined ? {} : { payload }) })

  const json = <T>(res: LightMyRequestResponse, status: number): T => {
    assert.equal(res.statusCode, status, `${res.statusCode}: ${res.body}`)
    return res.json() as T
  }

  const query = (params: Record<string, string | number | undefined>) => {
    const defined = Object.entries(params).filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    return defined.length ? `?${new URLSearchParams(defined.map(([key, value]): [string, string] => [key, String(value)]))}` : ''
  }

  // biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
  type Body = Record<string, any>

  /** POSTs a trigger and expects 202; returns the body. */
  const trigger = async (url: string, authorization: string, payload?: object): Promise<Body> =>
    json(await inject('POST', url, authorization, payload), 202)

  const environmentHistory = async (environmentId: string, authorization: string, params: Record<string, string | number | undefined> = {}) =>
    json<HistoryPage<EnvironmentEntry>>(await inject('GET', `/environment/${environmentId}/deploymentHistoryV2${query(params)}`, authorization), 200)

  const helmHistory = async (helmId: string, authorization: string, params: Record<string, string | number | undefined> = {}) =>
    json<HistoryPage<ServiceEntry>>(await inject('GET', `/helm/${helmId}/deploymentHistoryV2${query(params)}`, authorization), 200)

  /** The environment's newest history entries (up to 100). */
  const entries = async (environmentId: string, authorization: string): Promise<EnvironmentEntry[]> =>
    (await environmentHistory(environmentId, authorization, { pageSize: 100 })).results

  /**
   * Waits until the environment's history (newest first, up to 100) satisfies `done`. A deployment
   * on a real engine (a build from git, an image pull, a readiness probe) can take tens of seconds
   * on a loaded CI machine: the wait is long, and returns as soon as `done` holds.
   */
  const waitForEntries = (environmentId: string, authorization: string, done: (entries: EnvironmentEntry[]) => boolean, what?: string) =>
    until(() => entries(environmentId, authorization), done, { what: what ?? `history of environment ${environmentId}`, timeoutMs: 90_000 })

  /** Waits until every deployment of the environment has ended; returns its history, newest first. */
  const waitUntilIdle = (environmentId: string, authorization: string) =>
    waitForEntries(environmentId, authorization, (list) => list.every(isFinished), 'every deployment finished')

  const environmentStatus = async (environmentId: string, authorization: string): Promise<Body> =>
    json(await inject('GET', `/environment/${environmentId}/status`, authorization), 200)

  const helmStatus = async (helmId: string, authorization: string): Promise<Body> =>
    json(await inject('GET', `/helm/${helmId}/status`, authorization), 200)

  return { inject, trigger, environmentHistory, helmHistory, entries, waitForEntries, waitUntilIdle, environmentStatus, helmStatus }
}

export type DeploymentCalls = ReturnType<typeof deploymentCalls>
