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
  'created_at',
  'description',
  'expired_at',
  'git_api_url',
  'id',
  'name',
  'type',
  'updated_at',
  'workspace',
]

interface GitTokenBody {
  id: string
  created_at: string
  updated_at: string
  name: string
  description: string | null
  type: string
  expired_at: string | null
  workspace: string | null
  associated_services_count: number
  git_api_url: string | null
}

function assertShape(body: GitTokenBody): void {
  assert.deepEqual(Object.keys(body).sort(), FIELDS)
  assert.match(body.id, UUID)
  assertIsoTimestamp(body.created_at, 'created_at')
  assertIsoTimestamp(body.updated_at, 'updated_at')
  assert.equal(body.expired_at, null)
  assert.equal(typeof body.associated_services_count, 'number')
}

const secret = () => `ghp_${randomUUID().replaceAll('-', '')}`

describe('git tokens', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(async () => t.close())

  const url = (organizationId: string, gitTokenId?: string) => `/organization/${organizationId}/gitToken${gitTokenId ? `/${gitTokenId}` : ''}`
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, authorization: string, payload?: object) =>
    t.app.inject({ method, url: path, headers: { authorization }, ...(payload === undefined ? {} : { payload }) })

  const sealedToken = async (id: string) =>
    (await t.db.selectFrom('gitTokens').select('tokenSealed').where('id', '=', id).executeTakeFirstOrThrow()).tokenSealed

  /** The stored column is ciphertext that the server's key opens to exactly the token. */
  async function assertSealed(id: string, token: string) {
    const sealed = await sealedToken(id)
    for (const encoding of ['utf8', 'latin1', 'hex', 'base64'] as const) assert.ok(!sealed.toString(encoding).includes(token), encoding)
    assert.equal(testSecretBox().open(sealed), token)
  }

  describe('POST /organization/{organizationId}/gitToken', () => {
    it('creates a token (201) in the GitTokenResponse shape, storing the secret sealed and never returning it', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const token = secret()
      const name = uniqueName('github')
      const res = await call('POST', url(organization.id), tokens.write.authorization, {
        name: `  ${name}  `,
        description: 'for the charts',
        type: 'GITLAB',
        token,
        git_api_url: 'https://gitlab.example.com/api/v4',
      })
      assert.equal(res.statusCode, 201, res.body)
      assert.ok(!res.body.includes(token), 'the secret is in the response')
      const body = res.json() as GitTokenBody
      assertShape(body)
      assert.deepEqual(
        { ...body, id: '', created_at: '', updated_at: '' },
        {
          id: '',
          created_at: '',
          updated_at: '',
          name,
          description: 'for the charts',
          type: 'GITLAB',
          expired_at: null,
          workspace: null,
          associated_services_count: 0,
          git_api_url: 'https://gitlab.example.com/api/v4',
        },
      )
      await assertSealed(body.id, token)
    })

    it('fills the optional fields with null', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await call('POST', url(organization.id), tokens.admin.authorization, { name: uniqueName('min'), type: 'GITHUB', token: secret() })
      assert.equal(res.statusCode, 201, res.body)
      const body = res.json() as GitTokenBody
      assertShape(body)
      assert.equal(body.description, null)
      assert.equal(body.workspace, null)
      assert.equal(body.git_api_url, null)
    })

    it('accepts a BITBUCKET token with its workspace', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const res = await call('POST', url(organization.id), tokens.write.authorization, {
        name: uniqueName('bb'),
        type: 'BITBUCKET',
        token: secret(),
        workspace: 'my-team',
      })
      assert.equal(res.statusCode, 201, res.body)
      assert.equal(res.json().workspace, 'my-team')
    })

    for (const workspace of [undefined, null, '', '  ']) {
      it(`answers 400 naming /workspace for a BITBUCKET token with workspace ${JSON.stringify(workspace)}`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const errors = assertValidationError(
          await call('POST', url(organization.id), tokens.write.authorization, {
            name: uniqueName('bb'),
            type: 'BITBUCKET',
            token: secret(),
            workspace,
          }),
        )
        assert.deepEqual(
          errors.map((e) => [e.path, e.location]),
          [['/workspace', 'body']],
        )
      })
    }

    for (const gitApiUrl of ['ftp://git.example.com', 'not a url', '/api/v4', 'https://', 'javascript:alert(1)']) {
      it(`answers 400 naming /git_api_url for ${JSON.stringify(gitApiUrl)}`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const errors = assertValidationError(
          await call('POST', url(organization.id), tokens.write.authorization, {
            name: uniqueName('bad url'),
            type: 'GITHUB',
            token: secret(),
            git_api_url: gitApiUrl,
          }),
        )
        assert.deepEqual(
          errors.map((e) => [e.path, e.location]),
          [['/git_api_url', 'body']],
        )
      })
    }

    for (const gitApiUrl of [
      'https://robot:hunter2-secret@ghe.example.com',
      'https://robot@gitlab.example.com/api/v4',
      'https://:hunter2-secret@x.example',
    ]) {
      it(`answers 400 naming /git_api_url, and where the token goes, for credentials in ${gitApiUrl.replace(/\/\/.*@/, '//…@')}`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const res = await call('POST', url(organization.id), tokens.write.authorization, {
          name: uniqueName('creds'),
          type: 'GITHUB',
          token: secret(),
          git_api_url: gitApiUrl,
        })
        const errors = assertValidationError(res)
        assert.deepEqual(
          errors.map((e) => [e.path, e.location]),
          [['/git_api_url', 'body']],
        )
        assert.match(errors[0]!.message, /must not contain credentials.*token/)
        assert.ok(!res.body.includes('hunter2-secret'), 'the password is in the error')
        assert.deepEqual((await call('GET', url(organization.id), tokens.read.authorization)).json().results, [])
      })
    }

    it('reports every broken rule at once, and never the token', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const token = secret()
      const res = await call('POST', url(organization.id), tokens.write.authorization, {
        name: uniqueName('both'),
        type: 'BITBUCKET',
        token,
        git_api_url: 'ftp://x',
      })
      const errors = assertValidationError(res)
      assert.deepEqual(errors.map((e) => e.path).sort(), ['/git_api_url', '/workspace'])
      assert.ok(!res.body.includes(token))
    })

    const base = () => ({ name: uniqueName('x'), type: 'GITHUB', token: secret() })
    const invalidBodies: [string, Record<string, unknown>, string][] = [
      ['no name', { ...base(), name: undefined }, '/name'],
      ['a blank name', { ...base(), name: '   ' }, '/name'],
      ['no type', { ...base(), type: undefined }, '/type'],
      ['an unknown type', { ...base(), type: 'SVN' }, '/type'],
      ['no token', { ...base(), token: undefined }, '/token'],
      ['an empty token', { ...base(), token: '' }, '/token'],
      ['a token over 4096 characters', { ...base(), token: 'x'.repeat(4097) }, '/token'],
    ]
    for (const [what, payload, path] of invalidBodies) {
      it(`answers 400 naming ${path} for ${what}`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const errors = assertValidationError(await call('POST', url(organization.id), tokens.write.authorization, payload))
        assert.deepEqual(
          errors.map((e) => e.path),
          [path],
        )
      })
    }

    it('answers 409 for a name taken in the organization in another letter case, but not for one of another organization', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const existing = await factories(t.db).gitToken(organization.id, { name: uniqueName('Shared Name') })
      for (const name of [existing.name.toUpperCase(), existing.name.toLowerCase()]) {
        const body = assertError(
          await call('POST', url(organization.id), tokens.write.authorization, { name, type: 'GITHUB', token: secret() }),
          409,
          'conflict',
        )
        assert.match(body.message, /already exists/)
      }
      const other = await factories(t.db).organizationWithTokens()
      const res = await call('POST', url(other.organization.id), other.tokens.write.authorization, {
        name: existing.name,
        type: 'GITHUB',
        token: secret(),
      })
      assert.equal(res.statusCode, 201)
    })

    for (const role of ['read', 'deploy'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and creates nothing`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        assertError(
          await call('POST', url(organization.id), tokens[role].authorization, { name: 'x', type: 'GITHUB', token: secret() }),
          403,
          'forbidden',
        )
        assert.deepEqual((await call('GET', url(organization.id), tokens.read.authorization)).json().results, [])
      })
    }

    it('answers 404 in an organization of somebody else, and 401 without credentials', async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organization()
      assertError(
        await call('POST', url(theirs.id), mine.tokens.admin.authorization, { name: 'x', type: 'GITHUB', token: secret() }),
        404,
        'not_found',
      )
      const res = await t.app.inject({ method: 'POST', url: url(mine.organization.id), payload: { name: 'x', type: 'GITHUB', token: secret() } })
      assertError(res, 401, 'unauthenticated')
    })
  })

  describe('GET /organization/{organizationId}/gitToken', () => {
    it('lists the tokens of the organization only, by name case-insensitively, without secrets', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = []
      for (const name of ['beta', 'Alpha', 'gamma', 'ALPHA 2']) made.push(await factories(t.db).gitToken(organization.id, { name }))
      const other = await factories(t.db).organizationWithTokens()
      await factories(t.db).gitToken(other.organization.id, { name: 'aaa' })

      const res = await call('GET', url(organization.id), tokens.read.authorization)
      assert.equal(res.statusCode, 200)
      const results = res.json().results as GitTokenBody[]
      assert.deepEqual(
        results.map((r) => r.name),
        ['Alpha', 'ALPHA 2', 'beta', 'gamma'],
      )
      for (const body of results) assertShape(body)
      for (const { token } of made) assert.ok(!res.body.includes(token))
    })

    it('counts the distinct helm services that use each token, for chart or values', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const both = await factories(t.db).gitToken(organization.id, { name: 'a both' })
      const values = await factories(t.db).gitToken(organization.id, { name: 'b values' })
      const unused = await factories(t.db).gitToken(organization.id, { name: 'c unused' })
      await insertHelmService(t.db, organization.id, { sourceGitTokenId: both.id, valuesGitTokenId: both.id })
      await insertHelmService(t.db, organization.id, { sourceGitTokenId: both.id, valuesGitTokenId: values.id })
      await insertHelmService(t.db, organization.id, { valuesGitTokenId: values.id })

      const listed = (await call('GET', url(organization.id), tokens.read.authorization)).json().results as GitTokenBody[]
      assert.deepEqual(
        listed.map((r) => [r.id, r.associated_services_count]),
        [
          [both.id, 2],
          [values.id, 2],
          [unused.id, 0],
        ],
      )
      const one = (await call('GET', url(organization.id, values.id), tokens.read.authorization)).json() as GitTokenBody
      assert.equal(one.associated_services_count, 2)
    })

    it('answers 404 for an organization of somebody else', async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organization()
      assertError(await call('GET', url(theirs.id), mine.tokens.read.authorization), 404, 'not_found')
    })
  })

  describe('GET /organization/{organizationId}/gitToken/{gitTokenId}', () => {
    it('returns the token to a READ member, without its secret', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = await factories(t.db).gitToken(organization.id, { type: 'BITBUCKET', workspace: 'team', gitApiUrl: 'https://bb.example.com' })
      const res = await call('GET', url(organization.id, made.id), tokens.read.authorization)
      assert.equal(res.statusCode, 200)
      assert.ok(!res.body.includes(made.token))
      const body = res.json() as GitTokenBody
      assertShape(body)
      assert.equal(body.id, made.id)
      assert.equal(body.type, 'BITBUCKET')
      assert.equal(body.workspace, 'team')
      assert.equal(body.git_api_url, 'https://bb.example.com')
      assert.equal(body.created_at, made.createdAt.toISOString())
    })

    it("answers 404 for an unknown id and for another organization's token, through either organization", async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organizationWithTokens()
      const theirToken = await factories(t.db).gitToken(theirs.organization.id)
      assertError(await call('GET', url(mine.organization.id, randomUUID()), mine.tokens.read.authorization), 404, 'not_found')
      assertError(await call('GET', url(mine.organization.id, theirToken.id), mine.tokens.read.authorization), 404, 'not_found')
      assertError(await call('GET', url(theirs.organization.id, theirToken.id), mine.tokens.read.authorization), 404, 'not_found')
    })

    it('answers 400 naming the path parameter for an id that is not a uuid', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const errors = assertValidationError(await call('GET', url(organization.id, 'nope'), tokens.read.authorization))
      assert.deepEqual(errors[0], { path: '/gitTokenId', message: errors[0]!.message, location: 'path' })
    })
  })

  describe('PUT /organization/{organizationId}/gitToken/{gitTokenId}', () => {
    it('replaces every field and the secret, clearing omitted optional fields', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = await factories(t.db).gitToken(organization.id, {
        description: 'old',
        type: 'BITBUCKET',
        workspace: 'w',
        gitApiUrl: 'https://a.example',
      })
      const token = secret()
      const name = uniqueName('renamed')
      const res = await call('PUT', url(organization.id, made.id), tokens.write.authorization, { name, type: 'GITHUB', token })
      assert.equal(res.statusCode, 200, res.body)
      assert.ok(!res.body.includes(token))
      assert.ok(!res.body.includes(made.token))
      const body = res.json() as GitTokenBody
      assertShape(body)
      assert.equal(body.name, name)
      assert.equal(body.type, 'GITHUB')
      assert.equal(body.description, null)
      assert.equal(body.workspace, null)
      assert.equal(body.git_api_url, null)
      assert.equal(body.created_at, made.createdAt.toISOString())
      assert.ok(body.updated_at >= made.updatedAt.toISOString())
      await assertSealed(made.id, token)
      assert.deepEqual((await call('GET', url(organization.id, made.id), tokens.read.authorization)).json(), body)
    })

    it('keeps the count of services using the token', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = await factories(t.db).gitToken(organization.id)
      await insertHelmService(t.db, organization.id, { sourceGitTokenId: made.id })
      const res = await call('PUT', url(organization.id, made.id), tokens.write.authorization, { name: made.name, type: 'GITHUB', token: secret() })
      assert.equal(res.json().associated_services_count, 1)
    })

    it("accepts the token's own name in another letter case and answers 409 for another token's name", async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = await factories(t.db).gitToken(organization.id)
      const other = await factories(t.db).gitToken(organization.id)
      const own = await call('PUT', url(organization.id, made.id), tokens.write.authorization, {
        name: made.name.toUpperCase(),
        type: 'GITHUB',
        token: secret(),
      })
      assert.equal(own.statusCode, 200)
      const taken = await call('PUT', url(organization.id, made.id), tokens.write.authorization, {
        name: other.name.toUpperCase(),
        type: 'GITHUB',
        token: secret(),
      })
      assert.match(assertError(taken, 409, 'conflict').message, /already exists/)
    })

    it('answers 400 without the token, and for a BITBUCKET token without workspace, changing nothing', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = await factories(t.db).gitToken(organization.id)
      const noToken = assertValidationError(
        await call('PUT', url(organization.id, made.id), tokens.write.authorization, { name: 'x', type: 'GITHUB' }),
      )
      assert.deepEqual(
        noToken.map((e) => e.path),
        ['/token'],
      )
      const noWorkspace = assertValidationError(
        await call('PUT', url(organization.id, made.id), tokens.write.authorization, { name: 'x', type: 'BITBUCKET', token: secret() }),
      )
      assert.deepEqual(
        noWorkspace.map((e) => [e.path, e.location]),
        [['/workspace', 'body']],
      )
      await assertSealed(made.id, made.token)
    })

    for (const role of ['read', 'deploy'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and keeps the secret`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const made = await factories(t.db).gitToken(organization.id)
        assertError(
          await call('PUT', url(organization.id, made.id), tokens[role].authorization, { name: 'x', type: 'GITHUB', token: secret() }),
          403,
          'forbidden',
        )
        await assertSealed(made.id, made.token)
      })
    }

    it("answers 404 for another organization's token and leaves it alone", async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organization()
      const theirToken = await factories(t.db).gitToken(theirs.id)
      const payload = { name: 'stolen', type: 'GITHUB', token: secret() }
      assertError(await call('PUT', url(mine.organization.id, theirToken.id), mine.tokens.admin.authorization, payload), 404, 'not_found')
      assertError(await call('PUT', url(mine.organization.id, randomUUID()), mine.tokens.admin.authorization, payload), 404, 'not_found')
      await assertSealed(theirToken.id, theirToken.token)
    })
  })

  describe('DELETE /organization/{organizationId}/gitToken/{gitTokenId}', () => {
    it('deletes an unused token (204)', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = await factories(t.db).gitToken(organization.id)
      const res = await call('DELETE', url(organization.id, made.id), tokens.write.authorization)
      assert.equal(res.statusCode, 204)
      assert.equal(res.body, '')
      assertError(await call('GET', url(organization.id, made.id), tokens.read.authorization), 404, 'not_found')
      assertError(await call('DELETE', url(organization.id, made.id), tokens.write.authorization), 404, 'not_found')
    })

    it('answers 409 saying how many helm services use the token, and keeps it', async () => {
      const { organization, tokens } = await factories(t.db).organizationWithTokens()
      const made = await factories(t.db).gitToken(organization.id)
      await insertHelmService(t.db, organization.id, { sourceGitTokenId: made.id })
      await insertHelmService(t.db, organization.id, { valuesGitTokenId: made.id })
      const body = assertError(await call('DELETE', url(organization.id, made.id), tokens.admin.authorization), 409, 'conflict')
      assert.match(body.message, /used by 2 helm service/)
      assert.equal((await call('GET', url(organization.id, made.id), tokens.read.authorization)).statusCode, 200)
    })

    for (const role of ['read', 'deploy'] as const) {
      it(`refuses a ${role.toUpperCase()} token with 403 and keeps the git token`, async () => {
        const { organization, tokens } = await factories(t.db).organizationWithTokens()
        const made = await factories(t.db).gitToken(organization.id)
        assertError(await call('DELETE', url(organization.id, made.id), tokens[role].authorization), 403, 'forbidden')
        assert.equal((await call('GET', url(organization.id, made.id), tokens.read.authorization)).statusCode, 200)
      })
    }

    it("answers 404 for another organization's token and keeps it", async () => {
      const mine = await factories(t.db).organizationWithTokens()
      const theirs = await factories(t.db).organizationWithTokens()
      const theirToken = await factories(t.db).gitToken(theirs.organization.id)
      assertError(await call('DELETE', url(mine.organization.id, theirToken.id), mine.tokens.admin.authorization), 404, 'not_found')
      assertError(await call('DELETE', url(theirs.organization.id, theirToken.id), mine.tokens.admin.authorization), 404, 'not_found')
      assert.equal((await call('GET', url(theirs.organization.id, theirToken.id), theirs.tokens.read.authorization)).statusCode, 200)
    })
  })

  it('answers 401 on every route without valid credentials', async () => {
    const { organization } = await factories(t.db).organizationWithTokens()
    const made = await factories(t.db).gitToken(organization.id)
    await assertRoutesNeedCredentials(t.app, [
      ['GET', url(organization.id)],
      ['POST', url(organization.id)],
      ['GET', url(organization.id, made.id)],
      ['PUT', url(organization.id, made.id)],
      ['DELETE', url(organization.id, made.id)],
    ])
  })

  describe('for other modules', () => {
    const services = () =>
      createServices(t.db, {
        tokenUsageFlushMs: 60_000,
        onBackgroundError: () => {},
        secrets: testSecretBox(),
        git: loadConfig({}).git,
        outbound: loadConfig({}).outbound,
      })

    it('findGitToken and openGitToken find a token only within its organization; openGitToken gives the secret', async () => {
      const { gitTokens } = services()
      const organization = await factories(t.db).organization()
      const other = await factories(t.db).organization()
      const made = await factories(t.db).gitToken(organization.id)

      assert.equal((await gitTokens.findGitToken(organization.id, made.id))?.id, made.id)
      assert.equal(await gitTokens.findGitToken(other.id, made.id), undefined)
      assert.equal(await gitTokens.findGitToken(organization.id, randomUUID()), undefined)

      const opened = await gitTokens.openGitToken(organization.id, made.id)
      assert.equal(opened?.token, made.token)
      assert.equal(opened?.row.id, made.id)
      assert.ok(!('tokenSealed' in opened!.row))
      assert.equal(await gitTokens.openGitToken(other.id, made.id), undefined)
    })
  })
})
