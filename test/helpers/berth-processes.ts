import assert from 'node:assert/strict'
import { after, before } from 'node:test'
import { type Db, openDatabase } from '#src/platform/db/database.ts'
import { TEST_SECRET_KEY } from './app.ts'
import type { EnvironmentEntry, HistoryPage } from './deployments.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './isolated-database.ts'
import type { ChildEnv, RunningProcess } from './process.ts'

// What the tests that run real `berth serve` and `berth worker` processes share: starting and
// stopping them as a group, calling their API over HTTP, reading their JSON logs, and checking
// that no credential ever shows up in what they wrote.

/** The action statuses of a run that a runner still has work in. */
export const UNFINISHED = ['QUEUED', 'ONGOING', 'CANCELING']
/** The state an environment trigger leaves its services in. */
export const DONE_STATE: Record<string, string> = { DEPLOY: 'DEPLOYED', RESTART: 'RESTARTED', STOP: 'STOPPED', UNINSTALL: 'DELETED' }

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
export type Body = Record<string, any>

export interface Answer {
  status: number
  body: Body
  /** The body as sent, for scanning. */
  text: string
  headers: Headers
}

/** One HTTP call to a Berth process; a body is sent as JSON, a string body as it is (JSON or not). */
export async function call(
  baseUrl: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  authorization: string | undefined,
  options: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers }
  if (authorization !== undefined) headers.authorization = authorization
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
    ...(options.signal ? { signal: options.signal } : {}),
  })
  const text = await res.text()
  let body: Body = {}
  if (text) {
    try {
      body = JSON.parse(text) as Body
    } catch {
      body = { unparsed: text }
    }
  }
  return { status: res.status, body, text, headers: res.headers }
}

/** One page of an environment's history through the API (200 expected). */
export async function historyPage(
  baseUrl: string,
  environmentId: string,
  authorization: string,
  query: Record<string, string> = {},
): Promise<HistoryPage<EnvironmentEntry>> {
  const search = new URLSearchParams(query).toString()
  const { status, body } = await call(baseUrl, 'GET', `/environment/${environmentId}/deploymentHistoryV2${search ? `?${search}` : ''}`, authorization)
  assert.equal(status, 200, JSON.stringify(body))
  return body as HistoryPage<EnvironmentEntry>
}

/** The entry of one execution, read through the API. */
export async function entryOf(
  baseUrl: string,
  environmentId: string,
  authorization: string,
  executionId: string,
): Promise<EnvironmentEntry | undefined> {
  const page = await historyPage(baseUrl, environmentId, authorization, { pageSize: '100' })
  return page.results.find((entry) => entry.identifier.execution_id === executionId)
}

/** The pid part of a runner id (`${hostname}/${pid}/${random}`). */
export const pidOf = (runnerId: string) => Number(runnerId.split('/').at(-2))

export type LogLine = { msg?: string; level?: number; [key: string]: unknown }

/** The JSON lines a process wrote on stdout (anything else is left out). */
export function logLines(process: RunningProcess): LogLine[] {
  return process
    .stdout()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as LogLine]
      } catch {
        return []
      }
    })
}

/** The lines at warn (40) or above. */
export const warnings = (process: RunningProcess) => logLines(process).filter((line) => (line.level ?? 0) >= 40)

/** Every process a scenario starts, stopped (SIGTERM, then SIGKILL) whatever happens. */
export function processGroup() {
  const started: RunningProcess[] = []
  return {
    started,
    async add<P extends RunningProcess>(starting: Promise<P>): Promise<P> {
      const running = await starting
      started.push(running)
      return running
    },
    async stopAll(): Promise<void> {
      await Promise.all(started.map((running) => running.stop('SIGTERM', 15_000).catch(() => {})))
    },
  }
}

/**
 * What a describe whose tests run real processes sets up before its tests: a database of its own
 * (runners take every queued run of theirs), a handle on it, and the group of processes; after
 * them, every process is stopped and the database dropped, whatever happened.
 */
export function processScenario(poolSize = 2) {
  let database: IsolatedDatabase | undefined
  let db: Db | undefined
  const group = processGroup()
  before(async () => {
    database = await createIsolatedDatabase()
    db = openDatabase(database.url, poolSize)
  })
  after(async () => {
    await group.stopAll()
    await db?.destroy()
    await database?.drop()
  })
  const made = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the scenario is made in before(): use it in the tests')
    return value
  }
  return {
    group,
    get database(): IsolatedDatabase {
      return made(database)
    },
    get db(): Db {
      return made(db)
    },
  }
}

/** The environment of a serve or worker process on `database`: polling fast, logging at debug (scanned for secrets). */
export function baseEnv(database: IsolatedDatabase, overrides: ChildEnv = {}): ChildEnv {
  return {
    DATABASE_URL: database.url,
    BERTH_SECRET_KEY: TEST_SECRET_KEY,
    BERTH_RUNNER_POLL_MS: '50',
    BERTH_LOG_LEVEL: 'debug',
    ...overrides,
  }
}

/**
 * The forms a credential may leak in: the whole value and, for an API token (`berth_` + random
 * part + checksum), its random part alone, which is the secret.
 */
export function secretForms(secret: string): string[] {
  const forms = [secret]
  const apiToken = /^(?:Token\s+)?berth_([0-9A-Za-z]{43})[0-9A-Za-z]{6}$/.exec(secret)
  if (apiToken) forms.push(apiToken[1]!)
  // A JWT: its payload and signature (its header is the same in every token of a key).
  const jwt = /^(?:Bearer\s+)?([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(secret)
  if (jwt) forms.push(jwt[2]!, jwt[3]!)
  return forms
}

/** Hides a secret in a failure message, leaving enough to tell which it was. */
const masked = (secret: string) => `${secret.slice(0, 8)}…(${secret.length} chars)`

/**
 * Asserts that no form of any of `secrets` appears in `text` (logs, a response), naming the line
 * that holds one with the secret masked. `where` says what was scanned.
 */
export function assertNoSecrets(text: string, secrets: Iterable<string>, where: string): void {
  const forms = new Set<string>()
  for (const secret of secrets) for (const form of secretForms(secret)) if (form.length >= 8) forms.add(form)
  assert.ok(forms.size > 0, 'no secrets to look for')
  for (const form of forms) {
    const at = text.indexOf(form)
    if (at === -1) continue
    const lineStart = text.lastIndexOf('\n', at) + 1
    const lineEnd = text.indexOf('\n', at)
    const line = text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd).replaceAll(form, masked(form))
    assert.fail(`${where} holds a secret (${masked(form)}): ${line.slice(0, 2000)}`)
  }
}

/** Scans everything each process wrote, stdout and stderr. */
export function assertNoSecretsInLogs(processes: Iterable<RunningProcess>, secrets: Iterable<string>): void {
  const list = [...secrets]
  for (const running of processes) assertNoSecrets(running.logs(), list, `the logs of pid ${running.child.pid}`)
}
