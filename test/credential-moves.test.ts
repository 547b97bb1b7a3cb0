import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { gitTokenHosts, repositoryCredentials } from '#src/modules/executors/git-credentials.ts'
import { createTestApp, type TestApp, testSecretBox } from './helpers/app.ts'
import { assertValidationError } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

// Issue 31, item 1: a stored secret is only ever sent to the address it was given for. A WRITE token
// that moves an ADMIN's container registry or helm repository to a host of its own, leaving the
// password out, gets a 400 naming the field; a git token travels only to its own host.

/** A host that plays a registry and writes down every Authorization header it is sent. */
async function startCredentialSink() {
  const authorizations: string[] = []
  const server: Server = createServer((req, res) => {
    if (req.headers.authorization) authorizations.push(req.headers.authorization)
    const realm = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`
    res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': `Bearer realm="${realm}",service="sink"` })
    res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED' }] }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorizations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const secretNeededAgain = (errors: { path: string; message: string }[], path: string) =>
  errors.some((error) => error.path === path && /given again/.test(error.message))

describe('a stored secret follows only the address it was given for', () => {
  let t: TestApp
  before(async () => {
    // Loopback is where the sink listens: the address guard is not what is tested here.
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
  })
  after(() => t?.close())

  it("refuses a WRITE edit that moves an ADMIN's container registry elsewhere without its password, and never sends the password there", async () => {
    const sink = await startCredentialSink()
    try {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const password = `admin-pw-${randomUUID()}`
      const path = `/organization/${organization.id}/containerRegistry`
      const created = await t.app.inject({
        method: 'POST',
        url: path,
        headers: { authorization: tokens.admin.authorization },
        payload: { name: uniqueName('registry'), kind: 'GENERIC_CR', url: 'https://registry.example.com', config: { username: 'robot', password } },
      })
      assert.equal(created.statusCode, 201, created.body)
      const { id, name } = created.json()
      const edit = (payload: object) =>
        t.app.inject({ method: 'PUT', url: `${path}/${id}`, headers: { authorization: tokens.write.authorization }, payload: { name, ...payload } })

      for (const moved of [
        { kind: 'GENERIC_CR', url: sink.url, config: { username: 'robot' } },
        { kind: 'GITHUB_CR', url: null, config: { username: 'robot' } },
      ]) {
        assert.ok(secretNeededAgain(assertValidationError(await edit(moved)), '/config/password'), JSON.stringify(moved))
      }
      const stored = await t.app.inject({ url: `${path}/${id}`, headers: { authorization: tokens.read.authorization } })
      assert.equal(stored.json().url, 'https://registry.example.com')

      // The same address: an omitted password is kept, as before.
      const kept = await edit({ kind: 'GENERIC_CR', url: 'https://registry.example.com', description: 'same place', config: { username: 'robot' } })
      assert.equal(kept.statusCode, 200, kept.body)
      const row = await t.db.selectFrom('containerRegistries').select('secretsSealed').where('id', '=', id).executeTakeFirstOrThrow()
      assert.equal(JSON.parse(testSecretBox().open(row.secretsSealed!)).password, password)

      // Moved with the password cleared: allowed, and what reaches the new host holds no password.
      const cleared = await edit({ kind: 'GENERIC_CR', url: sink.url, config: { password: '' } })
      assert.equal(cleared.statusCode, 200, cleared.body)
      await t.app.inject({ url: `${path}/${id}/images?imageName=acme/web`, headers: { authorization: tokens.read.authorization } })
      for (const header of sink.authorizations) {
        assert.ok(!Buffer.from(header.replace(/^\w+ /, ''), 'base64').toString().includes(password), 'the password reached the new host')
        assert.ok(!header.includes(password))
      }
    } finally {
      await sink.close()
    }
  })

  it("refuses a WRITE edit that moves an ADMIN's helm repository elsewhere without its password", async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const path = `/organization/${organization.id}/helmRepository`
    const created = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: tokens.admin.authorization },
      payload: {
        name: uniqueName('charts'),
        kind: 'HTTPS',
        skip_tls_verification: false,
        url: 'https://charts.example.com',
        config: { username: 'robot', password: 'admin-pw' },
      },
    })
    assert.equal(created.statusCode, 201, created.body)
    const { id, name } = created.json()
    const edit = (payload: object) =>
      t.app.inject({
        method: 'PUT',
        url: `${path}/${id}`,
        headers: { authorization: tokens.write.authorization },
        payload: { name, skip_tls_verification: false, ...payload },
      })
    for (const moved of [
      { kind: 'HTTPS', url: 'https://charts.attacker.example', config: { username: 'robot' } },
      { kind: 'OCI_GENERIC_CR', url: 'oci://charts.example.com', config: { username: 'robot' } },
    ]) {
      assert.ok(secretNeededAgain(assertValidationError(await edit(moved)), '/config/password'), JSON.stringify(moved))
    }
    const stored = await t.app.inject({ url: `${path}/${id}`, headers: { authorization: tokens.read.authorization } })
    assert.equal(stored.json().url, 'https://charts.example.com')
    const again = await edit({ kind: 'HTTPS', url: 'https://charts.attacker.example', config: { username: 'robot', password: 'its-own' } })
    assert.equal(again.statusCode, 200, again.body)
  })

  it('sends a git token only to its own host: a repository URL a WRITE token points elsewhere is fetched without it', async () => {
    const f = factories(t.db)
    const { organization } = await f.organizationWithTokens()
    const credentialsFor = repositoryCredentials(t.db, testSecretBox())
    const repository = (url: string, gitTokenId: string | null) => ({
      url,
      gitTokenId,
      provider: 'GITHUB' as const,
      branch: 'main',
      rootPath: '/',
      owner: 'o',
      name: 'r',
    })

    const enterprise = await f.gitToken(organization.id, { type: 'GITHUB', token: 'ghe-secret', gitApiUrl: 'https://ghe.example.com/api/v3' })
    assert.equal((await credentialsFor(organization.id, repository('https://ghe.example.com/o/r.git', enterprise.id)))?.token, 'ghe-secret')
    assert.equal(await credentialsFor(organization.id, repository('https://attacker.example/o/r.git', enterprise.id)), undefined)

    const other = await f.organizationWithTokens()
    const publicToken = await f.gitToken(other.organization.id, { type: 'GITHUB', token: 'gh-secret', gitApiUrl: null })
    assert.equal((await credentialsFor(other.organization.id, repository('https://github.com/o/r.git', publicToken.id)))?.token, 'gh-secret')
    assert.equal(await credentialsFor(other.organization.id, repository('https://github.com.attacker.example/o/r.git', publicToken.id)), undefined)
    // Without a token id, the organization's only token of the provider: the same rule.
    assert.equal(await credentialsFor(other.organization.id, repository('https://attacker.example/o/r.git', null)), undefined)

    assert.deepEqual(gitTokenHosts('GITHUB', 'https://api.github.com'), ['api.github.com', 'github.com', 'www.github.com'])
  })
})
