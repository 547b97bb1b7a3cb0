/**
 * Issue 36: a pull request's preview, built and run by the real Docker engine. The repository is
 * served on loopback by git's smart HTTP (test/helpers/git-server.ts), its commits looked up at a
 * fake GitHub; GitHub's signed pull_request deliveries open the pull request (a PREVIEW clone whose
 * application builds the head commit and serves it), push to it (redeployed at the new commit),
 * replay a delivery (nothing new), and close it (the preview environment and its containers gone).
 * The source environment itself is never deployed.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { type DeploymentCalls, type DeploymentsTestApp, until } from './helpers/deployments.ts'
import { busyboxImage } from './helpers/docker.ts'
import { fetchText, serviceInstances } from './helpers/docker-world.ts'
import { factories } from './helpers/factories.ts'
import type { FakeProvider, FakeRepository } from './helpers/fake-git-providers.ts'
import { type GitBuildWorld, SITE_DOCKERFILE, SITE_SERVE, startGitBuildWorld } from './helpers/git-build-world.ts'
import type { LoopbackGitServer } from './helpers/git-server.ts'
import { type PullRequestFields, pullRequestEvent, pullRequestPayload, signedHeaders } from './helpers/git-webhook-deliveries.ts'

let t: DeploymentsTestApp
let calls: DeploymentCalls
let git: LoopbackGitServer
let github: FakeProvider
const environments: string[] = []
const services: string[] = []
const fakeRepository: FakeRepository = { defaultBranch: 'main', branches: [], commits: [] }

let builds: GitBuildWorld

before(async () => {
  await busyboxImage()
  builds = await startGitBuildWorld({ name: 'acme/preview-site', fakeRepository, environments, services })
  ;({ t, calls, git, github } = builds)
})

after(() => builds?.close())

/** The body the service's running instance serves on its published 8080, once it answers. */
async function served(serviceId: string): Promise<string | undefined> {
  const running = (await serviceInstances(serviceId)).filter((info) => info.State === 'running')
  const binding = running[0]?.Ports.find((port) => port.PrivatePort === 8080 && port.PublicPort)
  return binding ? fetchText(`http://127.0.0.1:${binding.PublicPort}/`) : undefined
}

describe('a pull request preview on the Docker executor', () => {
  it('builds the head commit in a PREVIEW clone, redeploys a new commit, ignores a replay, and removes everything once closed', async () => {
    const f = factories(t.db)
    const w = await f.environmentWithTokens({ autoPreview: true })
    environments.push(w.environment.id)
    const gitToken = await f.gitToken(w.organization.id, { type: 'GITHUB', token: builds.token, gitApiUrl: github.url })
    const secret = (await calls.inject('POST', `/organization/${w.organization.id}/gitWebhookSecret`, w.tokens.admin.authorization)).json()
      .secret as string
    const repository = await git.repository('acme/preview-site')
    const commitTo = (files: Record<string, string>, message: string, branch: string) => builds.commit(repository, files, message, branch)
    await commitTo({ Dockerfile: SITE_DOCKERFILE, 'serve.sh': SITE_SERVE, 'www/index.html': 'production\n' }, 'One', 'main')

    const created = await calls.inject('POST', `/environment/${w.environment.id}/application`, w.tokens.write.authorization, {
      name: 'site',
      git_repository: { url: `${git.url}/acme/preview-site.git`, branch: 'main', root_path: '/', git_token_id: gitToken.id },
      dockerfile_path: 'Dockerfile',
      cpu: 250,
      memory: 64,
      min_running_instances: 1,
      max_running_instances: 1,
      ports: [{ internal_port: 8080, publicly_accessible: true, protocol: 'HTTP' }],
      healthchecks: {
        readiness_probe: {
          type: { http: { path: '/', port: 8080 } },
          initial_delay_seconds: 0,
          period_seconds: 1,
          timeout_seconds: 1,
          failure_threshold: 20,
        },
        liveness_probe: null,
      },
    })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.json().auto_preview, true, "the application takes the environment's auto_preview")

    const deliver = async (pr: PullRequestFields, delivery = randomUUID()) => {
      const body = JSON.stringify(pullRequestPayload('github', 'acme/preview-site', pr))
      const res = await t.app.inject({
        method: 'POST',
        url: `/organization/${w.organization.id}/gitWebhook/github`,
        headers: signedHeaders('github', body, secret, delivery, pullRequestEvent('github', pr)),
        payload: body,
      })
      assert.equal(res.statusCode, 200, res.body)
      return { delivery, body: res.json() }
    }

    // Opened: a preview environment appears, and its application serves the head commit.
    const head = await commitTo({ 'www/index.html': 'preview one\n' }, 'Preview one', 'feature')
    const pr: PullRequestFields = { number: 42, action: 'opened', base: 'main', head: 'feature', sha: head, title: 'New page', author: 'ada' }
    const opened = await deliver(pr)
    assert.equal(opened.body.outcome, 'DEPLOYED', JSON.stringify(opened.body))
    const previewId = opened.body.deployments[0].environment_id as string
    environments.push(previewId)
    const preview = await t.db.selectFrom('environments').selectAll().where('id', '=', previewId).executeTakeFirstOrThrow()
    assert.equal(preview.mode, 'PREVIEW')
    const previewApp = await t.db
      .selectFrom('services')
      .select(['id', 'configuration'])
      .where('environmentId', '=', previewId)
      .executeTakeFirstOrThrow()
    assert.equal((previewApp.configuration as { gitRepository: { branch: string } }).gitRepository.branch, 'feature')
    services.push(previewApp.id, created.json().id)
    const [first] = await calls.waitUntilIdle(previewId, w.tokens.read.authorization)
    assert.equal(first!.status, 'DEPLOYED', JSON.stringify(first))
    assert.equal(first!.auditing_data.origin, 'GIT')
    assert.match(first!.auditing_data.triggered_by, /pull request #42: New page/)
    assert.equal(
      await until(
        () => served(previewApp.id),
        (text) => text !== undefined,
        { timeoutMs: 30_000, what: 'the preview serving' },
      ),
      'preview one',
    )
    assert.deepEqual(await serviceInstances(created.json().id, { all: true }), [], 'the source environment is not deployed')

    // A new commit on the pull request: redeployed at it.
    const next = await commitTo({ 'www/index.html': 'preview two\n' }, 'Preview two', 'feature')
    const pushed = await deliver({ ...pr, action: 'synchronize', sha: next })
    assert.equal(pushed.body.outcome, 'DEPLOYED', JSON.stringify(pushed.body))
    const [second] = await calls.waitUntilIdle(previewId, w.tokens.read.authorization)
    assert.equal(second!.status, 'DEPLOYED', JSON.stringify(second))
    await until(
      () => served(previewApp.id),
      (text) => text === 'preview two',
      { timeoutMs: 30_000, what: 'the new commit served' },
    )

    // A replay: nothing new.
    assert.equal((await deliver(pr, opened.delivery)).body.outcome, 'REPLAYED')
    assert.equal((await t.db.selectFrom('environments').select('id').where('projectId', '=', w.project.id).execute()).length, 2)

    // Closed: the environment and its containers are gone.
    const closed = await deliver({ ...pr, action: 'closed', sha: next, merged: true })
    assert.equal(closed.body.outcome, 'DELETED', JSON.stringify(closed.body))
    await until(
      () => t.db.selectFrom('environments').select('id').where('id', '=', previewId).execute(),
      (rows) => rows.length === 0,
      { timeoutMs: 60_000, what: 'the preview environment deleted' },
    )
    assert.deepEqual(await serviceInstances(previewApp.id, { all: true }), [])
  })
})
