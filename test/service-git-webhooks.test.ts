import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'
import { type FakeKind, type FakeProvider, startFakeProvider } from './helpers/fake-git-providers.ts'

// getServiceGitWebhookStatus and syncServiceGitWebhook against loopback stand-ins of GitHub's,
// GitLab's and Bitbucket's hooks APIs: whether the repository has Berth's webhook, and putting it there.

const PUBLIC_URL = 'https://berth.example.com'

const PROVIDERS: { kind: FakeKind; type: 'GITHUB' | 'GITLAB' | 'BITBUCKET'; url: string; path: string; events: string[] }[] = [
  { kind: 'github', type: 'GITHUB', url: 'https://github.com/acme/shop', path: 'acme/shop', events: ['push', 'pull_request'] },
  {
    kind: 'gitlab',
    type: 'GITLAB',
    url: 'https://gitlab.com/acme/team/shop',
    path: 'acme/team/shop',
    events: ['push_events', 'merge_requests_events'],
  },
  {
    kind: 'bitbucket',
    type: 'BITBUCKET',
    url: 'https://bitbucket.org/acme/shop',
    path: 'acme/shop',
    events: ['repo:push', 'pullrequest:created', 'pullrequest:updated', 'pullrequest:fulfilled', 'pullrequest:rejected'],
  },
]

describe("Berth's webhook at the git provider of a service's repository", () => {
  let t: TestApp
  const fakes = new Map<FakeKind, FakeProvider>()

  before(async () => {
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true', BERTH_PUBLIC_URL: PUBLIC_URL })
    for (const { kind } of PROVIDERS) {
      const fake = await startFakeProvider(kind)
      fake.tokens.add(`token-${kind}`)
      fake.tokens.add(`reader-${kind}`)
      fake.readOnlyTokens.add(`reader-${kind}`)
      fakes.set(kind, fake)
    }
  })
  after(async () => {
    await t.close()
    for (const fake of fakes.values()) await fake.close()
  })

  const inject = (method: 'GET' | 'POST', url: string, authorization: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) })

  for (const provider of PROVIDERS) {
    it(`${provider.type}: tells NOT_CONFIGURED, creates the webhook with the secret and events, tells MISCONFIGURED and corrects it`, async () => {
      const fake = fakes.get(provider.kind)!
      fake.repositories.set(provider.path, { defaultBranch: 'main', branches: [{ name: 'main', sha: 'a'.repeat(40) }], hooks: [] })
      const f = factories(t.db)
      const { organization, environment, tokens } = await f.environmentWithTokens()
      const workspace = provider.type === 'BITBUCKET' ? { workspace: 'acme' } : {}
      const gitToken = await f.gitToken(organization.id, { type: provider.type, token: `token-${provider.kind}`, gitApiUrl: fake.url, ...workspace })
      const created = await inject('POST', `/environment/${environment.id}/application`, tokens.write.authorization, {
        name: uniqueName('shop'),
        git_repository: { url: provider.url, branch: 'main', git_token_id: gitToken.id },
        healthchecks: { readiness_probe: null, liveness_probe: null },
        ports: [],
      })
      assert.equal(created.statusCode, 201, created.body)
      const serviceId = created.json().id as string
      const status = () => inject('GET', `/service/${serviceId}/gitWebhookStatus`, tokens.read.authorization)

      assert.deepEqual((await status()).json(), { status: 'NOT_CONFIGURED', provider: provider.type })
      // Without the organization's secret there is nothing to sign deliveries with.
      assertError(await inject('POST', `/service/${serviceId}/gitWebhook/sync`, tokens.write.authorization), 422, 'client_error')
      const secret = (await inject('POST', `/organization/${organization.id}/gitWebhookSecret`, tokens.admin.authorization)).json().secret as string
      assertError(await inject('POST', `/service/${serviceId}/gitWebhook/sync`, tokens.deploy.authorization), 403, 'forbidden')

      const synced = await inject('POST', `/service/${serviceId}/gitWebhook/sync`, tokens.write.authorization)
      assert.equal(synced.statusCode, 200, synced.body)
      assert.deepEqual(synced.json(), { status: 'ACTIVE', provider: provider.type })
      const hooks = fake.repositories.get(provider.path)!.hooks!
      assert.equal(hooks.length, 1)
      assert.equal(hooks[0]!.url, `${PUBLIC_URL}/organization/${organization.id}/gitWebhook/${provider.kind}`)
      assert.equal(hooks[0]!.secret, secret)
      assert.deepEqual([...hooks[0]!.events].sort(), [...provider.events].sort())
      assert.deepEqual((await status()).json(), { status: 'ACTIVE', provider: provider.type })

      // Someone removed an event at the provider: MISCONFIGURED, naming it; a sync puts it back, on the same webhook.
      hooks[0]!.events = provider.events.slice(0, 1)
      assert.deepEqual((await status()).json(), { status: 'MISCONFIGURED', provider: provider.type, missing_events: provider.events.slice(1) })
      // A rotated secret reaches the provider on the next sync.
      const rotated = (await inject('POST', `/organization/${organization.id}/gitWebhookSecret`, tokens.admin.authorization)).json().secret as string
      assert.deepEqual((await inject('POST', `/service/${serviceId}/gitWebhook/sync`, tokens.write.authorization)).json(), {
        status: 'ACTIVE',
        provider: provider.type,
      })
      assert.equal(hooks.length, 1)
      assert.equal(hooks[0]!.secret, rotated)

      // A token that may not administer the repository's webhooks: 422; one the provider refuses: UNABLE_TO_VERIFY.
      fake.tokens.delete(`token-${provider.kind}`)
      try {
        assert.deepEqual((await status()).json(), { status: 'UNABLE_TO_VERIFY', provider: provider.type })
      } finally {
        fake.tokens.add(`token-${provider.kind}`)
      }
      const reader = await f.gitToken(organization.id, { type: provider.type, token: `reader-${provider.kind}`, gitApiUrl: fake.url, ...workspace })
      const readOnly = await inject('POST', `/environment/${environment.id}/application`, tokens.write.authorization, {
        name: uniqueName('shop'),
        git_repository: { url: provider.url, branch: 'main', git_token_id: reader.id },
        healthchecks: { readiness_probe: null, liveness_probe: null },
        ports: [],
      })
      assertError(await inject('POST', `/service/${readOnly.json().id}/gitWebhook/sync`, tokens.write.authorization), 422, 'client_error')
    })
  }

  it('is 400 for a service that does not build from git, and 404 across organizations', async () => {
    const f = factories(t.db)
    const { environment, tokens } = await f.environmentWithTokens()
    const container = await f.containerService(environment.id)
    assertError(await inject('GET', `/service/${container.id}/gitWebhookStatus`, tokens.read.authorization), 400, 'bad_request')
    const other = await f.environmentWithTokens()
    const theirs = await f.containerService(other.environment.id)
    assertError(await inject('GET', `/service/${theirs.id}/gitWebhookStatus`, tokens.read.authorization), 404, 'not_found')
  })
})
