import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { startWebhookReceiver, verifySignatures, type WebhookReceiver } from './helpers/webhook-receiver.ts'

// Issue 45: organizations' outbound webhooks, delivered from the outbox to a real HTTP receiver on
// loopback (allowed by the operator's setting), with the simulator deploying. Docker deployments:
// webhooks-docker.test.ts; a server killed before delivering: webhooks-restart.test.ts.

let t: DeploymentsTestApp
let calls: DeploymentCalls
let receiver: WebhookReceiver

before(async () => {
  receiver = await startWebhookReceiver()
  t = await createDeploymentsApp(10, { BERTH_GIT_ALLOW_PRIVATE_URLS: 'true', BERTH_WEBHOOK_RETRY_DELAYS_MS: '50,50,50,50,50' })
  calls = deploymentCalls(t.app)
})

after(async () => {
  await t?.close()
  await receiver?.close()
})

async function world() {
  const make = factories(t.db)
  const w = await make.environmentWithTokens()
  const helm = await make.helmService(w.environment.id)
  return { ...w, helm, admin: w.tokens.admin.authorization }
}

async function createWebhook(organizationId: string, admin: string, body: object) {
  const res = await calls.inject('POST', `/organization/${organizationId}/webhook`, admin, body)
  assert.equal(res.statusCode, 201, res.body)
  return res.json()
}

async function deployAndWait(environmentId: string, deploy: string, read: string) {
  const queued = await calls.trigger(`/environment/${environmentId}/deploy`, deploy)
  await calls.waitUntilIdle(environmentId, read)
  return queued.execution_id as string
}

const attemptsOf = async (organizationId: string, webhookId: string, admin: string) => {
  const res = await calls.inject('GET', `/organization/${organizationId}/webhook/${webhookId}/event`, admin)
  assert.equal(res.statusCode, 200, res.body)
  // biome-ignore lint/suspicious/noExplicitAny: attempts are read field by field
  return res.json().results as Record<string, any>[]
}

describe('organization webhooks', () => {
  it('are created, read, listed, edited and deleted by ADMINs; the secret is write-only; other roles are refused', async () => {
    const w = await world()
    const created = await createWebhook(w.organization.id, w.admin, {
      kind: 'STANDARD',
      target_url: receiver.url('/crud'),
      target_secret: 'shh-crud',
      events: ['DEPLOYMENT_SUCCESSFUL'],
      project_names_filter: ['web*'],
      environment_types_filter: ['PRODUCTION'],
      description: 'ops',
    })
    assert.equal(created.target_secret_set, true)
    assert.equal(created.enabled, true)
    assert.equal('target_secret' in created, false)
    assert.deepEqual(created.project_names_filter, ['web*'])
    const base = `/organization/${w.organization.id}/webhook`
    const read = await calls.inject('GET', `${base}/${created.id}`, w.admin)
    assert.equal(read.statusCode, 200)
    assert.equal(read.body.includes('shh-crud'), false)
    const edited = await calls.inject('PUT', `${base}/${created.id}`, w.admin, {
      kind: 'SLACK',
      target_url: receiver.url('/crud2'),
      events: ['DEPLOYMENT_FAILURE'],
      enabled: false,
    })
    assert.equal(edited.statusCode, 200, edited.body)
    assert.equal(edited.json().target_secret_set, true, 'an edit without target_secret keeps it')
    assert.equal(edited.json().kind, 'SLACK')
    assert.equal(edited.json().enabled, false)
    const cleared = await calls.inject('PUT', `${base}/${created.id}`, w.admin, {
      kind: 'SLACK',
      target_url: receiver.url('/crud2'),
      events: [],
      target_secret: '',
    })
    assert.equal(cleared.json().target_secret_set, false)
    const list = await calls.inject('GET', base, w.admin)
    assert.deepEqual(
      list.json().results.map((hook: { id: string }) => hook.id),
      [created.id],
    )
    for (const role of ['write', 'read'] as const) {
      const refused = await calls.inject('GET', base, w.tokens[role].authorization)
      assert.equal(refused.statusCode, 403, `${role}: ${refused.body}`)
      const notCreated = await calls.inject('POST', base, w.tokens[role].authorization, {
        kind: 'STANDARD',
        target_url: receiver.url('/x'),
        events: [],
      })
      assert.equal(notCreated.statusCode, 403)
    }
    const other = await world()
    const hidden = await calls.inject('GET', `${base}/${created.id}`, other.admin)
    assert.equal(hidden.statusCode, 404)
    const deleted = await calls.inject('DELETE', `${base}/${created.id}`, w.admin)
    assert.equal(deleted.statusCode, 204)
    assert.equal((await calls.inject('GET', `${base}/${created.id}`, w.admin)).statusCode, 404)
  })

  it('retries a receiver that answers 500 twice, then 200: three attempts, all listed with what it answered and the secret masked', async () => {
    const w = await world()
    const hook = await createWebhook(w.organization.id, w.admin, {
      kind: 'STANDARD',
      target_url: receiver.url('/flaky', [500, 500, 200]),
      target_secret: 'flaky-secret',
      events: ['DEPLOYMENT_SUCCESSFUL'],
    })
    const executionId = await deployAndWait(w.environment.id, w.tokens.deploy.authorization, w.tokens.read.authorization)
    const requests = await receiver.waitFor('/flaky', 3)
    const attempts = await until(
      () => attemptsOf(w.organization.id, hook.id, w.admin),
      (list) => list.length === 3,
      { what: 'three attempts listed' },
    )
    assert.deepEqual(
      attempts.map((attempt) => attempt.target_response_status_code),
      [200, 500, 500],
      'newest first',
    )
    assert.deepEqual(
      attempts.map((attempt) => attempt.target_response_body),
      ['answer 200', 'answer 500', 'answer 500'],
    )
    for (const attempt of attempts) {
      assert.equal(attempt.matched_event, 'DEPLOYMENT_SUCCESSFUL')
      assert.equal(attempt.target_url_used, `${receiver.base}/flaky`)
      assert.equal(attempt.execution_id, executionId)
      assert.equal(attempt.request.headers['qovery-signature'], '********')
      assert.equal(JSON.stringify(attempt).includes('flaky-secret'), false)
      assert.equal(attempt.request.body.execution_id, executionId)
    }
    // The same event each time: one id, signed each time.
    assert.equal(new Set(requests.map((request) => request.headers['webhook-id'])).size, 1)
    for (const request of requests) assert.ok(verifySignatures(request, 'flaky-secret'))
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(receiver.at('/flaky').length, 3, 'nothing more after the 200')
  })

  it('does not retry a 4xx other than 429', async () => {
    const w = await world()
    const hook = await createWebhook(w.organization.id, w.admin, {
      kind: 'STANDARD',
      target_url: receiver.url('/gone', [410, 200]),
      events: ['DEPLOYMENT_SUCCESSFUL'],
    })
    await deployAndWait(w.environment.id, w.tokens.deploy.authorization, w.tokens.read.authorization)
    const [attempt] = await until(
      () => attemptsOf(w.organization.id, hook.id, w.admin),
      (list) => list.length === 1,
      { what: 'one attempt' },
    )
    assert.equal(attempt!.target_response_status_code, 410)
    const state = await t.db.selectFrom('webhookDeliveries').select('state').where('webhookId', '=', hook.id).executeTakeFirstOrThrow()
    assert.equal(state.state, 'FAILED')
  })

  it('sends only to webhooks whose project filter (wildcards, any case) and environment types match, and nothing when disabled', async () => {
    const w = await world()
    const matching = await createWebhook(w.organization.id, w.admin, {
      kind: 'STANDARD',
      target_url: receiver.url('/match'),
      events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCESSFUL'],
      project_names_filter: ['nothing-*', 'PROJECT *'],
      environment_types_filter: ['DEVELOPMENT'],
    })
    const otherProject = await createWebhook(w.organization.id, w.admin, {
      kind: 'STANDARD',
      target_url: receiver.url('/other-project'),
      events: ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCESSFUL'],
      project_names_filter: ['payments*'],
    })
    const otherMode = await createWebhook(w.organization.id, w.admin, {
      kind: 'STANDARD',
      target_url: receiver.url('/other-mode'),
      events: ['DEPLOYMENT_SUCCESSFUL'],
      environment_types_filter: ['PRODUCTION'],
    })
    const disabled = await createWebhook(w.organization.id, w.admin, {
      kind: 'STANDARD',
      target_url: receiver.url('/disabled'),
      events: ['DEPLOYMENT_SUCCESSFUL'],
      enabled: false,
    })
    const executionId = await deployAndWait(w.environment.id, w.tokens.deploy.authorization, w.tokens.read.authorization)
    const got = await receiver.waitFor('/match', 2)
    assert.deepEqual(got.map((request) => request.body.event).sort(), ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCESSFUL'])
    const success = got.find((request) => request.body.event === 'DEPLOYMENT_SUCCESSFUL')!
    assert.equal(success.body.execution_id, executionId)
    assert.equal(success.body.project.name, w.project.name)
    assert.equal(success.body.status, 'DEPLOYED')
    assert.equal(success.headers['qovery-signature'], undefined, 'no secret, no signature')
    // The outbox is written with the deployment's change: when it ended, whatever was to be sent is there.
    const rows = await t.db
      .selectFrom('webhookDeliveries')
      .select('webhookId')
      .where('webhookId', 'in', [otherProject.id, otherMode.id, disabled.id, matching.id])
      .execute()
    assert.deepEqual(
      rows.map((row) => row.webhookId),
      [matching.id, matching.id],
    )
    assert.equal(receiver.at('/other-project').length + receiver.at('/other-mode').length + receiver.at('/disabled').length, 0)
  })

  it('sends a SLACK webhook a message Slack accepts: text and blocks naming what, where, the status and a link', async () => {
    const w = await world()
    await createWebhook(w.organization.id, w.admin, { kind: 'SLACK', target_url: receiver.url('/slack'), events: ['DEPLOYMENT_SUCCESSFUL'] })
    await deployAndWait(w.environment.id, w.tokens.deploy.authorization, w.tokens.read.authorization)
    const [message] = await receiver.waitFor('/slack', 1)
    assert.match(message!.body.text, /DEPLOY of .* succeeded/)
    assert.ok(Array.isArray(message!.body.blocks))
    const texts = JSON.stringify(message!.body.blocks)
    assert.ok(texts.includes('DEPLOYED'))
    assert.ok(texts.includes(w.environment.name))
    assert.ok(texts.includes(`/console/#/environment/${w.environment.id}`))
  })
})

describe('a test delivery', () => {
  it('sends an example event marked as a test, even to a disabled webhook, and lists its attempt', async () => {
    const w = await world()
    const hook = await createWebhook(w.organization.id, w.admin, {
      kind: 'STANDARD',
      target_url: receiver.url('/test-delivery'),
      target_secret: 'test-secret',
      events: ['DEPLOYMENT_FAILURE'],
      enabled: false,
    })
    const queued = await calls.inject('POST', `/organization/${w.organization.id}/webhook/${hook.id}/test`, w.admin)
    assert.equal(queued.statusCode, 201, queued.body)
    const [request] = await receiver.waitFor('/test-delivery', 1)
    assert.equal(request!.body.test, true)
    assert.equal(request!.body.event, 'DEPLOYMENT_FAILURE')
    assert.equal(request!.body.organization.name, w.organization.name)
    assert.ok(verifySignatures(request!, 'test-secret'))
    const attempts = await until(
      () => attemptsOf(w.organization.id, hook.id, w.admin),
      (list) => list.length === 1,
      { what: 'the test attempt listed' },
    )
    assert.equal(attempts[0]!.target_response_status_code, 200)
    const refused = await calls.inject('POST', `/organization/${w.organization.id}/webhook/${hook.id}/test`, w.tokens.write.authorization)
    assert.equal(refused.statusCode, 403)
  })
})

describe("a webhook target in the server's own network", () => {
  let guarded: TestApp
  before(async () => {
    guarded = await createTestApp()
  })
  after(() => guarded?.close())

  it("is refused at write time without the operator's setting", async () => {
    const w = await factories(guarded.db).environmentWithTokens()
    for (const target of [receiver.url('/never'), 'http://localhost:9/x', 'https://169.254.169.254/latest', 'https://10.0.0.1/hook']) {
      const res = await guarded.app.inject({
        method: 'POST',
        url: `/organization/${w.organization.id}/webhook`,
        headers: { authorization: w.tokens.admin.authorization },
        payload: { kind: 'STANDARD', target_url: target, events: ['DEPLOYMENT_SUCCESSFUL'] },
      })
      assert.equal(res.statusCode, 400, `${target}: ${res.body}`)
      assert.equal(res.json().errors[0].path, '/target_url')
    }
  })
})
