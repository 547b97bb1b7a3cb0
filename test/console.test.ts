import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { CONSOLE_CSP, consoleRoutes } from '#src/modules/console/console.routes.ts'
import { ROLE_IDS } from '#src/platform/auth/roles.ts'
import { registerErrorHandling } from '#src/platform/http/error-handler.ts'
import { registerSecurityHeaders } from '#src/platform/http/security-headers.ts'
import {
  appendOlder,
  emptyStore,
  type HistoryStore,
  MAX_JOIN_PAGES,
  mergeNewest,
  patchEntry,
  unfinishedBelowNewest,
} from '../console/src/history-store.ts'
import type { DeploymentEntry, HistoryPage } from '../console/src/types.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'
import { memberCalls } from './helpers/members.ts'
import { startOidcProvider, type TestIdentityProvider } from './helpers/oidc-provider.ts'

// The console's file serving (on a folder of the test's own), the currentRole extension it reads,
// and how its history list merges pages. test/console.e2e.test.ts drives the console in Chromium.

/** The console routes alone, as buildApp registers them, over `root`. */
async function consoleApp(root: string): Promise<FastifyInstance> {
  const app = Fastify({ routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true } })
  registerErrorHandling(app)
  registerSecurityHeaders(app)
  await app.register(consoleRoutes(root))
  await app.ready()
  return app
}

describe('console files', () => {
  let folder: string
  let root: string
  let app: FastifyInstance
  before(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'berth-console-'))
    root = path.join(folder, 'console')
    await mkdir(path.join(root, 'assets'), { recursive: true })
    await writeFile(path.join(root, 'index.html'), '<!doctype html><title>console</title>')
    await writeFile(path.join(root, 'assets', 'index-abc123.js'), 'console.log(1)')
    await writeFile(path.join(root, 'assets', 'index-abc123.css'), 'body{}')
    await writeFile(path.join(root, 'assets', 'notes.txt'), 'an unknown type')
    await writeFile(path.join(folder, 'secret.js'), 'outside the root')
    await mkdir(path.join(folder, 'outside'))
    await writeFile(path.join(folder, 'outside', 'secret.js'), 'outside the root')
    // Symlinks of every kind: to a file and to a folder, out of the root and within it.
    await symlink(path.join(folder, 'secret.js'), path.join(root, 'assets', 'link.js'))
    await symlink(path.join(root, 'assets', 'index-abc123.js'), path.join(root, 'assets', 'alias.js'))
    await symlink(path.join(folder, 'outside'), path.join(root, 'linked'))
    await symlink(path.join(root, 'assets'), path.join(root, 'alias-assets'))
    // Opening a FIFO waits for a writer unless told not to: the request would never be answered.
    execFileSync('mkfifo', [path.join(root, 'assets', 'pipe.js')])
    app = await consoleApp(root)
  })
  after(async () => {
    await app?.close()
    await rm(folder, { recursive: true, force: true })
  })

  it('serves index.html at /console, /console/ and /console/index.html, revalidated on each load, with the console CSP', async () => {
    for (const url of ['/console', '/console/', '/console/index.html']) {
      const res = await app.inject({ method: 'GET', url })
      assert.equal(res.statusCode, 200, url)
      assert.equal(res.body, '<!doctype html><title>console</title>')
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8')
      assert.equal(res.headers['cache-control'], 'no-cache')
      assert.equal(res.headers['content-security-policy'], CONSOLE_CSP)
      assert.equal(res.headers['x-content-type-options'], 'nosniff')
      assert.equal(res.headers['x-frame-options'], 'DENY')
    }
  })

  it('allows no inline script or style, no eval and no other origin', () => {
    const directives = Object.fromEntries(
      CONSOLE_CSP.split(';')
        .map((d) => d.trim().split(/\s+/) as [string, ...string[]])
        .map(([k, ...v]) => [k, v]),
    )
    assert.deepEqual(directives['default-src'], ["'none'"])
    assert.deepEqual(directives['script-src'], ["'self'"])
    assert.deepEqual(directives['style-src'], ["'self'"])
    assert.deepEqual(directives['connect-src'], ["'self'"])
    assert.deepEqual(directives['frame-ancestors'], ["'none'"])
    assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval|\*/)
  })

  it('serves hashed assets with their type, cached for good', async () => {
    const js = await app.inject({ method: 'GET', url: '/console/assets/index-abc123.js' })
    assert.equal(js.statusCode, 200)
    assert.equal(js.body, 'console.log(1)')
    assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8')
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable')
    const css = await app.inject({ method: 'GET', url: '/console/assets/index-abc123.css' })
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8')
    const head = await app.inject({ method: 'HEAD', url: '/console/assets/index-abc123.js' })
    assert.equal(head.statusCode, 200)
  })

  it('answers 404 in the error shape for missing files, unknown types, symlinks, FIFOs and every way out of the folder', async () => {
    const refused = [
      '/console/assets/missing.js',
      '/console/assets/notes.txt',
      '/console/assets/link.js',
      '/console/assets/alias.js',
      '/console/linked/secret.js',
      '/console/alias-assets/index-abc123.js',
      '/console/assets/pipe.js',
      '/console/assets',
      '/console/../secret.js',
      '/console/..%2fsecret.js',
      '/console/assets/..%2f..%2fsecret.js',
      '/console/%2e%2e/secret.js',
      '/console/assets/%2e%2e%2f%2e%2e%2fsecret.js',
      '/console/.%2e/secret.js',
      '/console/assets/..\\..\\secret.js',
      '/console/%2Fetc%2Fpasswd.js',
      '/console/assets/index-abc123.js%00.html',
      '/console/.hidden.js',
    ]
    for (const url of refused) {
      const res = await app.inject({ method: 'GET', url })
      assert.ok([400, 404].includes(res.statusCode), `${url}: ${res.statusCode}`)
      assert.doesNotMatch(res.body, /outside the root/, url)
      assert.match(String(res.headers['content-type']), /^application\/json/, url)
    }
  })

  it('serves through a root that is itself a symlink (a release folder linked into place)', async () => {
    const linked = path.join(folder, 'current')
    await symlink(root, linked)
    const through = await consoleApp(linked)
    try {
      const res = await through.inject({ method: 'GET', url: '/console/assets/index-abc123.js' })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.body, 'console.log(1)')
    } finally {
      await through.close()
    }
  })

  it('answers 503 in the error shape, saying how to build it, when the console is not built', async () => {
    const unbuilt = await consoleApp(path.join(folder, 'missing'))
    try {
      for (const url of ['/console', '/console/assets/index-abc123.js']) {
        const res = await unbuilt.inject({ method: 'GET', url })
        assert.equal(res.statusCode, 503)
        const body = res.json()
        assert.equal(body.code, 'service_unavailable')
        assert.match(body.message, /npm run build:console/)
      }
    } finally {
      await unbuilt.close()
    }
  })
})

describe('GET /organization/{organizationId}/currentRole (Berth extension)', () => {
  let idp: TestIdentityProvider
  let t: TestApp
  let make: ReturnType<typeof factories>
  before(async () => {
    idp = await startOidcProvider()
    t = await createTestApp(idp.env)
    make = factories(t.db)
  })
  after(async () => {
    await t?.close()
    await idp?.close()
  })
  const { person, organizationOf, put, remove } = memberCalls(
    () => t,
    () => idp,
  )

  const currentRole = (organizationId: string, authorization?: string) =>
    t.app.inject({ method: 'GET', url: `/organization/${organizationId}/currentRole`, headers: authorization ? { authorization } : {} })

  it('tells each token its own role in its organization, by name and by built-in id', async () => {
    const { organization, tokens } = await make.organizationWithTokens()
    for (const [role, token] of [
      ['ADMIN', tokens.admin],
      ['WRITE', tokens.write],
      ['DEPLOY', tokens.deploy],
      ['READ', tokens.read],
    ] as const) {
      const res = await currentRole(organization.id, token.authorization)
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { organization_id: organization.id, role, role_id: ROLE_IDS[role] })
    }
  })

  it('says ADMIN in an organization the token created', async () => {
    const { tokens } = await make.organizationWithTokens()
    const created = await t.app.inject({
      method: 'POST',
      url: '/organization',
      headers: { authorization: tokens.admin.authorization },
      payload: { name: `created ${Date.now()} ${Math.random()}`, plan: 'FREE' },
    })
    assert.equal(created.statusCode, 201, created.body)
    const res = await currentRole(created.json().id, tokens.admin.authorization)
    assert.equal(res.json().role, 'ADMIN')
  })

  it('answers 404 for an organization the caller is not in, 401 without credentials', async () => {
    const mine = await make.organizationWithTokens()
    const other = await make.organizationWithTokens()
    assertError(await currentRole(other.organization.id, mine.tokens.admin.authorization), 404, 'not_found')
    assertError(await currentRole(mine.organization.id), 401, 'unauthenticated')
  })

  it('tells a user (Bearer JWT) its role as a member, a role change at once, and 404 once it is no member', async () => {
    const alice = await person('alice')
    const bob = await person('bob')
    const organizationId = await organizationOf(alice)
    const roleOf = async (who: { authorization: string }) => {
      const res = await currentRole(organizationId, who.authorization)
      assert.equal(res.statusCode, 200, res.body)
      return res.json()
    }
    assert.deepEqual(await roleOf(alice), { organization_id: organizationId, role: 'ADMIN', role_id: ROLE_IDS.ADMIN })
    assertError(await currentRole(organizationId, bob.authorization), 404, 'not_found')

    assert.equal((await put(alice, organizationId, bob.id, { role: 'READ' })).statusCode, 200)
    assert.deepEqual(await roleOf(bob), { organization_id: organizationId, role: 'READ', role_id: ROLE_IDS.READ })
    assert.equal((await put(alice, organizationId, bob.id, { role: 'DEPLOY' })).statusCode, 200)
    assert.deepEqual(await roleOf(bob), { organization_id: organizationId, role: 'DEPLOY', role_id: ROLE_IDS.DEPLOY }, 'the new role at once')

    assert.equal((await remove(alice, organizationId, bob.id)).statusCode, 204)
    assertError(await currentRole(organizationId, bob.authorization), 404, 'not_found')
  })
})

describe('console history store', () => {
  const entry = (
    id: string,
    action_status: DeploymentEntry['action_status'] = 'SUCCESS',
    updated_at = '2025-01-01T00:00:00.000Z',
  ): DeploymentEntry => ({
    identifier: { execution_id: id, environment_id: 'env' },
    auditing_data: { created_at: '2025-01-01T00:00:00.000Z', updated_at, triggered_by: 'test' },
    status: action_status === 'SUCCESS' ? 'DEPLOYED' : 'DEPLOYMENT_QUEUED',
    trigger_action: 'DEPLOY',
    total_duration: 'PT0S',
    stages: [],
    action_status,
    message: null,
  })

  /** A history of `count` deployments, e<count> the newest, read as the API pages it. */
  function history(count: number) {
    const entries = Array.from({ length: count }, (_, i) => entry(`e${count - i}`))
    const page = (startId?: string, size = 20): HistoryPage => {
      const from = startId === undefined ? 0 : entries.findIndex((e) => e.identifier.execution_id === startId) + 1
      const results = entries.slice(from, from + size)
      return { page: 1, page_size: size, results, next_start_id: results.at(-1)?.identifier.execution_id ?? null, has_more: from + size < count }
    }
    const startIds: string[] = []
    const readOlder = async (startId: string) => {
      startIds.push(startId)
      return page(startId)
    }
    return { page, readOlder, startIds }
  }

  const ids = (...range: [number, number]) => Array.from({ length: range[0] - range[1] + 1 }, (_, i) => `e${range[0] - i}`)
  const refuseOlder = async (): Promise<HistoryPage> => assert.fail('no older page should be read')

  /** A store as a page shows it after loading `pages` pages of a history of `count`. */
  async function loaded(count: number, pages: number): Promise<HistoryStore> {
    const before = history(count)
    const store = emptyStore()
    await mergeNewest(store, before.page(), refuseOlder)
    for (let i = 1; i < pages; i++) appendOlder(store, before.page(store.order.at(-1)))
    return store
  }

  it('joins a newest page that overlaps on top, keeping the older pages below it', async () => {
    const store = await loaded(45, 2)
    assert.deepEqual(store.order, ids(45, 6))
    await mergeNewest(store, history(48).page(), refuseOlder)
    assert.deepEqual(store.order, ids(48, 6))
    assert.equal(store.firstCount, 20)
    assert.equal(store.hasMore, true)
    appendOlder(store, history(48).page('e6'))
    assert.deepEqual(store.order, ids(48, 1), 'the next older page follows on')
    assert.equal(store.hasMore, false)
  })

  it('reads older pages after a newest page that shares no entry until one reaches the list: nothing in between is missing', async () => {
    const store = await loaded(2, 1)
    const now = history(27)
    await mergeNewest(store, now.page(), now.readOlder)
    assert.deepEqual(now.startIds, ['e8'])
    assert.deepEqual(store.order, ids(27, 1))
    assert.equal(store.hasMore, false)
    assert.equal(store.firstCount, 20)
  })

  it(`starts over from the newest entries past ${MAX_JOIN_PAGES} older pages, counting the restart`, async () => {
    const store = await loaded(30, 2)
    const restarts = store.restarts
    const now = history(1000)
    await mergeNewest(store, now.page(), now.readOlder)
    assert.equal(now.startIds.length, MAX_JOIN_PAGES)
    assert.deepEqual(store.order, ids(1000, 1000 - 20 * (MAX_JOIN_PAGES + 1) + 1))
    assert.equal(store.hasMore, true)
    assert.equal(store.restarts, restarts + 1)
  })

  it('lists the unfinished entries below the newest page with the one above each, and patches an entry only when it changed', () => {
    const store = emptyStore()
    const entries = [entry('e5', 'ONGOING'), entry('e4'), entry('e3', 'QUEUED'), entry('e2'), entry('e1', 'QUEUED')]
    store.order = entries.map((e) => e.identifier.execution_id)
    store.byId = new Map(entries.map((e) => [e.identifier.execution_id, e]))
    store.firstCount = 2
    assert.deepEqual(unfinishedBelowNewest(store, 10), [
      { id: 'e3', above: 'e4' },
      { id: 'e1', above: 'e2' },
    ])
    assert.deepEqual(unfinishedBelowNewest(store, 1), [{ id: 'e3', above: 'e4' }])

    assert.equal(patchEntry(store, entry('e3', 'QUEUED')), false, 'the same entry read again')
    assert.equal(patchEntry(store, entry('e3', 'ONGOING', '2025-01-01T00:00:01.000Z')), true)
    assert.equal(store.byId.get('e3')!.action_status, 'ONGOING')
    assert.equal(patchEntry(store, entry('e9', 'ONGOING')), false, 'an entry the list does not hold')
    assert.equal(store.byId.has('e9'), false)
  })
})
