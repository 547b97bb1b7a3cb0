/**
 * Issue 36: preview environments on the simulated executor. Signed pull (merge) request
 * deliveries of GitHub, GitLab and Bitbucket Cloud, shaped as each sends them, make one PREVIEW
 * clone per pull request and source environment, deployed at the head commit (origin GIT, the pull
 * request in `triggered_by`), redeploy it at new commits, and delete it when closed; replays and
 * repeated events make nothing new. Limits, the idle sweep, previewContainerEnvironments and its
 * roles, the list of an environment's previews, and the environment deployment rule.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type Provider, type PullRequestFields, pullRequestEvent, pullRequestPayload, signedHeaders } from './helpers/git-webhook-deliveries.ts'

const sha = () => randomUUID().replaceAll('-', '').padEnd(40, '0').slice(0, 40)

const REPOSITORY_URL: Record<Provider, (fullName: string) => string> = {
  github: (fullName) => `https://github.com/${fullName}.git`,
  gitlab: (fullName) => `https://gitlab.com/${fullName}.git`,
  bitbucket: (fullName) => `https://bitbucket.org/${fullName}.git`,
}

describe('preview environments', () => {
  let t: DeploymentsTestApp
  let calls: DeploymentCalls
  let f: ReturnType<typeof factories>

  before(async () => {
    t = await createDeploymentsApp(0, {
      BERTH_PREVIEWS_PER_ENVIRONMENT: '2',
      BERTH_PREVIEW_IDLE_TTL_MS: '3600000',
      BERTH_PREVIEW_SWEEP_INTERVAL_MS: '200',
    })
    calls = deploymentCalls(t.app)
    f = factories(t.db)
  })
  after(async () => t?.close())

  /** An organization with tokens, an environment with auto_preview on, a webhook secret, and a helm chart in git following main plus one from a helm repository. */
  async function world(provider: Provider, options: { autoPreview?: boolean } = {}) {
    const w = await f.environmentWithTokens({ autoPreview: options.autoPreview ?? true })
    const made = await calls.inject('POST', `/organization/${w.organization.id}/gitWebhookSecret`, w.tokens.admin.authorization)
    assert.equal(made.statusCode, 201, made.body)
    const fullName = provider === 'gitlab' ? `Group-${randomUUID().slice(0, 6)}/Sub/Site` : `Acme-${randomUUID().slice(0, 6)}/Site`
    const chart = await f.helmService(w.environment.id, {
      name: 'chart',
      auto_deploy: true,
      source: { git_repository: { url: REPOSITORY_URL[provider](fullName), branch: 'main', root_path: '/chart' } },
    })
    const other = await f.helmService(w.environment.id, { name: 'other' })
    return { ...w, secret: made.json().secret as string, fullName, chart, other }
  }

  async function deliver(
    provider: Provider,
    w: { organization: { id: string }; secret: string; fullName: string },
    pr: PullRequestFields,
    delivery = randomUUID(),
  ) {
    const body = JSON.stringify(pullRequestPayload(provider, w.fullName, pr))
    const res = await t.app.inject({
      method: 'POST',
      url: `/organization/${w.organization.id}/gitWebhook/${provider}`,
      headers: signedHeaders(provider, body, w.secret, delivery, pullRequestEvent(provider, pr)),
      payload: body,
    })
    assert.equal(res.statusCode, 200, res.body)
    return {
      delivery,
      body: res.json() as {
        outcome: string
        reason: string | null
        deployments: { execution_id: string; environment_id: string }[]
        deleted_environment_ids?: string[]
      },
    }
  }

  const previewsOf = (sourceEnvironmentId: string) =>
    t.db.selectFrom('previewEnvironments').selectAll().where('sourceEnvironmentId', '=', sourceEnvironmentId).execute()

  const environmentsOf = (projectId: string) => t.db.selectFrom('environments').selectAll().where('projectId', '=', projectId).execute()

  async function snapshotsOf(executionId: string) {
    return t.db.selectFrom('deploymentSnapshots').selectAll().where('executionId', '=', executionId).execute()
  }

  for (const provider of ['github', 'gitlab', 'bitbucket'] as const) {
    it(`${provider}: opening a pull request makes one PREVIEW clone at its head, a new commit redeploys it, replays make nothing, closing deletes it`, async () => {
      const w = await world(provider)
      const variable = await calls.inject('POST', `/environment/${w.environment.id}/environmentVariable`, w.tokens.write.authorization, {
        key: 'GREETING',
        value: 'hello',
      })
      assert.equal(variable.statusCode, 201, variable.body)
      const secret = await calls.inject('POST', `/environment/${w.environment.id}/secret`, w.tokens.write.authorization, {
        key: 'TOKEN',
        value: 's3cret',
      })
      assert.equal(secret.statusCode, 201, secret.body)
      const domain = await calls.inject('POST', `/helm/${w.chart.id}/customDomain`, w.tokens.write.authorization, {
        domain: `${provider}-${randomUUID().slice(0, 8)}.example.com`,
        generate_certificate: true,
      })
      assert.equal(domain.statusCode, 201, domain.body)
      const head = sha()
      const pr: PullRequestFields = {
        number: 7,
        action: 'opened',
        base: 'main',
        head: 'feature/login',
        sha: head,
        title: 'Add login',
        author: 'octocat',
      }
      const opened = await deliver(provider, w, pr)
      assert.equal(opened.body.outcome, 'DEPLOYED', JSON.stringify(opened.body))
      assert.equal(opened.body.deployments.length, 1)

      const [row] = await previewsOf(w.environment.id)
      assert.ok(row?.environmentId, 'the preview is recorded with its environment')
      assert.equal(row.pullRequestNumber, 7)
      assert.equal(row.title, 'Add login')
      const preview = (await environmentsOf(w.project.id)).find((environment) => environment.id === row.environmentId)!
      assert.equal(preview.mode, 'PREVIEW')
      assert.equal(preview.name, `${w.environment.name}-pr-7`)
      assert.equal(opened.body.deployments[0]!.environment_id, preview.id)

      // Its services are the source's, the chart at the head commit, the other as configured; pushes do not deploy them.
      const run = await t.db
        .selectFrom('deploymentRequests')
        .selectAll()
        .where('id', '=', opened.body.deployments[0]!.execution_id)
        .executeTakeFirstOrThrow()
      assert.equal(run.origin, 'GIT')
      assert.match(run.triggeredBy, /octocat \(pull request #7: Add login\)/)
      const snapshots = await snapshotsOf(run.id)
      assert.deepEqual(snapshots.map((snapshot) => snapshot.name).sort(), ['chart', 'other'])
      const expectedCommit = provider === 'bitbucket' ? head.slice(0, 12) : head
      assert.equal(snapshots.find((snapshot) => snapshot.name === 'chart')!.overrides.gitCommitId, expectedCommit)
      assert.equal(snapshots.find((snapshot) => snapshot.name === 'other')!.overrides.gitCommitId, undefined)
      const services = await t.db.selectFrom('services').selectAll().where('environmentId', '=', preview.id).execute()
      assert.ok(services.every((service) => service.pushRepository === null))
      const chartConfiguration = services.find((service) => service.name === 'chart')!.configuration as { source: { git: { branch: string } } }
      assert.equal(chartConfiguration.source.git.branch, 'feature/login', "the chart follows the pull request's branch")
      // The source's custom domains stay the source's.
      const serviceIds = services.map((service) => service.id)
      assert.deepEqual(await t.db.selectFrom('customDomains').select('id').where('serviceId', 'in', serviceIds).execute(), [])
      // Variables cloned, the secret still sealed.
      const variables = await t.db
        .selectFrom('variables')
        .selectAll()
        .where('environmentId', '=', preview.id)
        .where('serviceId', 'is', null)
        .execute()
      assert.equal(variables.find((v) => v.key === 'GREETING')?.value, 'hello')
      const sealed = variables.find((v) => v.key === 'TOKEN')!
      assert.equal(sealed.isSecret, true)
      assert.equal(sealed.value, null)
      assert.ok(sealed.valueSealed)

      // The console's list.
      const listed = await calls.inject('GET', `/environment/${w.environment.id}/previews`, w.tokens.read.authorization)
      assert.equal(listed.statusCode, 200, listed.body)
      const [item] = listed.json().results
      assert.equal(item.environment_id, preview.id)
      assert.equal(item.environment_name, preview.name)
      assert.equal(item.pull_request.number, 7)
      assert.equal(item.pull_request.title, 'Add login')
      assert.match(item.pull_request.url, /7$/)

      // A replay, and the same event under a new delivery id (issue 42: known by what it says), make nothing new.
      const replayed = await deliver(provider, w, pr, opened.delivery)
      assert.equal(replayed.body.outcome, 'REPLAYED')
      const again = await deliver(provider, w, { ...pr, action: 'reopened' })
      assert.equal(again.body.outcome, 'REPLAYED', JSON.stringify(again.body))
      // Another event at the same head, of a later time: nothing to deploy.
      const later = await deliver(provider, w, { ...pr, updatedAt: new Date().toISOString() })
      assert.equal(later.body.outcome, 'IGNORED', JSON.stringify(later.body))
      const concurrent = await Promise.all([deliver(provider, w, pr), deliver(provider, w, pr)])
      assert.ok(concurrent.every((delivery) => delivery.body.outcome === 'REPLAYED'))
      assert.equal((await previewsOf(w.environment.id)).length, 1)
      assert.equal((await environmentsOf(w.project.id)).length, 2)

      // A new commit redeploys the chart at it.
      const next = sha()
      const pushed = await deliver(provider, w, { ...pr, action: 'synchronize', sha: next })
      assert.equal(pushed.body.outcome, 'DEPLOYED', JSON.stringify(pushed.body))
      assert.equal(pushed.body.deployments[0]!.environment_id, preview.id)
      const redeployed = await snapshotsOf(pushed.body.deployments[0]!.execution_id)
      assert.deepEqual(
        redeployed.map((snapshot) => [snapshot.name, snapshot.overrides.gitCommitId]),
        [['chart', provider === 'bitbucket' ? next.slice(0, 12) : next]],
      )
      await calls.waitUntilIdle(preview.id, w.tokens.read.authorization)

      // Closed (merged): the preview goes, environment and all.
      const closed = await deliver(provider, w, { ...pr, action: 'closed', sha: next, merged: true })
      assert.equal(closed.body.outcome, 'DELETED', JSON.stringify(closed.body))
      assert.deepEqual(closed.body.deleted_environment_ids, [preview.id])
      await until(
        () => environmentsOf(w.project.id),
        (list) => list.length === 1,
        { what: 'the preview environment deleted', timeoutMs: 20_000 },
      )
      assert.equal((await previewsOf(w.environment.id)).length, 0)
      assert.equal((await deliver(provider, w, { ...pr, action: 'closed', sha: next, updatedAt: new Date().toISOString() })).body.outcome, 'IGNORED')
    })
  }

  it('makes no preview when the environment has auto_preview off, the pull request is against another branch, or the action is not one of previews', async () => {
    const off = await world('github', { autoPreview: false })
    const pr: PullRequestFields = { number: 1, action: 'opened', base: 'main', head: 'x', sha: sha(), title: 'x', author: 'a' }
    assert.equal((await deliver('github', off, pr)).body.outcome, 'IGNORED')
    const on = await world('github')
    assert.equal((await deliver('github', on, { ...pr, base: 'develop' })).body.outcome, 'IGNORED')
    const body = JSON.stringify({ ...pullRequestPayload('github', on.fullName, pr), action: 'labeled' })
    const res = await t.app.inject({
      method: 'POST',
      url: `/organization/${on.organization.id}/gitWebhook/github`,
      headers: signedHeaders('github', body, on.secret, randomUUID(), 'pull_request'),
      payload: body,
    })
    assert.equal(res.json().outcome, 'IGNORED')
    assert.equal((await previewsOf(off.environment.id)).length + (await previewsOf(on.environment.id)).length, 0)
  })

  it('refuses a preview over BERTH_PREVIEWS_PER_ENVIRONMENT, keeping the oldest; deletes previews idle longer than BERTH_PREVIEW_IDLE_TTL_MS', async () => {
    const w = await world('github')
    const open = (number: number) =>
      deliver('github', w, { number, action: 'opened', base: 'main', head: `b${number}`, sha: sha(), title: `PR ${number}`, author: 'a' })
    assert.equal((await open(1)).body.outcome, 'DEPLOYED')
    assert.equal((await open(2)).body.outcome, 'DEPLOYED')
    const third = await open(3)
    assert.equal(third.body.outcome, 'IGNORED')
    assert.match(third.body.reason!, /BERTH_PREVIEWS_PER_ENVIRONMENT is 2/)
    const rows = await previewsOf(w.environment.id)
    assert.deepEqual(rows.map((row) => row.pullRequestNumber).sort(), [1, 2])

    // One goes idle: the sweep deletes it, and only it.
    const idle = rows.find((row) => row.pullRequestNumber === 1)!
    await calls.waitUntilIdle(idle.environmentId!, w.tokens.read.authorization)
    await t.db.updateTable('previewEnvironments').set({ lastActivityAt: sql`now() - interval '2 hours'` }).where('id', '=', idle.id).execute()
    await until(
      () => environmentsOf(w.project.id),
      (list) => !list.some((environment) => environment.id === idle.environmentId),
      { what: 'the idle preview deleted', timeoutMs: 20_000 },
    )
    assert.deepEqual(
      (await previewsOf(w.environment.id)).map((row) => row.pullRequestNumber),
      [2],
    )

    // The source deleted: its previews go with it.
    const remaining = (await previewsOf(w.environment.id))[0]!
    assert.equal((await calls.inject('DELETE', `/environment/${w.environment.id}`, w.tokens.write.authorization)).statusCode, 204)
    await until(
      () => environmentsOf(w.project.id),
      (list) => list.length === 0,
      { what: 'the source and its preview deleted', timeoutMs: 20_000 },
    )
    assert.equal(await t.db.selectFrom('previewEnvironments').select('id').where('id', '=', remaining.id).executeTakeFirst(), undefined)
  })

  it('previewContainerEnvironments: a preview with the new tag for each container of that image with previews on, for those who may deploy it', async () => {
    const w = await f.environmentWithTokens({ autoPreview: true })
    const web = await f.containerService(w.environment.id, { name: 'web', image_name: 'acme/web', tag: '1.0', auto_preview: true })
    await f.containerService(w.environment.id, { name: 'sidecar', image_name: 'acme/sidecar', tag: '1.0', auto_preview: true })
    const url = `/organization/${w.organization.id}/container/preview`
    for (const token of [w.tokens.read]) {
      const refused = await calls.inject('POST', url, token.authorization, { image_name: 'acme/web', tag: '2.0' })
      assert.equal(refused.statusCode, 403, refused.body)
    }
    assert.equal((await previewsOf(w.environment.id)).length, 0)
    const outsider = await f.organizationWithTokens()
    assert.equal((await calls.inject('POST', url, outsider.tokens.admin.authorization, { image_name: 'acme/web', tag: '2.0' })).statusCode, 404)

    const made = await calls.inject('POST', url, w.tokens.deploy.authorization, { image_name: 'acme/web', tag: '2.0' })
    assert.equal(made.statusCode, 202, made.body)
    const [row] = await previewsOf(w.environment.id)
    assert.ok(row?.environmentId)
    assert.equal(made.json().id, row.environmentId)
    const previewServices = await t.db.selectFrom('services').selectAll().where('environmentId', '=', row.environmentId).execute()
    const configuration = (name: string) => previewServices.find((service) => service.name === name)!.configuration as { tag: string }
    assert.equal(configuration('web').tag, '2.0')
    assert.equal(configuration('sidecar').tag, '1.0')
    const source = await t.db.selectFrom('services').selectAll().where('id', '=', web.id).executeTakeFirstOrThrow()
    assert.equal((source.configuration as { tag: string }).tag, '1.0')
    const run = await t.db.selectFrom('deploymentRequests').selectAll().where('environmentId', '=', row.environmentId).executeTakeFirstOrThrow()
    assert.equal(run.origin, 'API')

    // The same tag again, or the tag the container has: nothing new.
    assert.equal((await calls.inject('POST', url, w.tokens.deploy.authorization, { image_name: 'acme/web', tag: '2.0' })).statusCode, 202)
    assert.equal((await calls.inject('POST', url, w.tokens.deploy.authorization, { image_name: 'acme/web', tag: '1.0' })).statusCode, 202)
    assert.equal((await previewsOf(w.environment.id)).length, 1)
    assert.equal((await calls.inject('POST', url, w.tokens.deploy.authorization, { image_name: 'acme/web' })).statusCode, 400)
  })

  it('previewContainerEnvironments for a custom role: only the environments where it may deploy', async () => {
    const { organization, tokens } = await f.organizationWithTokens()
    const admin = tokens.admin.authorization
    const project = await f.project(organization.id)
    const development = await f.environment(project.id, { mode: 'DEVELOPMENT', autoPreview: true })
    const staging = await f.environment(project.id, { mode: 'STAGING', autoPreview: true })
    for (const environment of [development, staging]) await f.containerService(environment.id, { image_name: 'acme/custom', tag: '1' })
    const holderOf = async (permissions: Record<string, string>) => {
      const role = (
        await calls.inject('POST', `/organization/${organization.id}/customRole`, admin, { name: `role ${randomUUID().slice(0, 8)}` })
      ).json()
      const edited = await calls.inject('PUT', `/organization/${organization.id}/customRole/${role.id}`, admin, {
        name: role.name,
        cluster_permissions: [{ cluster_id: development.clusterId, permission: 'ENV_CREATOR' }],
        project_permissions: [
          {
            project_id: project.id,
            permissions: Object.entries(permissions).map(([environment_type, permission]) => ({ environment_type, permission })),
          },
        ],
      })
      assert.equal(edited.statusCode, 200, edited.body)
      const minted = await calls.inject('POST', `/organization/${organization.id}/apiToken`, admin, {
        name: `custom ${randomUUID().slice(0, 8)}`,
        role_id: role.id,
      })
      assert.equal(minted.statusCode, 201, minted.body)
      return `Token ${minted.json().token}`
    }
    const url = `/organization/${organization.id}/container/preview`
    const viewer = await holderOf({ DEVELOPMENT: 'VIEWER', STAGING: 'VIEWER' })
    assert.equal((await calls.inject('POST', url, viewer, { image_name: 'acme/custom', tag: '2' })).statusCode, 403)
    const deployer = await holderOf({ DEVELOPMENT: 'DEPLOYER', STAGING: 'VIEWER' })
    assert.equal((await calls.inject('POST', url, deployer, { image_name: 'acme/custom', tag: '2' })).statusCode, 202)
    assert.equal((await previewsOf(development.id)).length, 1)
    assert.equal((await previewsOf(staging.id)).length, 0)
  })

  it("the environment deployment rule holds its preview settings: auto_preview is the environment's", async () => {
    const w = await f.environmentWithTokens()
    const path = `/environment/${w.environment.id}/deploymentRule`
    const read = await calls.inject('GET', path, w.tokens.read.authorization)
    assert.equal(read.statusCode, 200, read.body)
    assert.equal(read.json().id, w.environment.id)
    assert.equal(read.json().auto_preview, false)
    const body = {
      auto_preview: true,
      on_demand_preview: true,
      timezone: 'UTC',
      start_time: '1970-01-01T08:00:00.000Z',
      stop_time: '1970-01-01T19:00:00.000Z',
      weekdays: ['MONDAY'],
    }
    assert.equal((await calls.inject('PUT', `${path}/${w.environment.id}`, w.tokens.deploy.authorization, body)).statusCode, 403)
    assert.equal((await calls.inject('PUT', `${path}/${randomUUID()}`, w.tokens.write.authorization, body)).statusCode, 404)
    const edited = await calls.inject('PUT', `${path}/${w.environment.id}`, w.tokens.write.authorization, body)
    assert.equal(edited.statusCode, 200, edited.body)
    assert.equal(edited.json().on_demand_preview, true)
    const environment = await calls.inject('GET', `/environment/${w.environment.id}`, w.tokens.read.authorization)
    assert.equal(environment.json().auto_preview, true)
    assert.deepEqual((await calls.inject('GET', path, w.tokens.read.authorization)).json().weekdays, ['MONDAY'])
  })
})
