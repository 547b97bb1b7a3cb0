import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { CONSOLE_CSP, consoleRoutes } from '#src/modules/console/console.routes.ts'
import { ROLE_IDS } from '#src/platform/auth/roles.ts'
import { registerErrorHandling } from '#src/platform/http/error-handler.ts'
import { registerSecurityHeaders } from '#src/platform/http/security-headers.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// The console's file serving (on a folder of the test's own) and the currentRole extension it reads.
// test/console.e2e.test.ts drives the console itself in Chromium.

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
    await symlink(path.join(folder, 'secret.js'), path.join(root, 'assets', 'link.js'))
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

  it('answers 404 in the error shape for missing files, unknown types, symlinks and every way out of the folder', async () => {
    const refused = [
      '/console/assets/missing.js',
      '/console/assets/notes.txt',
      '/console/assets/link.js',
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
  let t: TestApp
  let make: ReturnType<typeof factories>
  before(async () => {
    t = await createTestApp()
    make = factories(t.db)
  })
  after(() => t?.close())

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
})
