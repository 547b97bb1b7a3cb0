import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { assertError } from './helpers/assertions.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls, isFinished } from './helpers/deployments.ts'
import { factories, uniqueName } from './helpers/factories.ts'
import { type FakeKind, type FakeProvider, type FakeRepository, startFakeProvider } from './helpers/fake-git-providers.ts'
import { pushPayload, signedHeaders } from './helpers/git-webhook-deliveries.ts'

// The commit a deployment builds is the provider's: looked up at GitHub, GitLab and Bitbucket
// (loopback fakes that follow their APIs) when the deployment is queued, and shown in its history.

const sha = (seed: string) => seed.repeat(40).slice(0, 40)
const HEAD = sha('c3')
const TAGGED = sha('b2')
const OLDEST = sha('a1')

const repository = (): FakeRepository => ({
  defaultBranch: 'main',
  branches: [
    { name: 'main', sha: HEAD },
    { name: 'feature/x', sha: OLDEST },
  ],
  commits: [
    { sha: HEAD, message: 'Ship the new API\n\nWith a body.', authorName: 'Ada Lovelace', date: '2024-03-03T10:00:00Z' },
    { sha: TAGGED, message: 'Release 1.0', authorName: 'Grace Hopper', date: '2024-02-02T09:00:00Z' },
    { sha: OLDEST, message: 'First commit', authorName: 'Alan Turing', date: '2024-01-01T08:00:00Z' },
  ],
  tags: [{ name: 'v1.0', sha: TAGGED }],
})

const PROVIDERS: { kind: FakeKind; type: 'GITHUB' | 'GITLAB' | 'BITBUCKET'; url: string; path: string }[] = [
  { kind: 'github', type: 'GITHUB', url: 'https://github.com/acme/shop', path: 'acme/shop' },
  { kind: 'gitlab', type: 'GITLAB', url: 'https://gitlab.com/acme/team/shop', path: 'acme/team/shop' },
  { kind: 'bitbucket', type: 'BITBUCKET', url: 'https://bitbucket.org/acme/shop', path: 'acme/shop' },
]

const healthchecks = { readiness_probe: null, liveness_probe: null }

describe('application commits at the git providers', () => {
  let t: DeploymentsTestApp
  let calls: DeploymentCalls
  const fakes = new Map<FakeKind, FakeProvider>()

  before(async () => {
    t = await createDeploymentsApp(5, { BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
    calls = deploymentCalls(t.app)
    for (const { kind, path } of PROVIDERS) {
      const fake = await startFakeProvider(kind)
      fake.repositories.set(path, repository())
      fake.tokens.add(`token-${kind}`)
      fakes.set(kind, fake)
    }
  })
  after(async () => {
    await t.close()
    for (const fake of fakes.values()) await fake.close()
  })

  for (const provider of PROVIDERS) {
    it(`${provider.type}: deploys the branch head or the named commit, as the provider describes it, and refuses an unknown commit`, async () => {
      const fake = fakes.get(provider.kind)!
      const f = factories(t.db)
      const { organization, environment, tokens } = await f.environmentWithTokens()
      const auth = tokens.deploy.authorization
      const gitToken = await f.gitToken(organization.id, {
        type: provider.type,
        token: `token-${provider.kind}`,
        gitApiUrl: fake.url,
        ...(provider.type === 'BITBUCKET' ? { workspace: 'acme' } : {}),
      })
      const created = await calls.inject('POST', `/environment/${environment.id}/application`, tokens.write.authorization, {
        name: uniqueName('shop'),
        git_repository: { url: provider.url, branch: 'main', git_token_id: gitToken.id },
        healthchecks,
        ports: [{ internal_port: 8080, publicly_accessible: true }],
      })
      assert.equal(created.statusCode, 201, created.body)
      const app = created.json()
      assert.equal(app.git_repository.deployed_commit_id, undefined)

      // The branch's head when the deployment is queued.
      const first = await calls.trigger(`/application/${app.id}/deploy`, auth, {})
      // A chosen commit (a tag points at it).
      const second = await calls.trigger(`/application/${app.id}/deploy`, auth, { git_commit_id: TAGGED })
      await calls.waitUntilIdle(environment.id, auth)

      const history = await calls.inject('GET', `/application/${app.id}/deploymentHistoryV2`, auth)
      assert.equal(history.statusCode, 200, history.body)
      const [newest, oldest] = history.json().results
      assert.equal(oldest.identifier.execution_id, first.execution_id)
      assert.equal(newest.identifier.execution_id, second.execution_id)
      assert.deepEqual(
        { ...oldest.details.commit, author_avatar_url: undefined, commit_page_url: undefined },
        {
          git_commit_id: HEAD,
          created_at: '2024-03-03T10:00:00.000Z',
          author_name: 'Ada Lovelace',
          message: 'Ship the new API\n\nWith a body.',
          tag: '',
          author_avatar_url: undefined,
          commit_page_url: undefined,
        },
      )
      assert.equal(oldest.details.build_pod_name, `build-${first.execution_id}-0`)
      assert.equal(newest.details.commit.git_commit_id, TAGGED)
      assert.equal(newest.details.commit.author_name, 'Grace Hopper')
      assert.equal(newest.details.commit.message, 'Release 1.0')
      assert.equal(newest.details.commit.tag, 'v1.0')
      assert.equal(newest.details.build_pod_name, `build-${second.execution_id}-0`)

      // The response names what the last successful deploy built.
      const read = (await calls.inject('GET', `/application/${app.id}`, auth)).json()
      assert.equal(read.git_repository.deployed_commit_id, TAGGED)
      assert.equal(read.git_repository.deployed_commit_contributor, 'Grace Hopper')
      assert.equal(read.git_repository.deployed_commit_tag, 'v1.0')
      assert.equal(read.git_repository.deployed_commit_date, '2024-02-02T09:00:00.000Z')

      // A redeploy builds nothing new: its history names the deployed commit.
      await calls.trigger(`/application/${app.id}/redeploy`, auth)
      const afterRedeploy = await calls.waitUntilIdle(environment.id, auth)
      assert.equal(afterRedeploy[0]!.stages[0]!.services[0]!.details.commit.git_commit_id, TAGGED)

      // An unknown commit: a 400 at the field, and nothing queued.
      const before = (await calls.entries(environment.id, auth)).length
      const unknown = await calls.inject('POST', `/application/${app.id}/deploy`, auth, { git_commit_id: sha('ff') })
      const body = assertError(unknown, 400, 'validation_failed')
      assert.deepEqual(
        body.errors?.map((error) => error.path),
        ['/git_commit_id'],
      )
      // The same in a bulk deploy, at the item's field.
      const bulk = await calls.inject('POST', `/environment/${environment.id}/service/deploy`, auth, {
        applications: [{ application_id: app.id, git_commit_id: 'no-such-branch' }],
      })
      assert.deepEqual(
        assertError(bulk, 400, 'validation_failed').errors?.map((error) => error.path),
        ['/applications/0/git_commit_id'],
      )
      assert.equal((await calls.entries(environment.id, auth)).length, before)

      // The provider failing: the trigger answers its error, and nothing is queued.
      fake.failWith = 500
      try {
        assertError(await calls.inject('POST', `/application/${app.id}/deploy`, auth, {}), 502, 'bad_gateway')
      } finally {
        fake.failWith = undefined
      }
      assert.equal((await calls.entries(environment.id, auth)).length, before)

      // The branch's recent commits, newest first, with their tags.
      const listed = await calls.inject('GET', `/application/${app.id}/commit`, tokens.read.authorization)
      assert.equal(listed.statusCode, 200, listed.body)
      assert.deepEqual(
        listed
          .json()
          .results.map((commit: { git_commit_id: string; tag: string; author_name: string }) => [
            commit.git_commit_id,
            commit.tag,
            commit.author_name,
          ]),
        [
          [HEAD, '', 'Ada Lovelace'],
          [TAGGED, 'v1.0', 'Grace Hopper'],
          [OLDEST, '', 'Alan Turing'],
        ],
      )
      const fromCommit = await calls.inject('GET', `/application/${app.id}/commit?gitCommitId=${TAGGED}`, tokens.read.authorization)
      assert.deepEqual(
        fromCommit.json().results.map((commit: { git_commit_id: string }) => commit.git_commit_id),
        [TAGGED, OLDEST],
      )
      const unknownStart = await calls.inject('GET', `/application/${app.id}/commit?gitCommitId=nope`, tokens.read.authorization)
      assert.deepEqual(
        assertError(unknownStart, 400, 'validation_failed').errors?.map((error) => [error.path, error.location]),
        [['/gitCommitId', 'query']],
      )
      // Every call carried the git token, and only to the fake.
      assert.ok(fake.requests.length > 0)
    })
  }

  for (const provider of PROVIDERS) {
    it(`${provider.type}: a signed push deploys exactly the auto_deploy applications following that branch, with origin GIT, the pusher and the provider's commit`, async () => {
      const fake = fakes.get(provider.kind)!
      const f = factories(t.db)
      const { organization, environment, tokens } = await f.environmentWithTokens()
      const auth = tokens.deploy.authorization
      const secret = await calls.inject('POST', `/organization/${organization.id}/gitWebhookSecret`, tokens.admin.authorization)
      assert.equal(secret.statusCode, 201, secret.body)
      const gitToken = await f.gitToken(organization.id, {
        type: provider.type,
        token: `token-${provider.kind}`,
        gitApiUrl: fake.url,
        ...(provider.type === 'BITBUCKET' ? { workspace: 'acme' } : {}),
      })
      const application = async (branch: string, autoDeploy: boolean) => {
        const created = await calls.inject('POST', `/environment/${environment.id}/application`, tokens.write.authorization, {
          name: uniqueName('shop'),
          git_repository: { url: provider.url, branch, git_token_id: gitToken.id },
          auto_deploy: autoDeploy,
          healthchecks,
          ports: [{ internal_port: 8080, publicly_accessible: true }],
        })
        assert.equal(created.statusCode, 201, created.body)
        return created.json().id as string
      }
      const follows = await application('main', true)
      await application('main', false)
      await application('feature/x', true)

      const body = JSON.stringify(pushPayload(provider.kind, provider.path, 'main', TAGGED, 'octocat'))
      const delivered = await t.app.inject({
        method: 'POST',
        url: `/organization/${organization.id}/gitWebhook/${provider.kind}`,
        headers: signedHeaders(provider.kind, body, secret.json().secret, randomUUID()),
        payload: body,
      })
      assert.equal(delivered.statusCode, 200, delivered.body)
      assert.equal(delivered.json().outcome, 'DEPLOYED')

      const [entry, ...older] = await calls.waitUntilIdle(environment.id, auth)
      assert.equal(older.length, 0)
      assert.equal(entry!.auditing_data.origin, 'GIT')
      assert.equal(entry!.auditing_data.triggered_by, 'octocat')
      const services = entry!.stages.flatMap((stage) => stage.services)
      assert.deepEqual(
        services.map((service) => service.identifier.service_id),
        [follows],
      )
      assert.equal(services[0]!.details.commit.git_commit_id, TAGGED)
      assert.equal(services[0]!.details.commit.author_name, 'Grace Hopper')
      assert.equal(services[0]!.details.commit.tag, 'v1.0')
    })
  }

  it('deploys the head of the branch at the trigger, not a cached one', async () => {
    const fake = fakes.get('github')!
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const auth = tokens.deploy.authorization
    fake.repositories.set('acme/moving', repository())
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token: 'token-github', gitApiUrl: fake.url })
    const app = (
      await calls.inject('POST', `/environment/${environment.id}/application`, tokens.write.authorization, {
        name: uniqueName('moving'),
        git_repository: { url: 'https://github.com/acme/moving', branch: 'main', git_token_id: gitToken.id },
        healthchecks,
      })
    ).json()
    await calls.trigger(`/application/${app.id}/deploy`, auth, {})
    // A push moves the branch.
    const moved = fake.repositories.get('acme/moving')!
    moved.branches[0] = { name: 'main', sha: OLDEST }
    await calls.trigger(`/application/${app.id}/deploy`, auth, {})
    const entries = await calls.waitForEntries(environment.id, auth, (list) => list.length === 2 && list.every(isFinished))
    assert.deepEqual(
      entries.map((entry) => entry.stages[0]!.services[0]!.details.commit.git_commit_id),
      [OLDEST, HEAD],
    )
  })
  it("refuses an environment's deploy whose application follows a branch the provider does not know, naming the application", async () => {
    const fake = fakes.get('github')!
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token: 'token-github', gitApiUrl: fake.url })
    const name = uniqueName('lost')
    const created = await calls.inject('POST', `/environment/${environment.id}/application`, tokens.write.authorization, {
      name,
      git_repository: { url: 'https://github.com/acme/shop', branch: 'gone', git_token_id: gitToken.id },
      healthchecks,
    })
    assert.equal(created.statusCode, 201, created.body)
    const refused = assertError(await calls.inject('POST', `/environment/${environment.id}/deploy`, tokens.deploy.authorization), 400, 'bad_request')
    assert.match(refused.message, new RegExp(`application "${name}"`))
    assert.equal(refused.errors, undefined)
    assert.deepEqual(await calls.entries(environment.id, tokens.deploy.authorization), [])
  })
})
