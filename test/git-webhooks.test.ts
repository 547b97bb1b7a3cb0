/**
 * Issue 19: git pushes deploy. Deliveries of GitHub, GitLab and Bitbucket Cloud, signed with the
 * organization's webhook secret, sent over real HTTP on loopback, deploy exactly the helm services
 * with `auto_deploy` on that follow the pushed repository and branch, with origin GIT, the pusher as
 * `triggered_by` and the pushed commit; what is forged, unsigned, replayed or not a branch push
 * deploys nothing. The secret is ADMIN's only; rotating it retires the old one.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Kysely } from 'kysely'
import * as gitWebhooksMigration from '#src/platform/db/migrations/0018-git-webhooks.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'
import { type Provider, pushPayload, signedHeaders } from './helpers/git-webhook-deliveries.ts'

const sha = () => randomUUID().replaceAll('-', '').padEnd(40, '0').slice(0, 40)

const REPOSITORY_URL: Record<Provider, (fullName: string) => string> = {
  github: (fullName) => `https://github.com/${fullName}.git`,
  gitlab: (fullName) => `https://gitlab.com/${fullName}.git`,
  bitbucket: (fullName) => `https://bitbucket.org/${fullName}.git`,
}

describe('git pushes deploy', () => {
  let t: TestApp
  let base: string
  let f: ReturnType<typeof factories>

  before(async () => {
    t = await createTestApp()
    base = await t.listen()
    f = factories(t.db)
  })
  after(async () => t?.close())

  async function call(method: string, path: string, authorization?: string, headers: Record<string, string> = {}, body?: string) {
    const res = await fetch(`${base}${path}`, { method, headers: { ...(authorization ? { authorization } : {}), ...headers }, body })
    const text = await res.text()
    return { status: res.status, text, json: text === '' ? undefined : JSON.parse(text) }
  }

  /** An organization with its tokens, an environment, and a webhook secret an ADMIN made. */
  async function organization() {
    const world = await f.environmentWithTokens()
    const made = await call('POST', `/organization/${world.organization.id}/gitWebhookSecret`, world.tokens.admin.authorization)
    assert.equal(made.status, 201, made.text)
    return { ...world, secret: made.json.secret as string }
  }

  async function helmFollowing(environmentId: string, url: string, branch: string | null, autoDeploy = true) {
    return f.helmService(environmentId, {
      auto_deploy: autoDeploy,
      source: { git_repository: { url, ...(branch === null ? {} : { branch }), root_path: '/chart' } },
    })
  }

  async function deliver(
    provider: Provider,
    organizationId: string,
    payload: unknown,
    secret: string | undefined,
    delivery = randomUUID(),
    event?: string,
  ) {
    const body = JSON.stringify(payload)
    return call(
      'POST',
      `/organization/${organizationId}/gitWebhook/${provider}`,
      undefined,
      signedHeaders(provider, body, secret, delivery, event),
      body,
    )
  }

  /** Every deployment request of the organization, with its origin, trigger and the services it snapshots. */
  async function deploymentsOf(organizationId: string) {
    const runs = await t.db.selectFrom('deploymentRequests').selectAll().where('organizationId', '=', organizationId).execute()
    return Promise.all(
      runs.map(async (run) => ({
        run,
        snapshots: await t.db.selectFrom('deploymentSnapshots').selectAll().where('executionId', '=', run.id).execute(),
      })),
    )
  }

  for (const provider of ['github', 'gitlab', 'bitbucket'] as const) {
    it(`${provider}: a signed push deploys exactly the auto_deploy services following that repository and branch, with origin GIT, the pusher and the commit`, async () => {
      const org = await organization()
      const other = await organization()
      const fullName = provider === 'gitlab' ? `Group-${randomUUID().slice(0, 6)}/Sub/Charts` : `Acme-${randomUUID().slice(0, 6)}/Charts`
      const url = REPOSITORY_URL[provider](fullName)
      const follows = await helmFollowing(org.environment.id, url, 'main')
      const secondEnvironment = await f.environment(org.project.id)
      const followsElsewhere = await helmFollowing(secondEnvironment.id, url.toLowerCase(), 'main')
      await helmFollowing(org.environment.id, url, 'main', false)
      await helmFollowing(org.environment.id, url, 'develop')
      await helmFollowing(org.environment.id, REPOSITORY_URL[provider](`${fullName}-other`), 'main')
      await helmFollowing(other.environment.id, url, 'main')

      const commit = sha()
      // The provider may spell the repository in another case than the service's URL.
      const res = await deliver(provider, org.organization.id, pushPayload(provider, fullName.toUpperCase(), 'main', commit, 'octocat'), org.secret)
      assert.equal(res.status, 200, res.text)
      assert.equal(res.json.outcome, 'DEPLOYED')
      assert.equal(res.json.deployments.length, 2)

      const deployments = await deploymentsOf(org.organization.id)
      const deployed = deployments.flatMap(({ snapshots }) => snapshots.map((snapshot) => snapshot.serviceId)).sort()
      assert.deepEqual(deployed, [follows.id, followsElsewhere.id].sort())
      for (const { run, snapshots } of deployments) {
        assert.equal(run.origin, 'GIT')
        assert.equal(run.triggeredBy, 'octocat')
        assert.equal(run.triggerAction, 'DEPLOY')
        for (const snapshot of snapshots) assert.equal(snapshot.overrides.gitCommitId, commit)
      }
      assert.deepEqual(await deploymentsOf(other.organization.id), [])

      // The history says so too.
      const history = await call('GET', `/environment/${org.environment.id}/deploymentHistoryV2`, org.tokens.read.authorization)
      assert.equal(history.status, 200, history.text)
      const [entry] = history.json.results
      assert.equal(entry.auditing_data.origin, 'GIT')
      assert.equal(entry.auditing_data.triggered_by, 'octocat')
      assert.equal(entry.stages.flatMap((stage: { services: unknown[] }) => stage.services).length, 1)
    })
  }

  it("deploys a terraform service's push as its auto_deploy_config says: PLAN plans only, NOOP deploys nothing, DEFAULT plans and applies", async () => {
    const org = await organization()
    const url = `https://github.com/acme-${randomUUID().slice(0, 6)}/infra`
    const fullName = url.slice('https://github.com/'.length)
    const terraform = async (name: string, action: string) => {
      const res = await call(
        'POST',
        `/environment/${org.environment.id}/terraform`,
        org.tokens.admin.authorization,
        { 'content-type': 'application/json' },
        JSON.stringify({
          name,
          description: '',
          auto_deploy_config: { auto_deploy: true, terraform_action: action },
          terraform_files_source: { git_repository: { url, branch: 'main' } },
          terraform_variables_source: { tf_var_file_paths: [], tf_vars: [] },
          backend: { kubernetes: {} },
          engine: 'OPEN_TOFU',
          provider_version: { explicit_version: '1.9.4' },
          job_resources: { cpu_milli: 500, ram_mib: 512, gpu: 0, storage_gib: 1 },
        }),
      )
      assert.equal(res.status, 201, res.text)
      return res.json.id as string
    }
    const planned = await terraform('planned', 'PLAN')
    const applied = await terraform('applied', 'DEFAULT')
    await terraform('ignored', 'NOOP')
    const commit = sha()
    const res = await deliver('github', org.organization.id, pushPayload('github', fullName, 'main', commit, 'octocat'), org.secret)
    assert.equal(res.json.outcome, 'DEPLOYED', res.text)
    const snapshots = (await deploymentsOf(org.organization.id)).flatMap((deployment) => deployment.snapshots)
    assert.deepEqual(
      snapshots.map((snapshot) => [snapshot.serviceId, snapshot.overrides]).sort(),
      [
        [planned, { gitCommitId: commit, action: 'PLAN' }],
        [applied, { gitCommitId: commit }],
      ].sort(),
    )
  })

  it('matches a service following the default branch against the default branch the push event names', async () => {
    const org = await organization()
    const url = `https://github.com/acme-${randomUUID().slice(0, 6)}/charts`
    const fullName = url.slice('https://github.com/'.length)
    const onDefault = await helmFollowing(org.environment.id, url, null)
    const toOther = await deliver('github', org.organization.id, pushPayload('github', fullName, 'feature', sha(), 'dev', 'trunk'), org.secret)
    assert.equal(toOther.json.outcome, 'IGNORED')
    const toDefault = await deliver('github', org.organization.id, pushPayload('github', fullName, 'trunk', sha(), 'dev', 'trunk'), org.secret)
    assert.equal(toDefault.json.outcome, 'DEPLOYED', toDefault.text)
    assert.deepEqual(toDefault.json.deployments[0].service_ids, [onDefault.id])
  })

  it('deploys a service again after an edit turns auto_deploy on, and no more once it is off', async () => {
    const org = await organization()
    const url = `https://github.com/acme-${randomUUID().slice(0, 6)}/charts`
    const fullName = url.slice('https://github.com/'.length)
    const helm = await helmFollowing(org.environment.id, url, 'main', false)
    const push = () => deliver('github', org.organization.id, pushPayload('github', fullName, 'main', sha(), 'dev'), org.secret)
    assert.equal((await push()).json.outcome, 'IGNORED')
    const read = await call('GET', `/helm/${helm.id}`, org.tokens.admin.authorization)
    const { id: _, ...body } = read.json
    const edit = (autoDeploy: boolean) =>
      call(
        'PUT',
        `/helm/${helm.id}`,
        org.tokens.admin.authorization,
        { 'content-type': 'application/json' },
        JSON.stringify({
          name: body.name,
          auto_deploy: autoDeploy,
          arguments: [],
          values_override: {},
          source: { git_repository: { url, branch: 'main', root_path: '/chart' } },
        }),
      )
    assert.equal((await edit(true)).status, 200)
    assert.equal((await push()).json.outcome, 'DEPLOYED')
    assert.equal((await edit(false)).status, 200)
    assert.equal((await push()).json.outcome, 'IGNORED')
  })

  it('refuses forged, unsigned and other-organization-signed deliveries with 401, changing nothing', async () => {
    const org = await organization()
    const other = await organization()
    const fullName = `acme-${randomUUID().slice(0, 6)}/charts`
    await helmFollowing(org.environment.id, REPOSITORY_URL.github(fullName), 'main')
    await helmFollowing(org.environment.id, REPOSITORY_URL.gitlab(fullName), 'main')
    await helmFollowing(org.environment.id, REPOSITORY_URL.bitbucket(fullName), 'main')
    for (const provider of ['github', 'gitlab', 'bitbucket'] as const) {
      const payload = pushPayload(provider, fullName, 'main', sha(), 'mallory')
      for (const secret of [undefined, 'forged-secret', other.secret, `${org.secret}x`]) {
        const res = await deliver(provider, org.organization.id, payload, secret)
        assert.equal(res.status, 401, `${provider} with ${secret}: ${res.text}`)
        assert.equal(res.json.code, 'unauthenticated')
        assert.equal(res.json.status, 401)
        assert.equal(typeof res.json.request_id, 'string')
      }
      // A signature over another body: the signature of the original, the body changed.
      const body = JSON.stringify(payload)
      const headers = signedHeaders(provider, body, org.secret, randomUUID())
      const tampered = body.replace('mallory', 'malloryy')
      if (provider !== 'gitlab') {
        const res = await call('POST', `/organization/${org.organization.id}/gitWebhook/${provider}`, undefined, headers, tampered)
        assert.equal(res.status, 401, res.text)
      }
      // An organization that does not exist answers the same.
      const unknown = await deliver(provider, randomUUID(), payload, org.secret)
      assert.equal(unknown.status, 401)
    }
    assert.deepEqual(await deploymentsOf(org.organization.id), [])
    const deliveries = await t.db.selectFrom('gitWebhookDeliveries').selectAll().where('organizationId', '=', org.organization.id).execute()
    assert.deepEqual(deliveries, [])
  })

  it('acts on a delivery id once: a replay deploys nothing', async () => {
    const org = await organization()
    const fullName = `acme-${randomUUID().slice(0, 6)}/charts`
    for (const provider of ['github', 'gitlab', 'bitbucket'] as const) {
      await helmFollowing(org.environment.id, REPOSITORY_URL[provider](fullName), 'main')
      const delivery = randomUUID()
      const payload = pushPayload(provider, fullName, 'main', sha(), 'dev')
      const first = await deliver(provider, org.organization.id, payload, org.secret, delivery)
      assert.equal(first.json.outcome, 'DEPLOYED', first.text)
      const replay = await deliver(provider, org.organization.id, payload, org.secret, delivery)
      assert.equal(replay.status, 200)
      assert.equal(replay.json.outcome, 'REPLAYED')
      assert.deepEqual(replay.json.deployments, [])
    }
    assert.equal((await deploymentsOf(org.organization.id)).length, 3)
  })

  it('knows a replay under a new delivery id by its push: the same repository, branch and commits deploy once; a branch moved back deploys again', async () => {
    const org = await organization()
    const fullName = `acme-${randomUUID().slice(0, 6)}/charts`
    for (const provider of ['github', 'gitlab', 'bitbucket'] as const) {
      await helmFollowing(org.environment.id, REPOSITORY_URL[provider](fullName), 'main')
      const payload = pushPayload(provider, fullName, 'main', sha(), 'dev')
      const first = await deliver(provider, org.organization.id, payload, org.secret, randomUUID())
      assert.equal(first.json.outcome, 'DEPLOYED', first.text)
      // The delivery id header is not signed: the captured delivery sent again under a fresh one.
      const replay = await deliver(provider, org.organization.id, payload, org.secret, randomUUID())
      assert.equal(replay.status, 200, replay.text)
      assert.equal(replay.json.outcome, 'REPLAYED', replay.text)
      assert.deepEqual(replay.json.deployments, [])
    }
    assert.equal((await deploymentsOf(org.organization.id)).length, 3)
    // Another branch at the same commit, and the branch moved back to a commit it held, are new pushes.
    const commit = sha()
    await helmFollowing(org.environment.id, REPOSITORY_URL.github(fullName), 'release')
    const onMain = await deliver('github', org.organization.id, pushPayload('github', fullName, 'release', commit, 'dev'), org.secret, randomUUID())
    assert.equal(onMain.json.outcome, 'DEPLOYED', onMain.text)
    const movedBack = { ...pushPayload('github', fullName, 'release', commit, 'dev'), before: sha() }
    assert.equal((await deliver('github', org.organization.id, movedBack, org.secret, randomUUID())).json.outcome, 'DEPLOYED')
  })

  it('answers pings, other events, tag pushes and branch deletions with 200, deploying nothing', async () => {
    const org = await organization()
    const fullName = `acme-${randomUUID().slice(0, 6)}/charts`
    await helmFollowing(org.environment.id, REPOSITORY_URL.github(fullName), 'main')
    await helmFollowing(org.environment.id, REPOSITORY_URL.bitbucket(fullName), 'main')
    const ping = await deliver('github', org.organization.id, { zen: 'Keep it logically awesome.', hook_id: 1 }, org.secret, randomUUID(), 'ping')
    assert.equal(ping.status, 200, ping.text)
    assert.equal(ping.json.outcome, 'IGNORED')
    const tag = { ...pushPayload('github', fullName, 'main', sha(), 'dev'), ref: 'refs/tags/v1.0.0' }
    assert.equal((await deliver('github', org.organization.id, tag, org.secret)).json.outcome, 'IGNORED')
    const deleted = { ...pushPayload('github', fullName, 'main', '0'.repeat(40), 'dev'), deleted: true }
    assert.equal((await deliver('github', org.organization.id, deleted, org.secret)).json.outcome, 'IGNORED')
    const tagPush = await deliver('gitlab', org.organization.id, { object_kind: 'tag_push' }, org.secret, randomUUID(), 'Tag Push Hook')
    assert.equal(tagPush.json.outcome, 'IGNORED')
    const bitbucketDeletion = { actor: { nickname: 'dev' }, repository: { full_name: fullName }, push: { changes: [{ new: null, old: {} }] } }
    assert.equal((await deliver('bitbucket', org.organization.id, bitbucketDeletion, org.secret)).json.outcome, 'IGNORED')
    assert.deepEqual(await deploymentsOf(org.organization.id), [])
  })

  it('refuses a signed push that is not one (400), and a body that is not JSON (415), changing nothing', async () => {
    const org = await organization()
    const malformed = await deliver('github', org.organization.id, { ref: 'refs/heads/main', after: 'nope' }, org.secret)
    assert.equal(malformed.status, 400, malformed.text)
    assert.equal(malformed.json.code, 'validation_failed')
    const form = 'payload=%7B%7D'
    const headers = { ...signedHeaders('github', form, org.secret, randomUUID()), 'content-type': 'application/x-www-form-urlencoded' }
    const res = await call('POST', `/organization/${org.organization.id}/gitWebhook/github`, undefined, headers, form)
    assert.equal(res.status, 415, res.text)
    const noId = signedHeaders('github', '{}', org.secret, '')
    const withoutDelivery = await call('POST', `/organization/${org.organization.id}/gitWebhook/github`, undefined, noId, '{}')
    assert.equal(withoutDelivery.status, 400, withoutDelivery.text)
  })

  it('finds, after migration 0018, the helm services stored before it that follow a git branch with auto_deploy on', async () => {
    const org = await organization()
    const fullName = `acme-${randomUUID().slice(0, 6)}/charts`
    const follows = await helmFollowing(org.environment.id, REPOSITORY_URL.github(fullName), 'main')
    await helmFollowing(org.environment.id, REPOSITORY_URL.github(fullName), 'main', false)
    // As a database from before the migration: the columns were not there.
    await t.db.updateTable('services').set({ pushRepository: null, pushBranch: null }).where('organizationId', '=', org.organization.id).execute()
    const unknownSchema = t.db as unknown as Kysely<unknown>
    await gitWebhooksMigration.down(unknownSchema)
    await gitWebhooksMigration.up(unknownSchema)
    const secret = (await call('POST', `/organization/${org.organization.id}/gitWebhookSecret`, org.tokens.admin.authorization)).json.secret
    const res = await deliver('github', org.organization.id, pushPayload('github', fullName, 'main', sha(), 'dev'), secret)
    assert.equal(res.json.outcome, 'DEPLOYED', res.text)
    assert.deepEqual(res.json.deployments[0].service_ids, [follows.id])
  })

  it('shows the secret to ADMINs only, and rotating it retires the old one', async () => {
    const org = await organization()
    const path = `/organization/${org.organization.id}/gitWebhookSecret`
    for (const role of ['read', 'deploy', 'write'] as const) {
      const res = await call('GET', path, org.tokens[role].authorization)
      assert.equal(res.status, 403, res.text)
      assert.ok(!res.text.includes(org.secret))
      assert.equal((await call('POST', path, org.tokens[role].authorization)).status, 403)
    }
    const shown = await call('GET', path, org.tokens.admin.authorization)
    assert.equal(shown.status, 200)
    assert.equal(shown.json.secret, org.secret)
    assert.equal(shown.json.webhook_paths.github, `/organization/${org.organization.id}/gitWebhook/github`)
    // Sealed at rest.
    const stored = await t.db
      .selectFrom('gitWebhookSecrets')
      .select('secretSealed')
      .where('organizationId', '=', org.organization.id)
      .executeTakeFirstOrThrow()
    assert.ok(!stored.secretSealed.toString('latin1').includes(org.secret))

    const fullName = `acme-${randomUUID().slice(0, 6)}/charts`
    await helmFollowing(org.environment.id, REPOSITORY_URL.github(fullName), 'main')
    const rotated = await call('POST', path, org.tokens.admin.authorization)
    assert.equal(rotated.status, 201)
    assert.notEqual(rotated.json.secret, org.secret)
    const payload = pushPayload('github', fullName, 'main', sha(), 'dev')
    assert.equal((await deliver('github', org.organization.id, payload, org.secret)).status, 401)
    assert.equal((await deliver('github', org.organization.id, payload, rotated.json.secret)).json.outcome, 'DEPLOYED')

    assert.equal((await call('DELETE', path, org.tokens.admin.authorization)).status, 204)
    assert.equal((await call('GET', path, org.tokens.admin.authorization)).json.secret, null)
    assert.equal((await deliver('github', org.organization.id, payload, rotated.json.secret)).status, 401)
  })
})

describe('git webhooks and the failed-authentication limit', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp({ BERTH_RATE_LIMIT_FAILED_AUTH: '2' })
  })
  after(async () => t?.close())

  it("neither counts a webhook's refused deliveries against the address nor refuses its deliveries past the limit", async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const made = await t.app.inject({
      method: 'POST',
      url: `/organization/${organization.id}/gitWebhookSecret`,
      headers: { authorization: tokens.admin.authorization },
    })
    const secret: string = made.json().secret
    const deliver = (key: string) => {
      const body = JSON.stringify({ zen: 'hi' })
      return t.app.inject({
        method: 'POST',
        url: `/organization/${organization.id}/gitWebhook/github`,
        headers: signedHeaders('github', body, key, randomUUID(), 'ping'),
        payload: body,
      })
    }
    // One organization's wrong secret, delivered from the provider's address many times.
    for (let i = 0; i < 4; i++) assert.equal((await deliver('wrong')).statusCode, 401)
    assert.equal((await deliver(secret)).statusCode, 200)
    // API credentials from that address are still heard.
    const read = await t.app.inject({ method: 'GET', url: `/organization/${organization.id}`, headers: { authorization: tokens.read.authorization } })
    assert.equal(read.statusCode, 200, read.body)
  })
})
