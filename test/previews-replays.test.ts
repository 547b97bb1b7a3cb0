/**
 * Issue 42, items 4 and 8: pull request deliveries replayed under new delivery ids (the header is
 * not signed) change nothing: an old `opened` after `synchronize`, an `opened` after the close, a
 * `closed` after a reopen. An event older than the last one applied to its pull request changes
 * nothing either. A pull request's link is kept only when it is an https URL of the provider's host,
 * and a head branch git would read as an option is refused at receipt.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type Provider, type PullRequestFields, pullRequestEvent, pullRequestPayload, signedHeaders } from './helpers/git-webhook-deliveries.ts'

const sha = () => randomUUID().replaceAll('-', '').padEnd(40, '0').slice(0, 40)

const REPOSITORY_URL: Record<Provider, (fullName: string) => string> = {
  github: (fullName) => `https://github.com/${fullName}.git`,
  gitlab: (fullName) => `https://gitlab.com/${fullName}.git`,
  bitbucket: (fullName) => `https://bitbucket.org/${fullName}.git`,
}

/** Whole seconds apart: GitLab writes its times to the second. */
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, second)).toISOString()

describe('pull request replays (issue 42)', () => {
  let t: DeploymentsTestApp
  let calls: DeploymentCalls
  let f: ReturnType<typeof factories>

  before(async () => {
    t = await createDeploymentsApp(0)
    calls = deploymentCalls(t.app)
    f = factories(t.db)
  })
  after(async () => t?.close())

  async function world(provider: Provider) {
    const w = await f.environmentWithTokens({ autoPreview: true })
    const made = await calls.inject('POST', `/organization/${w.organization.id}/gitWebhookSecret`, w.tokens.admin.authorization)
    assert.equal(made.statusCode, 201, made.body)
    const fullName = provider === 'gitlab' ? `Group-${randomUUID().slice(0, 6)}/Site` : `Acme-${randomUUID().slice(0, 6)}/Site`
    await f.helmService(w.environment.id, {
      name: 'chart',
      auto_deploy: true,
      source: { git_repository: { url: REPOSITORY_URL[provider](fullName), branch: 'main', root_path: '/chart' } },
    })
    return { ...w, secret: made.json().secret as string, fullName }
  }

  type World = Awaited<ReturnType<typeof world>>

  /** A signed delivery of `pr`, under a new delivery id each time (as a replay sends it). */
  async function deliver(provider: Provider, w: World, pr: PullRequestFields) {
    const body = JSON.stringify(pullRequestPayload(provider, w.fullName, pr))
    return t.app.inject({
      method: 'POST',
      url: `/organization/${w.organization.id}/gitWebhook/${provider}`,
      headers: signedHeaders(provider, body, w.secret, randomUUID(), pullRequestEvent(provider, pr)),
      payload: body,
    })
  }

  async function outcomeOf(provider: Provider, w: World, pr: PullRequestFields): Promise<string> {
    const res = await deliver(provider, w, pr)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().outcome
  }

  const previewsOf = (w: World) => t.db.selectFrom('previewEnvironments').selectAll().where('sourceEnvironmentId', '=', w.environment.id).execute()
  const runsOf = (organizationId: string) =>
    t.db.selectFrom('deploymentRequests').select(['id', 'environmentId']).where('organizationId', '=', organizationId).execute()

  for (const provider of ['github', 'gitlab', 'bitbucket'] as const) {
    it(`${provider}: replayed and older events change nothing; a close, reopen and close again at one head each apply`, async () => {
      const w = await world(provider)
      const first = sha()
      const second = sha()
      const opened: PullRequestFields = {
        number: 12,
        action: 'opened',
        base: 'main',
        head: 'feature/replay',
        sha: first,
        title: 'Replay me',
        author: 'octocat',
        updatedAt: at(1),
      }
      const synchronized: PullRequestFields = { ...opened, action: 'synchronize', sha: second, updatedAt: at(2) }
      assert.equal(await outcomeOf(provider, w, opened), 'DEPLOYED')
      assert.equal(await outcomeOf(provider, w, synchronized), 'DEPLOYED')
      const head = provider === 'bitbucket' ? second.slice(0, 12) : second
      assert.equal((await previewsOf(w))[0]?.headCommit, head)
      const runsBefore = (await runsOf(w.organization.id)).length

      // The old `opened`, replayed under a new id: the preview stays at the newer commit, nothing is queued.
      assert.equal(await outcomeOf(provider, w, opened), 'REPLAYED')
      // An event older than the last applied, which no earlier delivery carried (another head), changes nothing either.
      assert.equal(await outcomeOf(provider, w, { ...opened, action: 'synchronize', sha: sha(), updatedAt: at(1) }), 'REPLAYED')
      assert.equal((await previewsOf(w))[0]?.headCommit, head)
      assert.equal((await runsOf(w.organization.id)).length, runsBefore)

      // Closed: the preview goes. The `opened` replayed after it makes none.
      const closed: PullRequestFields = { ...synchronized, action: 'closed', updatedAt: at(3) }
      assert.equal(await outcomeOf(provider, w, closed), 'DELETED')
      assert.equal(await outcomeOf(provider, w, opened), 'REPLAYED')
      assert.equal(await outcomeOf(provider, w, synchronized), 'REPLAYED')
      assert.deepEqual(await previewsOf(w), [])
      assert.equal((await runsOf(w.organization.id)).filter((run) => run.environmentId !== w.environment.id).length, runsBefore + 1)

      // Reopened at the same head: a new preview. The `closed` replayed after it leaves it alone.
      assert.equal(await outcomeOf(provider, w, { ...synchronized, action: 'reopened', updatedAt: at(4) }), 'DEPLOYED')
      const [reopened] = await previewsOf(w)
      assert.ok(reopened?.environmentId)
      assert.equal(await outcomeOf(provider, w, closed), 'REPLAYED')
      const [kept] = await previewsOf(w)
      assert.equal(kept?.id, reopened.id, 'the replayed close deleted the live preview')

      // Closed again at the same head, later: that one is a new event and applies.
      assert.equal(await outcomeOf(provider, w, { ...closed, updatedAt: at(5) }), 'DELETED')
      assert.deepEqual(await previewsOf(w), [])
    })
  }

  it("keeps a pull request's link only when it is an https page of the provider's host", async () => {
    const w = await world('github')
    const base: PullRequestFields = { number: 3, action: 'opened', base: 'main', head: 'feature/link', sha: sha(), title: 'Links', author: 'octocat' }
    assert.equal(await outcomeOf('github', w, { ...base, url: 'javascript:alert(document.domain)//github.com' }), 'DEPLOYED')
    assert.equal((await previewsOf(w))[0]?.url, null)
    for (const url of [
      'https://evil.example/pull/3',
      'http://github.com/a/b/pull/3',
      'https://github.com.evil.example/pull/3',
      'https://user@github.com/pull/3',
    ]) {
      const res = await deliver('github', w, { ...base, action: 'synchronize', sha: sha(), url })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal((await previewsOf(w))[0]?.url, null, url)
    }
    const good = `https://github.com/${w.fullName}/pull/3`
    assert.equal(await outcomeOf('github', w, { ...base, action: 'synchronize', sha: sha(), url: good }), 'DEPLOYED')
    assert.equal((await previewsOf(w))[0]?.url, good)
    // A link stored before links were checked is not answered as one.
    await t.db.updateTable('previewEnvironments').set({ url: 'javascript:alert(1)' }).where('sourceEnvironmentId', '=', w.environment.id).execute()
    const listed = await calls.inject('GET', `/environment/${w.environment.id}/previews`, w.tokens.read.authorization)
    assert.equal(listed.statusCode, 200, listed.body)
    assert.equal(listed.json().results[0].pull_request.url, null)
  })

  for (const provider of ['github', 'gitlab', 'bitbucket'] as const) {
    it(`${provider}: refuses a head branch git would read as an option, at receipt, making nothing`, async () => {
      const w = await world(provider)
      for (const head of ['--upload-pack=touch /tmp/pwned', '-b', 'a..b', 'feature/ok;rm']) {
        const res = await deliver(provider, w, { number: 4, action: 'opened', base: 'main', head, sha: sha(), title: 'Evil', author: 'mallory' })
        assert.equal(res.statusCode, 400, res.body)
        const body = res.json()
        assert.equal(body.code, 'validation_failed', res.body)
        assert.ok(
          body.errors.some((detail: { path: string }) => /head\/ref|source_branch|source\/branch\/name/.test(detail.path)),
          res.body,
        )
      }
      assert.deepEqual(await previewsOf(w), [])
      assert.deepEqual(await runsOf(w.organization.id), [])
    })
  }
})
