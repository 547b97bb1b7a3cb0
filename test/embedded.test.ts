import assert from 'node:assert/strict'
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Configuration, OrganizationMainCallsApi } from 'qovery-typescript-axios'
import { isAlive, waitForExit } from '#src/platform/db/embedded-postmaster.ts'
import { type ChildEnv, type RunningServer, repoRoot, runCli, startServer } from './helpers/process.ts'

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

/** A data dir of its own under a new temp dir, and the environment that points berth at it. */
async function makeDataDir(prefix: string): Promise<{ root: string; dataDir: string; env: ChildEnv }> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), prefix))
  // mkdtemp makes it private; as root, the postgres system user must be able to traverse it.
  await fs.chmod(root, 0o711)
  const dataDir = path.join(root, 'data')
  return { root, dataDir, env: { DATABASE_URL: undefined, BERTH_DATA_DIR: dataDir } }
}

/** Removes what `makeDataDir` made, after stopping any postmaster a failed test left on it. */
async function removeDataDir(root: string, dataDir: string): Promise<void> {
  if (!root) return
  for (const { pid } of postmastersOn(dataDir)) {
    process.kill(pid, 'SIGQUIT')
    await waitForExit(pid, 10_000)
  }
  await fs.rm(root, { recursive: true, force: true })
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
    ;({ root, dataDir, env } = await makeDataDir('berth-embedded-'))
  })

  after(async () => {
    for (const server of servers) await server.stop('SIGTERM').catch(() => {})
    await removeDataDir(root, dataDir)
  })

  it('token create on a data dir that holds no database refuses, says how to make one, and makes nothing there', async () => {
    const result = await tokenCreate()
    assert.equal(result.code, 1, result.stderr)
    assert.equal(result.stdout, '')
    assert.match(result.stderr, /no Berth database in .*add --init/)
    assert.equal(existsSync(dataDir), false)
  })

  it('concurrent token create --init commands on a fresh data dir all succeed and leave no PostgreSQL running', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => tokenCreate('--init')))
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

  it("token create pointed at another data dir than the running server's refuses instead of making a second database", async () => {
    const elsewhere = path.join(root, 'elsewhere')
    const result = await runCli(['token', 'create', '--org', orgName], { ...env, BERTH_DATA_DIR: elsewhere }, { timeoutMs: START_TIMEOUT_MS })
    assert.equal(result.code, 1, result.stderr)
    assert.equal(result.stdout, '')
    assert.match(result.stderr, new RegExp(`no Berth database in ${elsewhere}`))
    assert.equal(existsSync(elsewhere), false)
    assert.deepEqual(postmastersOn(elsewhere), [])
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

describe('the embedded PostgreSQL after crashes and stale state', () => {
  let root = ''
  let dataDir = ''
  let env: ChildEnv = {}
  const tokenCreate = () => runCli(['token', 'create', '--org', 'crashes', '--init'], env, { timeoutMs: START_TIMEOUT_MS })
  const spawned: ChildProcess[] = []

  before(async () => {
    ;({ root, dataDir, env } = await makeDataDir('berth-crash-'))
  })

  after(async () => {
    for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await removeDataDir(root, dataDir)
  })

  /** `berth token create` in its own process group, so that the test can kill it with its children. */
  const spawnCommand = () => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'berth.js'), 'token', 'create', '--org', 'crashes', '--init'], {
      cwd: repoRoot,
      env: { ...process.env, BERTH_DATA_DIR: dataDir, DATABASE_URL: '' },
      stdio: 'ignore',
      detached: true,
    })
    spawned.push(child)
    return child
  }

  async function waitFor(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
    for (const deadline = Date.now() + START_TIMEOUT_MS; Date.now() < deadline; await sleep(20)) if (await condition()) return
    assert.fail(`timed out waiting for ${what}`)
  }

  it('recovers from a command killed with its initdb halfway through creating the cluster', async () => {
    const child = spawnCommand()
    const staging = async () => (await fs.readdir(dataDir).catch(() => [] as string[])).find((name) => name.startsWith('postgres.init-'))
    await waitFor('initdb to start writing the cluster', async () => {
      const dir = await staging()
      return dir !== undefined && existsSync(path.join(dataDir, dir, 'cluster', 'PG_VERSION'))
    })
    process.kill(-child.pid!, 'SIGKILL')
    await once(child, 'exit')

    const result = await tokenCreate()
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, TOKEN_LINE)
    assert.equal(await staging(), undefined, 'the half-made cluster was left behind')
    assert.deepEqual(postmastersOn(dataDir), [])
  })

  it('ignores a postmaster.pid whose pid now belongs to another program, and does not signal it', async () => {
    const decoy = spawn(process.execPath, ['-e', "process.on('SIGINT', () => console.log('SIGINT')); setInterval(() => {}, 1000)"], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    spawned.push(decoy)
    let decoyOutput = ''
    decoy.stdout!.on('data', (chunk: Buffer) => {
      decoyOutput += chunk.toString('utf8')
    })
    const lockFile = path.join(dataDir, 'postgres', 'postmaster.pid')
    await fs.writeFile(lockFile, `${decoy.pid}\n${path.join(dataDir, 'postgres')}\n1700000000\n5999\n\n127.0.0.1\n  1234  5678\nready   \n`)

    const result = await tokenCreate()
    assert.equal(result.code, 0, result.stderr)
    await sleep(200)
    assert.equal(decoyOutput, '', 'the unrelated process was sent SIGINT')
    assert.ok(isAlive(decoy.pid!))
    assert.deepEqual(postmastersOn(dataDir), [])
  })

  it('after a command is interrupted with SIGINT (exit code 130), the next command works and leaves nothing running', async () => {
    const child = spawnCommand()
    await waitFor('the command to register', async () =>
      (await fs.readdir(path.join(dataDir, 'users'))).some((name) => name.startsWith(`${child.pid}.`)),
    )
    process.kill(-child.pid!, 'SIGINT')
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null]
    // Between registering and exiting, the only ways out are our handler (130) or a clean finish (0).
    assert.ok(code === 130 || code === 0, `exit code ${code}, signal ${signal}`)

    const result = await tokenCreate()
    assert.equal(result.code, 0, result.stderr)
    assert.deepEqual(postmastersOn(dataDir), [])
    assert.deepEqual(
      (await fs.readdir(path.join(dataDir, 'users'))).filter((name) => !name.endsWith('.tmp')),
      [],
    )
  })
})
