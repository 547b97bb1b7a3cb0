import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { generateApiToken } from '#src/platform/auth/api-token-codec.ts'
import { type Db, openDatabase } from '#src/platform/db/database.ts'
import { redactUrl } from '#src/platform/logger.ts'
import { TEST_SECRET_KEY, testDatabaseUrl } from './helpers/app.ts'
import { type Answer, assertNoSecrets, call, logLines } from './helpers/berth-processes.ts'
import { factories } from './helpers/factories.ts'
import { type FakeProvider, manyBranches, startFakeProvider } from './helpers/fake-git-providers.ts'
import { type StaticIssuer, startStaticIssuer, TEST_AUDIENCE } from './helpers/oidc-provider.ts'
import { type RunningServer, startServer } from './helpers/process.ts'

// A real `berth serve` logging at trace, put through what logs: requests with every kind of
// credential, right and wrong, git tokens created and edited, branch listings that providers
// refuse, fail, time out on or never answer. Neither its logs nor any response ever holds a
// credential: API tokens (or their secret part), git tokens, Authorization headers, JWTs.

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('the scan for credentials', () => {
  it('finds a credential whole, or an API token by its secret part alone, and names the line without it', () => {
    const token = generateApiToken()
    const secretPart = token.slice('berth_'.length, -6)
    assert.throws(
      () => assertNoSecrets(`a\n{"msg":"Token ${token}"}\nb`, [token], 'the logs'),
      (error: Error) => {
        assert.match(error.message, /^the logs holds a secret \(berth_\w\w…\(55 chars\)\): \{"msg":"Token berth_\w\w…\(55 chars\)"\}$/)
        return true
      },
    )
    assert.throws(() => assertNoSecrets(`{"key":"${secretPart}"}`, [`Token ${token}`], 'a body'), /a body holds a secret/)
    assert.throws(() =>
      assertNoSecrets('Bearer x.eyJzdWIiOiJhIn0.c2lnbmF0dXJl', ['Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl'], 'a JWT'),
    )
    assertNoSecrets(`{"token_start":"${token.slice(0, 10)}"}`, [token], 'a harmless line')
  })
})

describe('redactUrl', () => {
  it('replaces credentials in query values and paths, and leaves everything else as it was', () => {
    const token = generateApiToken()
    assert.equal(redactUrl(`/a?token=${token}&name=ci%20bot&x`), '/a?token=[redacted]&name=ci%20bot&x')
    assert.equal(redactUrl(`/a?startId=${randomUUID()}`).includes('[redacted]'), false)
    assert.equal(redactUrl(`/a?filter=${token}`), '/a?filter=[redacted]')
    assert.equal(redactUrl(`/a?q=Bearer%20abc.def`), '/a?q=[redacted]')
    assert.equal(redactUrl(`/a/${token}/b`), '/a/[redacted]/b')
    assert.equal(redactUrl('/a?password=hunter2&access_token=x&X-Api-Key=y'), '/a?password=[redacted]&access_token=[redacted]&X-Api-Key=[redacted]')
  })
})

describe('credentials in the logs and error bodies of berth serve', () => {
  let db: Db
  let server: RunningServer
  let issuer: StaticIssuer
  let github: FakeProvider
  let bitbucket: FakeProvider
  let signingKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey']

  before(async () => {
    db = openDatabase(testDatabaseUrl(), 2)
    const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048 })
    signingKey = privateKey
    issuer = await startStaticIssuer([{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }])
    github = await startFakeProvider('github')
    bitbucket = await startFakeProvider('bitbucket')
    server = await startServer({
      DATABASE_URL: testDatabaseUrl(),
      BERTH_SECRET_KEY: TEST_SECRET_KEY,
      BERTH_LOG_LEVEL: 'trace',
      // No runner: this database is shared with other tests.
      BERTH_RUNNER_IN_SERVE: 'false',
      BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
      BERTH_GIT_CACHE_TTL_MS: '0',
      BERTH_GIT_TIMEOUT_MS: '1500',
      // Failed authentications are the point here, not their limit.
      BERTH_RATE_LIMIT_FAILED_AUTH: '0',
      ...issuer.env,
    })
  })
  after(async () => {
    await server?.stop('SIGTERM', 15_000).catch(() => {})
    await github?.close()
    await bitbucket?.close()
    await issuer?.close()
    await db?.destroy()
  })

  it('never writes a token, a git token, an Authorization header or a JWT, whatever fails', async () => {
    const make = factories(db)
    const { organization, tokens } = await make.organizationWithTokens()
    const orgPath = `/organization/${organization.id}`
    const secrets = new Set<string>([TEST_SECRET_KEY])
    const answers: { what: string; answer: Answer }[] = []
    const send = async (
      what: string,
      expected: number,
      method: 'GET' | 'POST' | 'PUT' | 'DELETE',
      path: string,
      authorization: string | undefined,
      body?: unknown,
    ) => {
      if (authorization !== undefined) secrets.add(authorization)
      const answer = await call(server.baseUrl, method, path, authorization, { body })
      assert.equal(answer.status, expected, `${what}: ${answer.text}`)
      answers.push({ what, answer })
      return answer
    }

    // API tokens: right ones, and wrong ones of every shape.
    for (const token of Object.values(tokens)) {
      secrets.add(token.token)
      await send(`the ${token.role} token`, 200, 'GET', orgPath, token.authorization)
    }
    const real = tokens.admin.token
    const unknown = generateApiToken()
    const typo = `${real.slice(0, -1)}${real.endsWith('A') ? 'B' : 'A'}`
    for (const wrong of [unknown, typo, `${real}x`, real.slice(0, -3), real.toLowerCase()]) secrets.add(wrong)
    await send('an unknown token', 401, 'GET', orgPath, `Token ${unknown}`)
    await send('a token with a typo', 401, 'GET', orgPath, `Token ${typo}`)
    await send('a token with an extra character', 401, 'GET', orgPath, `Token ${real}x`)
    await send('a cut token', 401, 'GET', orgPath, `Token ${real.slice(0, -3)}`)
    await send('a token in lower case', 401, 'GET', orgPath, `Token ${real.toLowerCase()}`)
    await send('a token with no scheme', 401, 'GET', orgPath, real)
    await send('a token under the Bearer scheme', 401, 'GET', orgPath, `Bearer ${real}`)
    await send('Basic credentials', 401, 'GET', orgPath, `Basic ${Buffer.from(`admin:${real}`).toString('base64')}`)
    await send('a token and a bad JSON body', 400, 'POST', '/organization', tokens.admin.authorization, '{"name": ')
    await send('a token on an unknown route', 404, 'GET', `/no/such/route/${randomUUID()}`, tokens.admin.authorization)

    // Credentials where Berth never reads them: in the query string and in the path.
    const query = (pairs: Record<string, string>) => `?${new URLSearchParams(pairs)}`
    await send('a token in the query', 200, 'GET', `/organization${query({ token: real })}`, tokens.admin.authorization)
    await send('a token in the query alone', 401, 'GET', `/organization${query({ api_key: unknown })}`, undefined)
    await send('a token under an innocent key', 200, 'GET', `${orgPath}/apiToken${query({ name: real })}`, tokens.admin.authorization)
    await send('an Authorization value in the query', 401, 'GET', `/organization${query({ q: `Token ${typo}` })}`, undefined)
    await send('a token in the path', 404, 'GET', `/organization/${real}/nothing`, tokens.admin.authorization)

    // JWTs: a good one, and ones refused for their signature, expiry and audience.
    const jwt = (claims: Record<string, unknown>) =>
      new SignJWT({ name: 'Ada', ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' })
        .setIssuer(issuer.issuer)
        .setSubject(`user-${randomUUID()}`)
        .setIssuedAt()
        .sign(signingKey)
    const now = Math.floor(Date.now() / 1000)
    const good = await jwt({ aud: TEST_AUDIENCE, exp: now + 600 })
    const [header, payload, signature] = good.split('.') as [string, string, string]
    const forged = `${header}.${payload}.${signature.slice(0, -4)}${signature.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`
    const expired = await jwt({ aud: TEST_AUDIENCE, exp: now - 3600 })
    const elsewhere = await jwt({ aud: 'https://another.example.com', exp: now + 600 })
    await send('a JWT', 200, 'GET', '/organization', `Bearer ${good}`)
    await send('a JWT with a forged signature', 401, 'GET', '/organization', `Bearer ${forged}`)
    await send('an expired JWT', 401, 'GET', '/organization', `Bearer ${expired}`)
    await send('a JWT for another audience', 401, 'GET', '/organization', `Bearer ${elsewhere}`)
    await send('a JWT under the Token scheme', 401, 'GET', '/organization', `Token ${good}`)
    secrets.add(good)
    await send('a JWT in the query', 401, 'GET', `/organization${query({ access_token: good })}`, undefined)

    // Git tokens: created and edited through the API, and refused ones.
    const repository = 'acme/app'
    github.repositories.set(repository, manyBranches(3))
    bitbucket.repositories.set(repository, manyBranches(3))
    const gitSecret = (name: string) => {
      const secret = `${name}_${randomUUID().replaceAll('-', '')}`
      secrets.add(secret)
      return secret
    }
    const gitToken = async (type: 'GITHUB' | 'BITBUCKET', url: string, token: string, workspace: string | null = null) =>
      (
        await send(`creating a ${type} git token`, 201, 'POST', `${orgPath}/gitToken`, tokens.write.authorization, {
          name: `git ${randomUUID()}`,
          type,
          token,
          workspace,
          git_api_url: url,
        })
      ).body.id as string
    const accepted = gitSecret('ghp')
    github.tokens.add(accepted)
    const githubToken = await gitToken('GITHUB', github.url, gitSecret('ghp_first'))
    await send('editing a git token', 200, 'PUT', `${orgPath}/gitToken/${githubToken}`, tokens.write.authorization, {
      name: 'github',
      type: 'GITHUB',
      token: accepted,
      git_api_url: github.url,
    })
    await send('a git token refused for its fields', 400, 'POST', `${orgPath}/gitToken`, tokens.write.authorization, {
      name: 'no workspace',
      type: 'BITBUCKET',
      token: gitSecret('bb_no_workspace'),
    })
    await send('a git token too long', 400, 'POST', `${orgPath}/gitToken`, tokens.write.authorization, {
      name: 'too long',
      type: 'GITHUB',
      token: gitSecret('x'.repeat(5000)),
    })
    await send('a git token of an unknown provider', 400, 'POST', `${orgPath}/gitToken`, tokens.write.authorization, {
      name: 'unknown',
      type: 'SUBVERSION',
      token: gitSecret('svn'),
    })
    await send('a git token with a name taken', 409, 'POST', `${orgPath}/gitToken`, tokens.write.authorization, {
      name: 'GitHub',
      type: 'GITHUB',
      token: gitSecret('ghp_taken'),
    })
    await send('a git token by a READ token', 403, 'POST', `${orgPath}/gitToken`, tokens.read.authorization, {
      name: 'forbidden',
      type: 'GITHUB',
      token: gitSecret('ghp_forbidden'),
    })

    // Secret variables: created, refused, overwritten, imported, aliased, overridden and listed.
    const project = await make.project(organization.id)
    const environment = await make.environment(project.id)
    const secretValue = (label: string) => {
      const value = `var-secret-${label}-${randomUUID()}`
      secrets.add(value)
      return value
    }
    const variable = (scope: string, parentId: string, key: string, value: string) => ({
      key,
      value,
      is_secret: true,
      variable_scope: scope,
      variable_parent_id: parentId,
    })
    const created = await send(
      'a secret variable',
      201,
      'POST',
      '/variable',
      tokens.write.authorization,
      variable('PROJECT', project.id, 'DB_PASSWORD', secretValue('created')),
    )
    const secretId = (created.body as { id: string }).id
    await send(
      'a secret variable with a bad key',
      400,
      'POST',
      '/variable',
      tokens.write.authorization,
      variable('PROJECT', project.id, 'BAD-KEY', secretValue('bad-key')),
    )
    await send(
      'a secret variable with a taken key',
      409,
      'POST',
      '/variable',
      tokens.write.authorization,
      variable('PROJECT', project.id, 'DB_PASSWORD', secretValue('taken')),
    )
    await send(
      'a secret variable by a READ token',
      403,
      'POST',
      '/variable',
      tokens.read.authorization,
      variable('PROJECT', project.id, 'OTHER', secretValue('forbidden')),
    )
    await send('a secret overwritten', 200, 'PUT', `/variable/${secretId}`, tokens.write.authorization, {
      key: 'DB_PASSWORD',
      value: secretValue('overwritten'),
    })
    await send('a secret overridden', 201, 'POST', `/variable/${secretId}/override`, tokens.write.authorization, {
      value: secretValue('override'),
      override_scope: 'ENVIRONMENT',
      override_parent_id: environment.id,
    })
    await send('a secret through a per-scope API', 201, 'POST', `/environment/${environment.id}/secret`, tokens.write.authorization, {
      key: 'API_KEY',
      value: secretValue('per-scope'),
      mount_path: '/run/secrets/api-key',
    })
    await send('a secret value too large', 400, 'POST', `/environment/${environment.id}/secret`, tokens.write.authorization, {
      key: 'HUGE',
      value: secretValue('huge').padEnd(70_000, 'x'),
    })
    await send('secrets listed', 200, 'GET', `/variable?scope=ENVIRONMENT&parent_id=${environment.id}`, tokens.read.authorization)
    await send('secrets listed per scope', 200, 'GET', `/environment/${environment.id}/secret`, tokens.read.authorization)

    // Branch listings the provider answers, refuses, fails, is too slow for, or never hears of.
    const branches = (provider: 'github' | 'bitbucket', gitTokenId: string) =>
      `${orgPath}/account/${provider}/repository/branch?${new URLSearchParams({ name: repository, gitTokenId })}`
    const list = (what: string, expected: number, provider: 'github' | 'bitbucket', gitTokenId: string) =>
      send(what, expected, 'GET', branches(provider, gitTokenId), tokens.read.authorization)
    await list('a listing', 200, 'github', githubToken)
    const rejected = await gitToken('GITHUB', github.url, gitSecret('ghp_rejected'))
    await list('a listing with a token the provider rejects', 400, 'github', rejected)
    const scopeless = gitSecret('ghp_scopeless')
    github.scopelessTokens.add(scopeless)
    await list('a listing with a token lacking a scope', 400, 'github', await gitToken('GITHUB', github.url, scopeless))
    github.failWith = 500
    await list('a listing the provider fails', 502, 'github', githubToken)
    github.failWith = undefined
    github.rateLimit = { resetInSeconds: 60 }
    await list('a listing over the rate limit', 429, 'github', githubToken)
    github.rateLimit = undefined
    github.delayMs = 5_000
    await list('a listing the provider is too slow for', 504, 'github', githubToken)
    github.delayMs = 0
    const nowhere = `http://127.0.0.1:${await closedPort()}`
    await list('a listing at a provider that is not there', 502, 'github', await gitToken('GITHUB', nowhere, gitSecret('ghp_nowhere')))
    // An app password, stored as `username:secret`, goes as Basic credentials.
    const bitbucketSecret = `ada:${gitSecret('bb')}`
    secrets.add(bitbucketSecret)
    bitbucket.tokens.add(bitbucketSecret)
    await list('a Bitbucket listing', 200, 'bitbucket', await gitToken('BITBUCKET', bitbucket.url, bitbucketSecret, 'acme'))
    await list('a Bitbucket listing refused', 400, 'bitbucket', await gitToken('BITBUCKET', bitbucket.url, gitSecret('bb_rejected'), 'acme'))
    // What the providers were sent: bearer and Basic headers made from the git tokens.
    for (const request of [...github.requests, ...bitbucket.requests]) if (request.authorization) secrets.add(request.authorization)
    assert.ok(
      bitbucket.requests.some((request) => request.authorization?.startsWith('Basic ')),
      'Bitbucket was called with Basic credentials',
    )

    assert.equal(await server.stop('SIGTERM', 15_000), 0, server.logs())

    // The scan means something only if the failures were logged.
    const lines = logLines(server)
    assert.ok(lines.filter((line) => line.msg === 'incoming request').length >= answers.length, 'every request was logged')
    assert.ok(
      lines.some((line) => line.level === 50 && line.msg === 'request failed' && line.err),
      'a 5xx was logged with its error',
    )
    assert.ok(lines.some((line) => line.level === 30 && (line as { code?: string }).code === 'unauthenticated'))
    assertNoSecrets(server.logs(), secrets, 'the logs')
    for (const { what, answer } of answers) {
      assertNoSecrets(answer.text, secrets, `the answer to ${what}`)
      assertNoSecrets(JSON.stringify([...answer.headers]), secrets, `the headers of the answer to ${what}`)
    }
  })
})
