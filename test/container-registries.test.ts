import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp, testSecretBox } from './helpers/app.ts'
import { assertError, assertValidationError } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

// Container registries through HTTP: rules, secrets, address rules, and image listings against a
// loopback registry that speaks the Docker Registry HTTP API v2 with a bearer token challenge.

const secret = (what: string) => `${what}-${randomUUID()}`

/** A registry like GHCR's: anonymous calls get a Bearer challenge; the token service takes Basic credentials. */
async function startFakeRegistry(credentials: { username: string; password: string }, images: Record<string, string[]>) {
  const token = `tok-${randomUUID()}`
  const seen: string[] = []
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://registry')
    seen.push(`${req.method} ${url.pathname}`)
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(JSON.stringify(body))
    }
    if (url.pathname === '/token') {
      const basic = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`
      if (req.headers.authorization !== basic) return json(401, { errors: [{ code: 'UNAUTHORIZED' }] })
      return json(200, { token, scope: url.searchParams.get('scope') })
    }
    if (req.headers.authorization !== `Bearer ${token}`) {
      const realm = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`
      return json(401, { errors: [{ code: 'UNAUTHORIZED' }] }, { 'www-authenticate': `Bearer realm="${realm}",service="fake-registry"` })
    }
    if (url.pathname === '/v2/_catalog') return json(200, { repositories: Object.keys(images) })
    const match = /^\/v2\/(.+)\/tags\/list$/.exec(url.pathname)
    const tags = match ? images[match[1]!] : undefined
    if (!tags) return json(404, { errors: [{ code: 'NAME_UNKNOWN' }] })
    return json(200, { name: match![1], tags })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('container registries', () => {
  let t: TestApp
  let open: TestApp
  before(async () => {
    t = await createTestApp()
    open = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
  })
  after(async () => {
    await t?.close()
    await open?.close()
  })

  const url = (organizationId: string, id?: string) => `/organization/${organizationId}/containerRegistry${id ? `/${id}` : ''}`

  it('reports every rule a registry breaks in one 400, with JSON pointers and no value quoted', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const send = (payload: object) =>
      t.app.inject({ method: 'POST', url: url(organization.id), headers: { authorization: tokens.write.authorization }, payload })

    const ecr = assertValidationError(await send({ name: 'ecr', kind: 'ECR', url: 'https://1.dkr.ecr.eu-west-3.amazonaws.com', config: {} }))
    assert.deepEqual(ecr.map((error) => error.path).sort(), ['/config/access_key_id', '/config/region', '/config/secret_access_key'])

    const scaleway = assertValidationError(await send({ name: 'scw', kind: 'SCALEWAY_CR', config: { scaleway_access_key: 'SCW1' } }))
    assert.deepEqual(scaleway.map((error) => error.path).sort(), ['/config/region', '/config/scaleway_secret_key', '/url'])

    const password = secret('pw')
    const generic = assertValidationError(await send({ name: 'g', kind: 'GENERIC_CR', url: 'ftp://registry.example.com', config: { password } }))
    assert.deepEqual(generic.map((error) => error.path).sort(), ['/config/username', '/url'])
    assert.ok(!JSON.stringify(generic).includes(password))

    const docr = assertValidationError(await send({ name: 'do', kind: 'DOCR', url: 'https://registry.digitalocean.com', config: {} }))
    assert.deepEqual(
      docr.map((error) => error.path),
      ['/kind'],
    )

    const gcp = assertValidationError(
      await send({
        name: 'gcp',
        kind: 'GCP_ARTIFACT_REGISTRY',
        url: 'https://europe-docker.pkg.dev',
        config: { gcp_credentials_type: 'workload_identity_federation' },
      }),
    )
    assert.deepEqual(gcp.map((error) => error.path).sort(), [
      '/config/project_id',
      '/config/region',
      '/config/service_account_email',
      '/config/workload_identity_provider_resource',
    ])

    const credentialsInUrl = assertValidationError(
      await send({ name: 'u', kind: 'GENERIC_CR', url: 'https://me:pw@registry.example.com', config: {} }),
    )
    assert.deepEqual(
      credentialsInUrl.map((error) => error.path),
      ['/url'],
    )
  })

  it('refuses URLs into the server’s own network and plain http unless BERTH_GIT_ALLOW_PRIVATE_URLS is set', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    for (const address of [
      'https://127.0.0.1:5000',
      'https://169.254.169.254',
      'https://[::1]',
      'https://registry.localhost',
      'https://10.0.0.8',
      'http://registry.example.com',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: url(organization.id),
        headers: { authorization: tokens.write.authorization },
        payload: { name: uniqueName('r'), kind: 'GENERIC_CR', url: address, config: {} },
      })
      const errors = assertValidationError(res)
      assert.deepEqual(
        errors.map((error) => error.path),
        ['/url'],
        address,
      )
      assert.match(errors[0]!.message, /BERTH_ALLOW_PRIVATE_URLS/, address)
    }
    const allowed = await open.app.inject({
      method: 'POST',
      url: url(organization.id),
      headers: { authorization: tokens.write.authorization },
      payload: { name: uniqueName('r'), kind: 'GENERIC_CR', url: 'http://127.0.0.1:5000', config: {} },
    })
    assert.equal(allowed.statusCode, 201, allowed.body)
  })

  it('never returns a secret; an edit that leaves one out keeps it and "" clears it; names are unique', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const auth = { authorization: tokens.write.authorization }
    const keys = { secret_access_key: secret('aws'), password: secret('pw') }
    const created = await t.app.inject({
      method: 'POST',
      url: url(organization.id),
      headers: auth,
      payload: {
        name: 'ECR',
        kind: 'ECR',
        url: 'https://1.dkr.ecr.eu-west-3.amazonaws.com',
        config: { region: 'eu-west-3', access_key_id: 'AKIA1', ...keys, token_lifetime_seconds: null },
      },
    })
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().id
    assert.deepEqual(created.json().config, { region: 'eu-west-3', access_key_id: 'AKIA1' })
    const stored = async () => {
      const row = await t.db.selectFrom('containerRegistries').select('secretsSealed').where('id', '=', id).executeTakeFirstOrThrow()
      return row.secretsSealed ? JSON.parse(testSecretBox().open(row.secretsSealed)) : {}
    }
    assert.deepEqual(await stored(), { password: keys.password, secretAccessKey: keys.secret_access_key })

    const edit = (config: object) =>
      t.app.inject({
        method: 'PUT',
        url: url(organization.id, id),
        headers: auth,
        payload: { name: 'ECR', kind: 'ECR', url: 'https://1.dkr.ecr.eu-west-3.amazonaws.com', config },
      })
    const kept = await edit({ region: 'eu-west-1', access_key_id: 'AKIA2' })
    assert.equal(kept.statusCode, 200, kept.body)
    assert.deepEqual(kept.json().config, { region: 'eu-west-1', access_key_id: 'AKIA2' })
    assert.deepEqual(await stored(), { password: keys.password, secretAccessKey: keys.secret_access_key })

    const cleared = await edit({ region: 'eu-west-1', access_key_id: 'AKIA2', password: '' })
    assert.equal(cleared.statusCode, 200, cleared.body)
    assert.deepEqual(await stored(), { secretAccessKey: keys.secret_access_key })
    // Clearing the one secret the kind needs is refused.
    assertValidationError(await edit({ region: 'eu-west-1', access_key_id: 'AKIA2', secret_access_key: '' }))

    for (const read of [url(organization.id), url(organization.id, id)]) {
      const res = await t.app.inject({ url: read, headers: { authorization: tokens.read.authorization } })
      assert.equal(res.statusCode, 200)
      for (const value of Object.values(keys)) assert.ok(!res.body.includes(value), read)
    }
    const taken = await t.app.inject({
      method: 'POST',
      url: url(organization.id),
      headers: auth,
      payload: { name: 'ecr', kind: 'PUBLIC_ECR', url: 'https://public.ecr.aws', config: {} },
    })
    assertError(taken, 409, 'conflict')
    assertError(
      await t.app.inject({
        method: 'POST',
        url: url(organization.id),
        headers: { authorization: tokens.deploy.authorization },
        payload: { name: 'p', kind: 'PUBLIC_ECR', url: 'https://public.ecr.aws', config: {} },
      }),
      403,
      'forbidden',
    )
  })

  it('lists the tags of an image and the images of the catalog, with the registry’s credentials through its token challenge', async () => {
    const credentials = { username: 'robot', password: secret('pw') }
    const registry = await startFakeRegistry(credentials, { 'acme/web': ['1.0.0', '1.1.0'], 'acme/worker': ['2.0'], 'other/tool': ['latest'] })
    try {
      const f = factories(open.db)
      const { organization, tokens } = await f.organizationWithTokens()
      const made = await f.containerRegistry(organization.id, {
        url: registry.url,
        config: { username: credentials.username },
        secrets: { password: credentials.password },
      })
      const images = (query: string, app = open) =>
        app.app.inject({ url: `${url(organization.id, made.id)}/images${query}`, headers: { authorization: tokens.read.authorization } })

      const tags = await images('?imageName=acme/web')
      assert.equal(tags.statusCode, 200, tags.body)
      assert.deepEqual(tags.json(), { results: [{ image_name: 'acme/web', versions: ['1.0.0', '1.1.0'] }] })
      assert.ok(registry.seen.includes('GET /token'), 'the bearer challenge was answered')

      const catalog = await images('?search=ACME')
      assert.deepEqual(catalog.json(), {
        results: [
          { image_name: 'acme/web', versions: [] },
          { image_name: 'acme/worker', versions: [] },
        ],
      })
      assertError(await images('?imageName=acme/missing'), 404, 'not_found')

      // The same registry with the server refusing its own network: refused before any call.
      const calls = registry.seen.length
      assertError(await images('?imageName=acme/web', t), 400, 'bad_request')
      assert.equal(registry.seen.length, calls)

      const wrong = await f.containerRegistry(organization.id, { url: registry.url, config: { username: 'robot' }, secrets: { password: 'wrong' } })
      const refused = await open.app.inject({
        url: `${url(organization.id, wrong.id)}/images?imageName=acme/web`,
        headers: { authorization: tokens.read.authorization },
      })
      const body = assertError(refused, 400, 'bad_request')
      assert.match(body.message, /credentials/)

      const ecr = await f.containerRegistry(organization.id, {
        kind: 'ECR',
        url: 'https://1.dkr.ecr.eu-west-3.amazonaws.com',
        config: { region: 'eu-west-3', accessKeyId: 'AKIA' },
        secrets: { secretAccessKey: 's' },
      })
      const notListed = await open.app.inject({
        url: `${url(organization.id, ecr.id)}/images?imageName=x`,
        headers: { authorization: tokens.read.authorization },
      })
      assert.match(assertError(notListed, 400, 'bad_request').message, /ECR/)
    } finally {
      await registry.close()
    }
  })
})
