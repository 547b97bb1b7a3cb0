import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Configuration, OrganizationMainCallsApi } from 'qovery-typescript-axios'
import { isAlive } from '#src/platform/db/embedded.ts'
import { type ChildEnv, type RunningServer, runCli, startServer } from './helpers/process.ts'

const TOKEN_LINE = /^berth_[0-9A-Za-z]{49}\n$/
// The first start runs initdb: generous, but bounded.
const START_TIMEOUT_MS = 120_000

/** The postmasters (`postgres -D <dir>[/…]`) running on a data dir, from `ps`. */
function postmastersOn(dataDir: string): { pid: number; args: string }[] {
  assert.ok(path.isAbsolute(dataDir) && dataDir.length > 1, `not a data dir: "${dataDir}"`)
  const within = (dir: string | undefined) => dir !== undefined && (dir === dataDir || dir.startsWith(`${dataDir}${path.sep}`))
  const out = execFileSync('ps', ['-ww', '-eo', 'pid=,args='], { encoding: 'utf8' })
  return out
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), args: m[2]!, words: m[2]!.split(/\s+/) }))
    .filter(({ words }) => /(^|\/)postgres$/.test(words[0]!) && within(words[words.indexOf('-D') + 1]))
    .map(({ pid, args }) => ({ pid, args }))
}

async function organizationNames(baseUrl: string, token: string): Promise<string[]> {
  const res = await fetch(`${baseUrl}/organization`, { headers: { authorization: `Token ${token}` } })
  assert.equal(res.status, 200, await res.clone().text())
  const body = (await res.json()) as { results: { name: string }[] }
  return body.results.map((o) => o.name)
}

async function assertHealthy(baseUrl: string): Promise<void> {
  const res = await fetch(`${baseUrl}/healthz`)
  assert.equal(res.status, 200)
  assert.deepEqual(await res.json(), { status: 'ok' })
}

describe('berth with its embedded PostgreSQL (no DATABASE_URL)', () => {
  const orgName = 'embedded smoke'
  let root = ''
  let dataDir = ''
  let env: ChildEnv = {}
  const servers: RunningServer[] = []
  let firstToken = ''

  const serve = async () => {
    const server = await startServer(env, { timeoutMs: START_TIMEOUT_MS })
    servers.push(server)
    return server
  }
  const tokenCreate = (...args: string[]) => runCli(['token', 'create', '--org', orgName, ...args], env, { timeoutMs: START_TIMEOUT_MS })

  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'berth-embedded-'))
    // mkdtemp makes it private; as root, the postgres system user must be able to traverse it.
    await fs.chmod(root, 0o711)
    dataDir = path.join(root, 'data')
    env = { DATABASE_URL: undefined, BERTH_DATA_DIR: dataDir }
  })

  after(async () => {
    for (const server of servers) await server.stop('SIGTERM').catch(() => {})
    // Last resort: a postmaster a failed test left behind on our temp dir.
    for (const { pid } of dataDir ? postmastersOn(dataDir) : []) {
      process.kill(pid, 'SIGQUIT')
      for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(100)
    }
    if (root) await fs.rm(root, { recursive: true, force: true })
  })

  it('concurrent token create commands on a fresh data dir all succeed and leave no PostgreSQL running', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => tokenCreate()))
    for (const result of results) {
      assert.equal(result.code, 0, result.stderr)
      assert.match(result.stdout, TOKEN_LINE)
    }
    assert.equal(new Set(results.map((r) => r.stdout)).size, results.length)
    firstToken = results[0]!.stdout.trim()
    assert.deepEqual(postmastersOn(dataDir), [])
  })

  it('serve on that data dir is healthy and knows the organization and token made before it started', async () => {
    assert.ok(firstToken, 'needs the token of the previous test')
    const server = await serve()
    await assertHealthy(server.baseUrl)
    assert.deepEqual(await organizationNames(server.baseUrl, firstToken), [orgName])
  })

  it('token create while serve runs uses the running database, and its token works at once', async () => {
    const server = servers.at(-1)!
    const [postmaster, ...others] = postmastersOn(dataDir)
    assert.ok(postmaster, 'serve runs no postmaster on the data dir')
    assert.deepEqual(others, [])

    const result = await tokenCreate('--role', 'READ')
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, TOKEN_LINE)
    assert.deepEqual(await organizationNames(server.baseUrl, result.stdout.trim()), [orgName])

    // The command left the server's database alone: same single postmaster, still serving.
    assert.deepEqual(
      postmastersOn(dataDir).map((p) => p.pid),
      [postmaster.pid],
    )
    assert.deepEqual(await organizationNames(server.baseUrl, firstToken), [orgName])
  })

  it('serves the official client', async () => {
    const server = servers.at(-1)!
    const api = new OrganizationMainCallsApi(new Configuration({ basePath: server.baseUrl, apiKey: `Token ${firstToken}` }))
    const res = await api.listOrganization()
    assert.equal(res.status, 200)
    assert.deepEqual(
      (res.data.results ?? []).map((o) => o.name),
      [orgName],
    )
  })

  it('concurrent commands while serve runs leave its PostgreSQL running', async () => {
    const server = servers.at(-1)!
    const before = postmastersOn(dataDir).map((p) => p.pid)
    const results = await Promise.all([tokenCreate(), tokenCreate(), runCli(['migrate'], env, { timeoutMs: START_TIMEOUT_MS }), tokenCreate()])
    for (const result of results) assert.equal(result.code, 0, result.stderr)
    assert.deepEqual(
      postmastersOn(dataDir).map((p) => p.pid),
      before,
    )
    await assertHealthy(server.baseUrl)
    assert.deepEqual(await organizationNames(server.baseUrl, firstToken), [orgName])
  })

  it('refuses a second serve on the same data dir and keeps the first one serving', async () => {
    const server = servers.at(-1)!
    const second = await runCli(['serve'], { ...env, PORT: '0' }, { timeoutMs: START_TIMEOUT_MS })
    assert.equal(second.code, 1, second.stderr)
    assert.match(second.stderr, /another berth serve \(pid \d+\) is using/)
    assert.deepEqual(await organizationNames(server.baseUrl, firstToken), [orgName])
  })

  it('stops on SIGTERM with exit code 0 and stops its PostgreSQL', async () => {
    const server = servers.at(-1)!
    assert.equal(await server.stop('SIGTERM'), 0, server.logs())
    assert.match(server.stdout(), /"msg":"stopped"/)
    assert.deepEqual(postmastersOn(dataDir), [])
  })

  it('after serve is killed with SIGKILL, the next serve takes its PostgreSQL over', async () => {
    const killed = await serve()
    assert.equal(await killed.stop('SIGKILL'), null)
    const [orphan, ...others] = postmastersOn(dataDir)
    assert.ok(orphan, 'a SIGKILLed serve cannot stop its PostgreSQL')
    assert.deepEqual(others, [])

    const server = await serve()
    assert.deepEqual(await organizationNames(server.baseUrl, firstToken), [orgName])
    assert.deepEqual(
      postmastersOn(dataDir).map((p) => p.pid),
      [orphan.pid],
    )
    assert.equal(await server.stop('SIGTERM'), 0, server.logs())
    assert.deepEqual(postmastersOn(dataDir), [])
  })

  it('starts again on the existing data dir, keeps its data, and stops on SIGINT with exit code 0', async (t) => {
    const startedAt = performance.now()
    const server = await serve()
    const wallMs = Math.round(performance.now() - startedAt)
    const listening = server
      .stdout()
      .split('\n')
      .map((line) => /"startupMs":(\d+)/.exec(line))
      .find((m) => m !== null)
    t.diagnostic(`restart on an existing data dir: ${wallMs} ms from spawn to listening (startupMs ${listening?.[1] ?? '?'})`)

    await assertHealthy(server.baseUrl)
    assert.deepEqual(await organizationNames(server.baseUrl, firstToken), [orgName])
    assert.equal(await server.stop('SIGINT'), 0, server.logs())
    assert.match(server.stdout(), /"msg":"stopped"/)
    assert.deepEqual(postmastersOn(dataDir), [])
  })
})
