import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, afterEach, before, describe, it } from 'node:test'
import { Configuration, OrganizationAccountGitRepositoriesApi } from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'
import { type FakeKind, type FakeProvider, manyBranches, startFakeProvider } from './helpers/fake-git-providers.ts'

// The reference's "Organization Account Git Repositories" listings of repositories and accounts,
// against loopback fakes of GitHub, GitLab and Bitbucket, through the official client.

const TYPE = { github: 'GITHUB', gitlab: 'GITLAB', bitbucket: 'BITBUCKET' } as const
const KINDS: FakeKind[] = ['github', 'gitlab', 'bitbucket']
/** More than one provider page (100) of repositories. */
const COUNT = 130

describe('repository listings at GitHub, GitLab and Bitbucket', () => {
  let t: TestApp
  let basePath: string
  const fakes = {} as Record<FakeKind, FakeProvider>
  const secrets = {} as Record<FakeKind, string>
  let world: Awaited<ReturnType<ReturnType<typeof factories>['organizationWithTokens']>>
  const gitTokens = {} as Record<FakeKind, { id: string }>

  before(async () => {
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true', BERTH_GIT_TIMEOUT_MS: '1500' })
    basePath = await t.listen()
    const f = factories(t.db)
    world = await f.organizationWithTokens()
    for (const kind of KINDS) {
      const fake = await startFakeProvider(kind)
      fakes[kind] = fake
      secrets[kind] = `${kind}-${randomUUID()}`
      fake.tokens.add(secrets[kind])
      const owner = kind === 'gitlab' ? 'acme/platform' : 'acme'
      for (let i = 0; i < COUNT; i++) fake.repositories.set(`${owner}/service-${String(i).padStart(3, '0')}`, manyBranches(2))
      // Another workspace's: the Bitbucket token lists its own workspace's only.
      if (kind === 'bitbucket') fake.repositories.set('elsewhere/other', manyBranches(1))
      gitTokens[kind] = await f.gitToken(world.organization.id, {
        type: TYPE[kind],
        name: `${kind} token`,
        token: secrets[kind],
        gitApiUrl: fake.url,
        workspace: kind === 'bitbucket' ? 'acme' : null,
      })
    }
  })
  after(async () => {
    await t?.close()
    for (const fake of Object.values(fakes)) await fake.close()
  })
  afterEach(() => {
    for (const fake of Object.values(fakes)) Object.assign(fake, { rateLimit: undefined, delayMs: 0, failWith: undefined })
  })

  const client = (authorization = world.tokens.read.authorization) =>
    new OrganizationAccountGitRepositoriesApi(new Configuration({ basePath, apiKey: authorization }))
  const list = (kind: FakeKind, query = '', authorization = world.tokens.read.authorization, organizationId = world.organization.id) =>
    t.app.inject({ method: 'GET', url: `/organization/${organizationId}/account/${kind}/repository${query}`, headers: { authorization } })

  it("lists every repository each provider's git token sees, through the official client, past the provider's first page", async () => {
    const api = client()
    const answers = {
      github: await api.getOrganizationGithubRepositories(world.organization.id, gitTokens.github.id),
      gitlab: await api.getOrganizationGitlabRepositories(world.organization.id),
      bitbucket: await api.getOrganizationBitbucketRepositories(world.organization.id),
    }
    for (const kind of KINDS) {
      const { status, data } = answers[kind]
      assert.equal(status, 200)
      const results = data.results ?? []
      assert.equal(results.length, COUNT, `${kind}: every repository once, the other workspace's left out`)
      const first = results.find((repository) => repository.name.endsWith('/service-000'))!
      const path = kind === 'gitlab' ? 'acme/platform/service-000' : 'acme/service-000'
      assert.deepEqual(
        { name: first.name, url: first.url, default_branch: first.default_branch, is_private: first.is_private },
        { name: path, url: `${fakes[kind].url}/${path}`, default_branch: 'main', is_private: true },
      )
      assert.equal(typeof first.id, 'string')
    }
    // Each followed the provider's pages with the git token's credential.
    assert.ok(fakes.github.requests.filter((r) => r.path.endsWith('/user/repos')).length >= 2)
    assert.ok(fakes.bitbucket.requests.some((r) => r.path === '/2.0/repositories/acme'))
  })

  it("names the organization's git tokens as its accounts", async () => {
    const { status, data } = await client().getOrganizationGitProviderAccount(world.organization.id)
    assert.equal(status, 200)
    const byId = new Map((data.results ?? []).map((account) => [account.id, account]))
    assert.deepEqual(byId.get(gitTokens.github.id), { id: gitTokens.github.id, name: 'GITHUB', owner: 'github token', use_bot: false })
    assert.deepEqual(byId.get(gitTokens.bitbucket.id), { id: gitTokens.bitbucket.id, name: 'BITBUCKET', owner: 'acme', use_bot: false })
  })

  /** An organization with a git token of `kind` the fake accepts: listings are cached per token, so each case gets its own. */
  async function freshToken(kind: FakeKind) {
    const f = factories(t.db)
    const fresh = await f.organizationWithTokens()
    await f.gitToken(fresh.organization.id, {
      type: TYPE[kind],
      token: secrets[kind],
      gitApiUrl: fakes[kind].url,
      workspace: kind === 'bitbucket' ? 'acme' : null,
    })
    return (query = '') => list(kind, query, fresh.tokens.read.authorization, fresh.organization.id)
  }

  it("maps the provider's refusals and the deadline to distinct errors", async () => {
    const github = await freshToken('github')
    fakes.github.rateLimit = { resetInSeconds: 30, retryAfter: 30 }
    const limited = await github()
    assertError(limited, 429, 'rate_limited')
    assert.equal(limited.headers['retry-after'], '30')
    fakes.github.rateLimit = undefined
    assert.equal((await github()).statusCode, 200, 'a failed listing is not kept')

    fakes.gitlab.failWith = 500
    assertError(await (await freshToken('gitlab'))(), 502, 'bad_gateway')

    fakes.bitbucket.delayMs = 5000
    assertError(await (await freshToken('bitbucket'))(), 504, 'gateway_timeout')
  })

  it('refuses a git token of another provider, of another organization, and an organization the caller is not in', async () => {
    const wrong = await list('gitlab', `?gitTokenId=${gitTokens.github.id}`)
    assertError(wrong, 400, 'validation_failed')
    assert.match(wrong.json().errors[0].message, /GITHUB git token; this lists GITLAB repositories/)

    const f = factories(t.db)
    const other = await f.organizationWithTokens()
    const theirs = await f.gitToken(other.organization.id, { type: 'GITHUB', token: 'x', gitApiUrl: fakes.github.url })
    assertError(await list('github', `?gitTokenId=${theirs.id}`), 404, 'not_found')
    assertError(await list('github', '', other.tokens.read.authorization), 404, 'not_found')
    // An organization without a token of the provider says to create one.
    const none = await list('gitlab', '', other.tokens.read.authorization, other.organization.id)
    assertError(none, 400, 'validation_failed')
    assert.match(none.json().errors[0].message, /no GITLAB git token/)
  })

  it('refuses a git token the provider does not accept', async () => {
    const f = factories(t.db)
    const stranger = await f.organizationWithTokens()
    await f.gitToken(stranger.organization.id, { type: 'GITHUB', token: 'not-accepted', gitApiUrl: fakes.github.url })
    assertError(await list('github', '', stranger.tokens.read.authorization, stranger.organization.id), 400, 'git_token_invalid')
  })
})
