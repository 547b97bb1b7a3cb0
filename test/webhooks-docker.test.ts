import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { DeploymentCalls, DeploymentsTestApp } from './helpers/deployments.ts'
import { buildScriptImage, type LoopbackRegistry } from './helpers/docker.ts'
import { createContainer, readinessProbe, registryWorld, startDockerSuite, stopDockerSuite, webContainerRequest } from './helpers/docker-world.ts'
import { startWebhookReceiver, verifySignatures, type WebhookReceiver } from './helpers/webhook-receiver.ts'

// Issue 45, done means: a successful and a failed deployment of a Docker container each reach a
// real receiver on loopback once, with the documented body (docs/webhooks.md) and both signatures.

const WEB_SCRIPT = `#!/bin/sh
mkdir -p /tmp/www && echo hello > /tmp/www/index.html
trap 'exit 0' TERM
httpd -f -p 8080 -h /tmp/www &
wait
`

let t: DeploymentsTestApp
let calls: DeploymentCalls
let registry: LoopbackRegistry
let receiver: WebhookReceiver
const environments: string[] = []

before(async () => {
  receiver = await startWebhookReceiver()
  ;({ registry, t, calls } = await startDockerSuite({ BERTH_PUBLIC_URL: 'https://berth.example.com' }, async (registry) => {
    await buildScriptImage('berth-test/webhook-web:build', 'serve.sh', WEB_SCRIPT)
    await registry.push('berth-test/webhook-web:build', 'webhook-web', '1')
  }))
})

after(async () => {
  await stopDockerSuite({ t, registry }, environments)
  await receiver?.close()
})

describe('webhooks on Docker deployments', () => {
  it('a successful and a failed container deployment each reach the receiver once, with the documented body and both signatures', async () => {
    const w = await registryWorld(t, calls, registry, environments)
    const admin = w.tokens.admin.authorization
    const secret = 'a-shared-secret-for-the-receiver'
    const hook = await calls.inject('POST', `/organization/${w.organization.id}/webhook`, admin, {
      kind: 'STANDARD',
      target_url: receiver.url('/docker'),
      target_secret: secret,
      events: ['DEPLOYMENT_SUCCESSFUL', 'DEPLOYMENT_FAILURE'],
    })
    assert.equal(hook.statusCode, 201, hook.body)

    const containerId = await createContainer(
      calls,
      w,
      webContainerRequest(w.registryId, { imageName: 'webhook-web', tag: '1' }, readinessProbe('http', 10)),
    )
    const good = await calls.trigger(`/container/${containerId}/deploy`, w.tokens.deploy.authorization)
    const [deployed] = await calls.waitUntilIdle(w.environment.id, w.tokens.read.authorization)
    assert.equal(deployed!.status, 'DEPLOYED', JSON.stringify(deployed))

    const [success] = await receiver.waitFor('/docker', 1, 60_000)
    assert.ok(verifySignatures(success!, secret), 'Qovery-Signature and the Standard Webhooks signature')
    assert.equal(success!.headers['content-type'], 'application/json')
    const body = success!.body
    assert.equal(body.event, 'DEPLOYMENT_SUCCESSFUL')
    assert.equal(body.id, success!.headers['webhook-id'])
    assert.deepEqual(body.organization, { id: w.organization.id, name: w.organization.name })
    assert.deepEqual(body.project, { id: w.project.id, name: w.project.name })
    assert.deepEqual(body.environment, { id: w.environment.id, name: w.environment.name, mode: 'DEVELOPMENT' })
    assert.equal(body.execution_id, good.execution_id)
    assert.equal(body.trigger_action, 'DEPLOY')
    assert.equal(body.status, 'DEPLOYED')
    assert.equal(body.action_status, 'SUCCESS')
    assert.equal(body.origin, 'API')
    assert.equal(body.triggered_by, deployed!.auditing_data.triggered_by)
    assert.ok(body.triggered_by.length > 0)
    assert.equal(body.services.length, 1)
    assert.equal(body.services[0].id, containerId)
    assert.equal(body.services[0].name, 'web')
    assert.equal(body.services[0].type, 'CONTAINER')
    assert.equal(body.services[0].version, 'webhook-web:1')
    assert.ok(Date.parse(body.created_at) <= Date.parse(body.updated_at))
    assert.equal(body.console_url, `https://berth.example.com/console/#/environment/${w.environment.id}/deployments`)

    const edited = await calls.inject('PUT', `/container/${containerId}`, w.tokens.write.authorization, {
      ...webContainerRequest(w.registryId, { imageName: 'webhook-web', tag: 'no-such-tag' }, readinessProbe('http', 10)),
    })
    assert.equal(edited.statusCode, 200, edited.body)
    const bad = await calls.trigger(`/container/${containerId}/deploy`, w.tokens.deploy.authorization)
    const [failed] = await calls.waitUntilIdle(w.environment.id, w.tokens.read.authorization)
    assert.equal(failed!.action_status, 'ERROR', JSON.stringify(failed))

    const both = await receiver.waitFor('/docker', 2, 60_000)
    const failure = both[1]!
    assert.ok(verifySignatures(failure, secret))
    assert.equal(failure.body.event, 'DEPLOYMENT_FAILURE')
    assert.equal(failure.body.execution_id, bad.execution_id)
    assert.equal(failure.body.status, 'DEPLOYMENT_ERROR')
    assert.equal(failure.body.services[0].version, 'webhook-web:no-such-tag')
    assert.ok(failure.body.message, 'says why')
    assert.notEqual(failure.headers['webhook-id'], success!.headers['webhook-id'])
    assert.equal(receiver.at('/docker').length, 2, 'each event once')
  })
})
