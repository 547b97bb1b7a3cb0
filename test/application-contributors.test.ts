import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'
import { type FakeKind, type FakeProvider, startFakeProvider } from './helpers/fake-git-providers.ts'

// listApplicationContributor: the authors of the application's newest commits, read at its git
// provider (loopback stand-ins of GitHub's and Bitbucket's APIs) through the git token.

const sha = (seed: string) => seed.repeat(40).slice(0, 40)

const PROVIDERS: { kind: FakeKind; type: 'GITHUB' | 'BITBUCKET'; url: string }[] = [
  { kind: 'github', type: 'GITHUB', url: 'https://github.com/acme/shop' },
  { kind: 'bitbucket', type: 'BITBUCKET', url: 'https://bitbucket.org/acme/shop' },
]

describe('application contributors at the git provider', () => {
  let t: TestApp
  const fakes = new Map<FakeKind, FakeProvider>()

  before(async () => {
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
    for (const { kind } of PROVIDERS) {
      const fake = await startFakeProvider(kind)
      fake.tokens.add(`token-${kind}`)
      fake.repositories.set('acme/shop', {
        defaultBranch: 'main',
        branches: [{ name: 'main', sha: sha('c4') }],
        commits: [
          { sha: sha('c4'), message: 'Fix', authorName: 'Ada Lovelace', authorEmail: 'ada@example.org', date: '2024-04-04T10:00:00Z' },
          { sha: sha('c3'), message: 'Docs', authorName: 'Grace Brewster Hopper', authorEmail: 'grace@example.org', date: '2024-03-03T10:00:00Z' },
          { sha: sha('c2'), message: 'Feature', authorName: 'Ada L.', authorEmail: 'ADA@example.org', date: '2024-02-02T10:00:00Z' },
          { sha: sha('c1'), message: 'First', authorName: 'Ada Lovelace', authorEmail: 'ada@example.org', date: '2024-01-01T10:00:00Z' },
        ],
      })
      fakes.set(kind, fake)
    }
  })
  after(async () => {
    await t.close()
    for (const fake of fakes.values()) await fake.close()
  })

  for (const provider of PROVIDERS) {
    it(`${provider.type}: lists each author of the branch's commits once, the most recent first, with their first and last commit`, async () => {
      const fake = fakes.get(provider.kind)!
      const f = factories(t.db)
      const { organization, environment, tokens } = await f.environmentWithTokens()
      const gitToken = await f.gitToken(organization.id, {
        type: provider.type,
        token: `token-${provider.kind}`,
        gitApiUrl: fake.url,
        ...(provider.type === 'BITBUCKET' ? { workspace: 'acme' } : {}),
      })
      const created = await t.app.inject({
        method: 'POST',
        url: `/environment/${environment.id}/application`,
        headers: { authorization: tokens.write.authorization },
        payload: {
          name: uniqueName('shop'),
          git_repository: { url: provider.url, branch: 'main', git_token_id: gitToken.id },
          healthchecks: { readiness_probe: null, liveness_probe: null },
          ports: [],
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const url = `/application/${created.json().id}/contributor`
      const listed = await t.app.inject({ method: 'GET', url, headers: { authorization: tokens.read.authorization } })
      assert.equal(listed.statusCode, 200, listed.body)
      const results = listed.json().results as Record<string, string>[]
      assert.deepEqual(
        results.map((user) => [user.first_name, user.last_name, user.email, user.created_at, user.updated_at]),
        [
          ['Ada', 'Lovelace', 'ada@example.org', '2024-01-01T10:00:00.000Z', '2024-04-04T10:00:00.000Z'],
          ['Grace', 'Brewster Hopper', 'grace@example.org', '2024-03-03T10:00:00.000Z', '2024-03-03T10:00:00.000Z'],
        ],
      )
      assert.match(results[0]!.profile_picture_url!, /\/avatars\//)
      // The same address is the same contributor in every listing.
      const again = (await t.app.inject({ method: 'GET', url, headers: { authorization: tokens.read.authorization } })).json()
      assert.deepEqual(
        again.results.map((user: { id: string }) => user.id),
        results.map((user) => user.id),
      )
      assert.notEqual(results[0]!.id, results[1]!.id)
    })
  }

  it('is 404 for an application of another organization', async () => {
    const f = factories(t.db)
    const { tokens } = await f.environmentWithTokens()
    const other = await f.environmentWithTokens()
    const job = await f.job(other.environment.id)
    assertError(
      await t.app.inject({ method: 'GET', url: `/application/${job.id}/contributor`, headers: { authorization: tokens.read.authorization } }),
      404,
      'not_found',
    )
  })
})
