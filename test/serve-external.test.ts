import assert from 'node:assert/strict'
import { once } from 'node:events'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Configuration, OrganizationApiTokenApi, OrganizationMainCallsApi } from 'qovery-typescript-axios'
import { TEST_SECRET_KEY, testDatabaseUrl } from './helpers/app.ts'
import { rejectedStatus } from './helpers/assertions.ts'
import { uniqueName } from './helpers/factories.ts'
import { type RunningServer, runCli, startServer } from './helpers/process.ts'

const TOKEN_LINE = /^berth_[0-9A-Za-z]{49}\n$/
const ANY_TOKEN = /berth_[0-9A-Za-z]{49}/

interface LogLine {
  msg?: string
  reqId?: string
  req?: { url?: string; method?: string }
  res?: { statusCode?: number }
  signal?: string
  [key: string]: unknown
}

const external = () => ({ DATABASE_URL: testDatabaseUrl(), BERTH_SECRET_KEY: TEST_SECRET_KEY })

/** `berth token create` on the run's database; fails the test unless it exits 0. */
async function createToken(args: string[]): Promise<string> {
  const result = await runCli(['token', 'create', ...args], external())
  assert.equal(result.code, 0, `token create failed: ${result.stderr}`)
  assert.match(result.stdout, TOKEN_LINE)
  return result.stdout.trim()
}

function clientFor(basePath: string, token: string) {
  const configuration = new Configuration({ basePath, apiKey: `Token ${token}` })
  return { organizations: new OrganizationMainCallsApi(configuration), apiTokens: new OrganizationApiTokenApi(configuration) }
}

/** Every stdout line of the server, parsed: fails the test on a line that is not JSON. */
function parseLogLines(stdout: string): LogLine[] {
  const lines: LogLine[] = []
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue
    try {
      lines.push(JSON.parse(line) as LogLine)
    } catch {
      assert.fail(`log line is not JSON: ${line}`)
    }
  }
  return lines
}

/** Waits (bounded) until the server has logged the completion of the request with this id. */
async function waitForRequestLog(server: RunningServer, requestId: string): Promise<LogLine[]> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const lines = parseLogLines(server.stdout())
    if (lines.some((l) => l.reqId === requestId && l.res !== undefined)) return lines
    if (Date.now() > deadline) assert.fail(`no completion log line for request ${requestId}:\n${server.logs()}`)
    await sleep(50)
  }
}

async function organizationIds(baseUrl: string, token: string): Promise<string[]> {
  const res = await fetch(`${baseUrl}/organization`, { headers: { authorization: `Token ${token}` } })
  assert.equal(res.status, 200)
  const body = (await res.json()) as { results: { id: string }[] }
  return body.results.map((o) => o.id)
}

describe('berth serve on the PostgreSQL of DATABASE_URL', () => {
  let server: RunningServer | undefined
  const orgName = uniqueName('serve external')
  let cliToken = ''
  let cliStdout = ''

  before(async () => {
    server = await startServer(external())
    const result = await runCli(['token', 'create', '--org', orgName], external())
    assert.equal(result.code, 0, `token create failed: ${result.stderr}`)
    cliStdout = result.stdout
    cliToken = result.stdout.trim()
  })
  after(async () => {
    await server?.stop()
  })

  it('answers GET /healthz with 200 and an x-request-id header', async () => {
    const res = await fetch(`${server!.baseUrl}/healthz`)
    assert.equal(res.status, 200)
    assert.deepEqual(await res.json(), { status: 'ok' })
    assert.ok(res.headers.get('x-request-id'), 'x-request-id header is missing')
  })

  it('token create prints the new token alone, as one line on stdout', () => {
    assert.match(cliStdout, TOKEN_LINE)
  })

  it('lists the organization of a CLI-made token through the official client', async () => {
    const { organizations } = clientFor(server!.baseUrl, cliToken)
    const res = await organizations.listOrganization()
    assert.equal(res.status, 200)
    const names = (res.data.results ?? []).map((o) => o.name)
    assert.deepEqual(names, [orgName])
  })

  it('serves the official client configured with a trailing-slash basePath, which requests //organization', async () => {
    const { organizations } = clientFor(`${server!.baseUrl}/`, cliToken)
    const res = await organizations.listOrganization()
    assert.equal(res.status, 200)
    assert.deepEqual(
      (res.data.results ?? []).map((o) => o.name),
      [orgName],
    )
    const requestId = String(res.headers['x-request-id'])
    const lines = await waitForRequestLog(server!, requestId)
    assert.ok(
      lines.some((l) => l.reqId === requestId && l.req?.url === '//organization'),
      'the client was expected to request //organization',
    )
  })

  it('creates, lists and deletes API tokens through the official client; a deleted token gets 401', async () => {
    const admin = clientFor(server!.baseUrl, cliToken)
    const [organization] = (await admin.organizations.listOrganization()).data.results ?? []
    assert.ok(organization)

    const name = uniqueName('client token')
    const created = await admin.apiTokens.createOrganizationApiToken(organization.id, { name, role_id: null, scope: 'ADMIN' })
    assert.equal(created.status, 201)
    const newToken = created.data.token
    assert.ok(newToken)
    assert.match(`${newToken}\n`, TOKEN_LINE)

    const viaNewToken = clientFor(server!.baseUrl, newToken)
    assert.deepEqual(
      ((await viaNewToken.organizations.listOrganization()).data.results ?? []).map((o) => o.id),
      [organization.id],
    )

    const listed = await admin.apiTokens.listOrganizationApiTokens(organization.id)
    const entry = (listed.data.results ?? []).find((t) => t.id === created.data.id)
    assert.ok(entry, 'the new token is not listed')
    assert.equal(entry.name, name)
    assert.equal('token' in entry, false, 'a listing must never contain the secret')
    assert.doesNotMatch(JSON.stringify(listed.data), ANY_TOKEN)

    const deleted = await admin.apiTokens.deleteOrganizationApiToken(organization.id, created.data.id)
    assert.equal(deleted.status, 204)
    assert.equal(await rejectedStatus(viaNewToken.organizations.listOrganization()), 401)
    // The token that deleted it still works.
    assert.equal((await admin.organizations.listOrganization()).status, 200)
  })

  it('logs JSON lines with a reqId for every request, and never a token or an Authorization header value', async () => {
    const admin = clientFor(server!.baseUrl, cliToken)
    const [organization] = (await admin.organizations.listOrganization()).data.results ?? []
    assert.ok(organization)
    const created = await admin.apiTokens.createOrganizationApiToken(organization.id, { name: uniqueName('logged'), role_id: null, scope: 'ADMIN' })
    const secondToken = created.data.token
    assert.ok(secondToken)

    const calls = [
      fetch(`${server!.baseUrl}/organization`, { headers: { authorization: `Token ${cliToken}` } }),
      fetch(`${server!.baseUrl}/organization`, { headers: { authorization: `Token ${secondToken}` } }),
      fetch(`${server!.baseUrl}/organization`, { headers: { authorization: 'Basic c2VjcmV0LXdvcmQtaW4taGVhZGVy' } }),
    ]
    const responses = await Promise.all(calls)
    assert.deepEqual(
      responses.map((r) => r.status),
      [200, 200, 401],
    )
    const requestIds = responses.map((r) => r.headers.get('x-request-id'))
    for (const id of requestIds) assert.ok(id, 'x-request-id header is missing')
    await admin.apiTokens.deleteOrganizationApiToken(organization.id, created.data.id)
    for (const id of requestIds) await waitForRequestLog(server!, id!)

    const logs = server!.logs()
    assert.equal(logs.includes(cliToken), false, 'the CLI token appears in the logs')
    assert.equal(logs.includes(secondToken), false, 'the API-created token appears in the logs')
    assert.equal(logs.includes('c2VjcmV0LXdvcmQtaW4taGVhZGVy'), false, 'an Authorization header value appears in the logs')
    assert.doesNotMatch(logs, ANY_TOKEN)

    const lines = parseLogLines(server!.stdout())
    for (const line of lines.filter((l) => l.req !== undefined || l.res !== undefined)) {
      assert.equal(typeof line.reqId, 'string', `request log line without reqId: ${JSON.stringify(line)}`)
    }
    for (const id of requestIds) {
      const own = lines.filter((l) => l.reqId === id)
      assert.ok(
        own.some((l) => l.req !== undefined),
        `no incoming-request line for ${id}`,
      )
      assert.ok(
        own.some((l) => l.res !== undefined),
        `no request-completed line for ${id}`,
      )
    }
  })

  it('token create run twice with the same --org reuses that one organization', async () => {
    const name = uniqueName('reused org')
    const first = await createToken(['--org', name])
    const second = await createToken(['--org', name, '--role', 'read', '--name', 'reader'])
    const ids = await organizationIds(server!.baseUrl, first)
    assert.equal(ids.length, 1)
    assert.deepEqual(await organizationIds(server!.baseUrl, second), ids)

    const listed = await clientFor(server!.baseUrl, first).apiTokens.listOrganizationApiTokens(ids[0]!)
    const reader = (listed.data.results ?? []).find((t) => t.name === 'reader')
    assert.ok(reader, 'the --name of the second token is not listed')
    assert.equal(reader.role_name, 'READ')
  })

  it('token create finds an existing organization whose name PostgreSQL and JavaScript lower-case differently', async () => {
    // JavaScript lower-cases İ to i + U+0307, PostgreSQL to i: the name must be compared one way.
    const name = uniqueName('İstanbul')
    const first = await createToken(['--org', name])
    const second = await createToken(['--org', name])
    const third = await createToken(['--org', name.toLocaleUpperCase('tr')])
    const ids = await organizationIds(server!.baseUrl, first)
    assert.equal(ids.length, 1)
    assert.deepEqual(await organizationIds(server!.baseUrl, second), ids)
    assert.deepEqual(await organizationIds(server!.baseUrl, third), ids)
  })

  it('token create needs no secret key: without BERTH_SECRET_KEY it makes no key file', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'berth-no-key-'))
    try {
      const env = { DATABASE_URL: testDatabaseUrl(), BERTH_SECRET_KEY: undefined, BERTH_DATA_DIR: dataDir }
      const result = await runCli(['token', 'create', '--org', uniqueName('keyless')], env)
      assert.equal(result.code, 0, result.stderr)
      assert.equal(existsSync(path.join(dataDir, 'secret.key')), false)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('token create --expires-in 1s makes a token that is refused with 401 once expired', async () => {
    const token = await createToken(['--org', uniqueName('expiring'), '--expires-in', '1s'])
    const deadline = Date.now() + 20_000
    let res: Response
    for (;;) {
      res = await fetch(`${server!.baseUrl}/organization`, { headers: { authorization: `Token ${token}` } })
      if (res.status !== 200 || Date.now() > deadline) break
      await res.arrayBuffer()
      await sleep(250)
    }
    assert.equal(res.status, 401)
    const body = (await res.json()) as { code: string; message: string }
    assert.equal(body.code, 'unauthenticated')
    assert.match(body.message, /expired/)
  })
})

describe('berth serve shutdown', () => {
  let server: RunningServer | undefined
  before(async () => {
    server = await startServer(external())
  })
  after(async () => {
    await server?.stop('SIGKILL').catch(() => {})
  })

  it('stops on SIGTERM with exit code 0 after logging "stopped"', async () => {
    const res = await fetch(`${server!.baseUrl}/healthz`)
    assert.equal(res.status, 200)
    assert.equal(await server!.stop('SIGTERM'), 0)
    const lines = parseLogLines(server!.stdout())
    assert.ok(
      lines.some((l) => l.msg === 'shutting down' && l.reason === 'SIGTERM'),
      server!.logs(),
    )
    assert.equal(lines.at(-1)?.msg, 'stopped', server!.logs())
  })
})

describe('berth serve shutdown with a request still in flight', () => {
  let server: RunningServer | undefined
  let socket: net.Socket | undefined
  after(async () => {
    socket?.destroy()
    await server?.stop('SIGKILL').catch(() => {})
  })

  it('cuts the request off after BERTH_SHUTDOWN_GRACE_MS and exits with code 1', async () => {
    server = await startServer({ ...external(), BERTH_SHUTDOWN_GRACE_MS: '300' })
    const { hostname, port } = new URL(server.baseUrl)
    socket = net.connect(Number(port), hostname)
    await once(socket, 'connect')
    // A request whose body never completes stays in flight until the server gives up on it.
    socket.write('POST /organization HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":')
    socket.on('error', () => {})
    await sleep(200)
    const started = performance.now()
    assert.equal(await server.stop('SIGTERM', 10_000), 1, server.logs())
    assert.ok(performance.now() - started < 5_000, 'the grace period was not applied')
    const lines = parseLogLines(server.stdout())
    assert.ok(
      lines.some((l) => l.msg === 'requests still running after the grace period; closing them'),
      server.logs(),
    )
    assert.ok(
      lines.some((l) => l.msg === 'stopped'),
      server.logs(),
    )
  })
})

describe('berth migrate', () => {
  it('exits 0 when the DATABASE_URL schema is already up to date', async () => {
    const result = await runCli(['migrate'], external())
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stderr, /schema up to date/)
    assert.equal(result.stdout, '')
  })
})

describe('berth token create usage errors', () => {
  const usageCases: [string, string[], RegExp][] = [
    ['a --role that is not a role', ['--org', 'x', '--role', 'OWNER'], /--role must be/],
    ['no --org', ['--role', 'ADMIN'], /--org is required/],
    ['an --expires-in that is not a duration', ['--org', 'x', '--expires-in', 'soon'], /--expires-in/],
    ['an unknown option', ['--org', 'x', '--owner', 'me'], /unknown option/i],
  ]
  for (const [what, args, message] of usageCases) {
    it(`exits 2 with a message on stderr and nothing on stdout for ${what}`, async () => {
      const result = await runCli(['token', 'create', ...args], external())
      assert.equal(result.code, 2, result.stderr)
      assert.equal(result.stdout, '')
      assert.match(result.stderr, message)
    })
  }
})
