import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { loadConfig } from '#src/config.ts'
import { createServices } from '#src/services.ts'
import { createTestApp, type TestApp, testSecretBox } from './helpers/app.ts'
import { assertError, assertIsoTimestamp, assertRoutesNeedCredentials, assertValidationError, UUID } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'
import { insertHelmService } from './helpers/helm-service-rows.ts'

const FIELDS = [
  'associated_services_count',
  'config',
  'created_at',
  'description',
  'id',
  'kind',
  'name',
  'skip_tls_verification',
  'updated_at',
  'url',
]

interface RepositoryBody {
  id: string
  created_at: string
  updated_at: string
  name: string
  kind: string
  description: string | null
  url: string | null
  skip_tls_verification: boolean
  associated_services_count: number
  config: Record<string, string>
}

function assertShape(body: RepositoryBody): void {
  assert.deepEqual(Object.keys(body).sort(), FIELDS)
  assert.match(body.id, UUID)
  assertIsoTimestamp(body.created_at, 'created_at')
  assertIsoTimestamp(body.updated_at, 'updated_at')
  assert.ok(Number.isInteger(body.associated_services_count))
  assert.equal(typeof body.skip_tls_verification, 'boolean')
}

const secret = (what: string) => `${what}-${randomUUID()}`

const httpsRepository = (config: Record<string, string> = {}) => ({
  name: uniqueName('charts'),
  kind: 'HTTPS',
  url: 'https://charts.example.com/stable',
  skip_tls_verification: false,
  config,
})

describe('helm repositories', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => t.close())

  const url = (organizationId: string, id?: string) => `/organization/${organizationId}/helmRepository${id ? `/${id}` : ''}`
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, authorization: string, payload?: object) =>
    t.app.inject({ method, url: path, headers: { authorization }, ...(payload === undefined ? {} : { payload }) })

  const stored = (id: string) =>
    t.db.selectFrom('helmRepositories').select(['config', 'secretsSealed']).where('id', '=', id).executeTakeFirstOrThrow()

  /** The secrets as stored: sealed (no plaintext in either column), opened with the server's key. */
  async function storedSecrets(id: string, plaintexts: string[] = []): Promise<Record<string, string> | null> {
    const row = await stored(id)
    for (const text of plaintexts) {
      assert.ok(!JSON.stringify(row.config).includes(text), 'a secret is in the config column')
      for (const encoding of ['utf8', 'latin1', 'hex', 'base64'] as const) assert.ok(!row.secretsSealed?.toString(encoding).includes(text), encoding)
    }
    return row.secretsSealed ? JSON.parse(testSecretBox().open(row.secretsSealed)) : null
  }

  const create = async (organizationId: string, authorization: string, payload: object): Promise<RepositoryBody> => {
    const res = await call('POST', url(organizationId), authorization, payload)
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }

  describe('POST /organization/{organizationId}/helmRepository', () => {
    it('creates an HTTPS repository (201), returning the username but never the password, which is stored sealed', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const password = secret('password')
      const payload = { ...httpsRepository({ username: 'robot', password }), description: 'stable charts', skip_tls_verification: true }
      const res = await call('POST', url(organization.id), tokens.write.authorization, payload)
      assert.equal(res.statusCode, 201, res.body)
      assert.ok(!res.body.includes(password), 'the password is in the response')
      const body = res.json() as RepositoryBody
      assertShape(body)
      assert.deepEqual(
        { ...body, id: '', created_at: '', updated_at: '' },
        {
          id: '',
          created_at: '',
          updated_at: '',
          name: payload.name,
          kind: 'HTTPS',
          description: 'stable charts',
          url: 'https://charts.example.com/stable',
          skip_tls_verification: true,
          associated_services_count: 0,
          config: { username: 'robot' },
        },
      )
      assert.deepEqual(await storedSecrets(body.id, [password]), { password })
    })

    it('creates a public repository with an empty config and no sealed secrets', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const body = await create(organization.id, tokens.write.authorization, httpsRepository())
      assertShape(body)
      assert.deepEqual(body.config, {})
      assert.equal(body.description, null)
      assert.equal(await storedSecrets(body.id), null)
    })

    it('creates an OCI_ECR repository without url, returning the key id and region but not the secret key', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const secretAccessKey = secret('aws')
      const res = await call('POST', url(organization.id), tokens.write.authorization, {
        name: uniqueName('ecr'),
        kind: 'OCI_ECR',
        skip_tls_verification: false,
        config: { region: 'eu-west-3', access_key_id: 'AKIAEXAMPLE', secret_access_key: secretAccessKey },
      })
      assert.equal(res.statusCode, 201, res.body)
      assert.ok(!res.body.includes(secretAccessKey))
      const body = res.json() as RepositoryBody
      assert.equal(body.url, null)
      assert.deepEqual(body.config, { region: 'eu-west-3', access_key_id: 'AKIAEXAMPLE' })
      assert.deepEqual(await storedSecrets(body.id, [secretAccessKey]), { secretAccessKey })
    })

    it('accepts an OCI_ECR repository with a role to assume instead of keys', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const role = 'arn:aws:iam::123456789012:role/charts'
      const body = await create(organization.id, tokens.write.authorization, {
        name: uniqueName('ecr role'),
        kind: 'OCI_ECR',
        url: 'oci://123456789012.dkr.ecr.eu-west-3.amazonaws.com',
        skip_tls_verification: false,
        config: { region: 'eu-west-3', role_arn: role },
      })
      assert.deepEqual(body.config, { region: 'eu-west-3', role_arn: role })
    })

    it('creates an OCI_SCALEWAY_CR repository, sealing the scaleway secret key', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const scalewaySecretKey = secret('scw')
      const res = await call('POST', url(organization.id), tokens.write.authorization, {
        name: uniqueName('scw'),
        kind: 'OCI_SCALEWAY_CR',
        url: 'oci://rg.fr-par.scw.cloud/charts',
        skip_tls_verification: false,
        config: { region: 'fr-par', scaleway_access_key: 'SCWKEY', scaleway_secret_key: scalewaySecretKey, scaleway_project_id: 'p-1' },
      })
      assert.equal(res.statusCode, 201, res.body)
      assert.ok(!res.body.includes(scalewaySecretKey))
      assert.deepEqual(res.json().config, { region: 'fr-par', scaleway_access_key: 'SCWKEY', scaleway_project_id: 'p-1' })
      assert.deepEqual(await storedSecrets(res.json().id, [scalewaySecretKey]), { scalewaySecretKey })
    })

    const ecr = (config: Record<string, string>, extra: object = {}) => ({
      name: uniqueName('ecr'),
      kind: 'OCI_ECR',
      skip_tls_verification: false,
      config,
      ...extra,
    })
    const invalid: [string, object, string[]][] = [
      ['an HTTPS repository with an oci:// url', { ...httpsRepository(), url: 'oci://registry.example.com' }, ['/url']],
      ['an HTTPS repository with an http:// url', { ...httpsRepository(), url: 'http://charts.example.com' }, ['/url']],
      ['an HTTPS repository with a url that is not one', { ...httpsRepository(), url: 'charts.example.com' }, ['/url']],
      ['an HTTPS repository without url', { ...httpsRepository(), url: undefined }, ['/url']],
      ['credentials in an HTTPS url', { ...httpsRepository(), url: 'https://robot:hunter2-secret@charts.example.com' }, ['/url']],
      ['a user name in an HTTPS url', { ...httpsRepository(), url: 'https://robot@charts.example.com/stable' }, ['/url']],
      [
        'credentials in an oci:// url',
        { ...httpsRepository(), kind: 'OCI_GENERIC_CR', url: 'oci://robot:hunter2-secret@registry.example.com' },
        ['/url'],
      ],
      ['credentials in a url that does not parse', { ...httpsRepository(), url: 'https://robot:hunter2-secret@[bad' }, ['/url']],
      ['an OCI_GENERIC_CR repository with an https:// url', { ...httpsRepository(), kind: 'OCI_GENERIC_CR' }, ['/url']],
      ['an OCI_DOCKER_HUB repository without url', { ...httpsRepository(), kind: 'OCI_DOCKER_HUB', url: null }, ['/url']],
      ['an OCI_ECR repository with an https:// url', ecr({ region: 'r', role_arn: 'arn' }, { url: 'https://ecr.example.com' }), ['/url']],
      ['an OCI_ECR repository without region', ecr({ role_arn: 'arn:aws:iam::1:role/x' }), ['/config/region']],
      ['an OCI_ECR repository without credentials', ecr({ region: 'eu-west-3' }), ['/config/access_key_id', '/config/secret_access_key']],
      ['an OCI_ECR repository with a key id but no secret key', ecr({ region: 'eu-west-3', access_key_id: 'AKIA' }), ['/config/secret_access_key']],
      [
        'an OCI_SCALEWAY_CR repository without its settings',
        { ...httpsRepository(), kind: 'OCI_SCALEWAY_CR', url: 'oci://rg.fr-par.scw.cloud' },
        ['/config/region', '/config/scaleway_access_key', '/config/scaleway_project_id', '/config/scaleway_secret_key'],
      ],
      ['a username without password', httpsRepository({ username: 'robot' }), ['/config/password']],
      ['a password without username', httpsRepository({ password: 'hunter2-secret' }), ['/config/username']],
      ['a blank username with a password', httpsRepository({ username: '  ', password: 'hunter2-secret' }), ['/config/username']],
      [
        'every rule broken at once',
        ecr({ username: 'robot' }, { url: 'https://x.example' }),
        ['/config/access_key_id', '/config/password', '/config/region', '/config/secret_access_key', '/url'],
      ],
      ['no config', { ...httpsRepository(), config: undefined }, ['/config']],
      ['no skip_tls_verification', { ...httpsRepository(), skip_tls_verification: undefined }, ['/skip_tls_verification']],
      ['an unknown kind', { ...httpsRepository(), kind: 'OCI_AZURE_CR' }, ['/kind']],
      ['a blank name', { ...httpsRepository(), name: ' ' }, ['/name']],
      ['a config value that is not a string', httpsRepository({ username: 42 as unknown as string }), ['/config/username']],
    ]
    for (const [what, payload, paths] of invalid) {
      it(`answers 400 naming ${paths.join(', ')} for ${what}`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const res = await call('POST', url(organization.id), tokens.write.authorization, payload)
        const errors = assertValidationError(res)
        assert.deepEqual(errors.map((e) => e.path).sort(), paths)
        for (const e of errors) assert.equal(e.location, 'body')
        assert.ok(!res.body.includes('hunter2-secret'), 'a secret is in the error')
        assert.deepEqual((await call('GET', url(organization.id), tokens.read.authorization)).json().results, [])
      })
    }

    it('says that credentials go in config, not in the url, on a create and on an edit', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = await factories(t.db).helmRepository(organization.id)
      const payload = { ...httpsRepository(), url: 'https://robot:hunter2-secret@charts.example.com' }
      for (const [method, path] of [
        ['POST', url(organization.id)],
        ['PUT', url(organization.id, made.id)],
      ] as const) {
        const res = await call(method, path, tokens.write.authorization, payload)
        const errors = assertValidationError(res)
        assert.deepEqual(
          errors.map((e) => [e.path, e.message]),
          [['/url', errors[0]!.message]],
        )
        assert.match(errors[0]!.message, /must not contain credentials.*config.*username and password/)
        assert.ok(!res.body.includes('hunter2-secret'), 'the password is in the error')
      }
      assert.equal((await call('GET', url(organization.id, made.id), tokens.read.authorization)).json().url, made.url)
    })

    it('answers 409 for a name taken in the organization in another letter case', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const existing = await factories(t.db).helmRepository(organization.id, { name: uniqueName('Bitnami') })
      const body = assertError(
        await call('POST', url(organization.id), tokens.write.authorization, { ...httpsRepository(), name: existing.name.toUpperCase() }),
        409,
        'conflict',
      )
      assert.match(body.message, /already exists/)
    })

    for (const role of ['read', 'deploy'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and creates nothing`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        assertError(await call('POST', url(organization.id), tokens[role].authorization, httpsRepository()), 403, 'forbidden')
        assert.deepEqual((await call('GET', url(organization.id), tokens.read.authorization)).json().results, [])
      })
    }

    it('answers 404 in an organization of somebody else', async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organization()
      assertError(await call('POST', url(theirs.id), mine.tokens.admin.authorization, httpsRepository()), 404, 'not_found')
    })
  })

  describe('GET /organization/{organizationId}/helmRepository', () => {
    it('lists the repositories of the organization only, by name case-insensitively, with their service counts', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const password = secret('password')
      const used = await factories(t.db).helmRepository(organization.id, { name: 'Bravo', config: { username: 'u' }, secrets: { password } })
      const unused = await factories(t.db).helmRepository(organization.id, { name: 'alpha' })
      await insertHelmService(t.db, organization.id, { helmRepositoryId: used.id })
      await insertHelmService(t.db, organization.id, { helmRepositoryId: used.id })
      const other = await factories(t.db).organization()
      await factories(t.db).helmRepository(other.id, { name: 'aaa' })

      const res = await call('GET', url(organization.id), tokens.read.authorization)
      assert.equal(res.statusCode, 200)
      assert.ok(!res.body.includes(password))
      const results = res.json().results as RepositoryBody[]
      for (const body of results) assertShape(body)
      assert.deepEqual(
        results.map((r) => [r.id, r.associated_services_count]),
        [
          [unused.id, 0],
          [used.id, 2],
        ],
      )
    })
  })

  describe('GET /organization/{organizationId}/helmRepository/{helmRepositoryId}', () => {
    it('returns the repository to a READ member without its secrets', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const password = secret('password')
      const made = await factories(t.db).helmRepository(organization.id, { config: { username: 'robot' }, secrets: { password } })
      await insertHelmService(t.db, organization.id, { helmRepositoryId: made.id })
      const res = await call('GET', url(organization.id, made.id), tokens.read.authorization)
      assert.equal(res.statusCode, 200)
      assert.ok(!res.body.includes(password))
      const body = res.json() as RepositoryBody
      assertShape(body)
      assert.deepEqual(body.config, { username: 'robot' })
      assert.equal(body.associated_services_count, 1)
    })

    it("answers 404 for an unknown id and for another organization's repository", async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organization()
      const theirRepository = await factories(t.db).helmRepository(theirs.id)
      assertError(await call('GET', url(mine.organization.id, randomUUID()), mine.tokens.read.authorization), 404, 'not_found')
      assertError(await call('GET', url(mine.organization.id, theirRepository.id), mine.tokens.read.authorization), 404, 'not_found')
      assertError(await call('GET', url(theirs.id, theirRepository.id), mine.tokens.read.authorization), 404, 'not_found')
    })
  })

  describe('PUT /organization/{organizationId}/helmRepository/{helmRepositoryId}', () => {
    it('replaces the fields at the same url and kind, keeping an omitted password and never returning it', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const password = secret('password')
      const made = await factories(t.db).helmRepository(organization.id, {
        description: 'old',
        config: { username: 'robot', region: 'somewhere' },
        secrets: { password },
      })
      const name = uniqueName('renamed')
      const res = await call('PUT', url(organization.id, made.id), tokens.write.authorization, {
        name,
        kind: made.kind,
        url: made.url,
        skip_tls_verification: true,
        config: { username: 'robot2' },
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.ok(!res.body.includes(password))
      const body = res.json() as RepositoryBody
      assertShape(body)
      assert.deepEqual(
        [body.name, body.kind, body.url, body.skip_tls_verification, body.description, body.config],
        [name, made.kind, made.url, true, null, { username: 'robot2' }],
      )
      assert.equal(body.created_at, made.createdAt.toISOString())
      assert.deepEqual(await storedSecrets(made.id, [password]), { password })
      assert.deepEqual((await call('GET', url(organization.id, made.id), tokens.read.authorization)).json(), body)
    })

    it('replaces a password that is given and clears one given as ""', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = await factories(t.db).helmRepository(organization.id, { config: { username: 'robot' }, secrets: { password: secret('old') } })
      const newPassword = secret('new')
      const replaced = await call(
        'PUT',
        url(organization.id, made.id),
        tokens.write.authorization,
        httpsRepository({ username: 'robot', password: newPassword }),
      )
      assert.equal(replaced.statusCode, 200, replaced.body)
      assert.ok(!replaced.body.includes(newPassword))
      assert.deepEqual(await storedSecrets(made.id, [newPassword]), { password: newPassword })

      const cleared = await call('PUT', url(organization.id, made.id), tokens.write.authorization, httpsRepository({ password: '' }))
      assert.equal(cleared.statusCode, 200, cleared.body)
      assert.deepEqual(cleared.json().config, {})
      assert.equal(await storedSecrets(made.id), null)
    })

    it('checks the rules against the kept secrets: an ECR secret key need not be sent again, a kept password needs its username', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const secretAccessKey = secret('aws')
      const made = await factories(t.db).helmRepository(organization.id, {
        kind: 'OCI_ECR',
        url: null,
        config: { region: 'eu-west-3', accessKeyId: 'AKIA1', username: 'robot' },
        secrets: { secretAccessKey, password: secret('pw') },
      })
      const edited = await call('PUT', url(organization.id, made.id), tokens.write.authorization, {
        name: made.name,
        kind: 'OCI_ECR',
        skip_tls_verification: false,
        config: { region: 'eu-west-1', access_key_id: 'AKIA2', username: 'robot' },
      })
      assert.equal(edited.statusCode, 200, edited.body)
      assert.deepEqual(edited.json().config, { region: 'eu-west-1', access_key_id: 'AKIA2', username: 'robot' })
      assert.equal((await storedSecrets(made.id))?.secretAccessKey, secretAccessKey)

      const errors = assertValidationError(
        await call('PUT', url(organization.id, made.id), tokens.write.authorization, {
          name: made.name,
          kind: 'OCI_ECR',
          skip_tls_verification: false,
          config: { region: 'eu-west-1', access_key_id: 'AKIA2', secret_access_key: '' },
        }),
      )
      assert.deepEqual(errors.map((e) => e.path).sort(), ['/config/secret_access_key', '/config/username'])
    })

    it("accepts the repository's own name in another letter case and answers 409 for another's", async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = await factories(t.db).helmRepository(organization.id)
      const other = await factories(t.db).helmRepository(organization.id)
      const own = await call('PUT', url(organization.id, made.id), tokens.write.authorization, {
        ...httpsRepository(),
        name: made.name.toUpperCase(),
      })
      assert.equal(own.statusCode, 200, own.body)
      const taken = await call('PUT', url(organization.id, made.id), tokens.write.authorization, {
        ...httpsRepository(),
        name: other.name.toLowerCase(),
      })
      assertError(taken, 409, 'conflict')
    })

    for (const role of ['read', 'deploy'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and changes nothing`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const made = await factories(t.db).helmRepository(organization.id)
        assertError(await call('PUT', url(organization.id, made.id), tokens[role].authorization, httpsRepository()), 403, 'forbidden')
        assert.equal((await call('GET', url(organization.id, made.id), tokens.read.authorization)).json().name, made.name)
      })
    }

    it("answers 404 for another organization's repository and leaves it alone", async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organization()
      const password = secret('password')
      const theirRepository = await factories(t.db).helmRepository(theirs.id, { config: { username: 'u' }, secrets: { password } })
      assertError(
        await call('PUT', url(mine.organization.id, theirRepository.id), mine.tokens.admin.authorization, httpsRepository()),
        404,
        'not_found',
      )
      assertError(await call('PUT', url(mine.organization.id, randomUUID()), mine.tokens.admin.authorization, httpsRepository()), 404, 'not_found')
      assert.deepEqual(await storedSecrets(theirRepository.id), { password })
    })
  })

  describe('DELETE /organization/{organizationId}/helmRepository/{helmRepositoryId}', () => {
    it('deletes an unused repository (204)', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = await factories(t.db).helmRepository(organization.id)
      const res = await call('DELETE', url(organization.id, made.id), tokens.write.authorization)
      assert.equal(res.statusCode, 204)
      assert.equal(res.body, '')
      assertError(await call('GET', url(organization.id, made.id), tokens.read.authorization), 404, 'not_found')
    })

    it('answers 409 saying how many helm services use the repository, and keeps it', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = await factories(t.db).helmRepository(organization.id)
      await insertHelmService(t.db, organization.id, { helmRepositoryId: made.id })
      const body = assertError(await call('DELETE', url(organization.id, made.id), tokens.admin.authorization), 409, 'conflict')
      assert.match(body.message, /used by 1 helm service/)
      assert.equal((await call('GET', url(organization.id, made.id), tokens.read.authorization)).statusCode, 200)
    })

    for (const role of ['read', 'deploy'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and keeps the repository`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const made = await factories(t.db).helmRepository(organization.id)
        assertError(await call('DELETE', url(organization.id, made.id), tokens[role].authorization), 403, 'forbidden')
        assert.equal((await call('GET', url(organization.id, made.id), tokens.read.authorization)).statusCode, 200)
      })
    }

    it("answers 404 for another organization's repository and keeps it", async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organizationWithTokens()
      const theirRepository = await factories(t.db).helmRepository(theirs.organization.id)
      assertError(await call('DELETE', url(mine.organization.id, theirRepository.id), mine.tokens.admin.authorization), 404, 'not_found')
      assertError(await call('DELETE', url(mine.organization.id, randomUUID()), mine.tokens.admin.authorization), 404, 'not_found')
      assert.equal((await call('GET', url(theirs.organization.id, theirRepository.id), theirs.tokens.read.authorization)).statusCode, 200)
    })
  })

  it('answers 401 on every route without valid credentials', async () => {
    const { organization } = await factories(t.db).organizationWithTokens()
    const made = await factories(t.db).helmRepository(organization.id)
    await assertRoutesNeedCredentials(t.app, [
      ['GET', url(organization.id)],
      ['POST', url(organization.id)],
      ['GET', url(organization.id, made.id)],
      ['PUT', url(organization.id, made.id)],
      ['DELETE', url(organization.id, made.id)],
    ])
  })

  it('findHelmRepository finds a repository only within its organization', async () => {
    const { helmRepositories } = createServices(t.db, {
      tokenUsageFlushMs: 60_000,
      onBackgroundError: () => {},
      secrets: testSecretBox(),
      git: loadConfig({}).git,
      outbound: loadConfig({}).outbound,
    })
    const organization = await factories(t.db).organization()
    const other = await factories(t.db).organization()
    const made = await factories(t.db).helmRepository(organization.id)
    assert.equal((await helmRepositories.findHelmRepository(organization.id, made.id))?.id, made.id)
    assert.equal(await helmRepositories.findHelmRepository(other.id, made.id), undefined)
    assert.equal(await helmRepositories.findHelmRepository(organization.id, randomUUID()), undefined)
  })
})
