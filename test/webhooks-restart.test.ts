import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { baseEnv, call, processScenario } from './helpers/berth-processes.ts'
import { until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { startServer } from './helpers/process.ts'
import { startWebhookReceiver } from './helpers/webhook-receiver.ts'

// Issue 45: an event is in the outbox from the moment its deployment changed. `berth serve` killed
// with SIGKILL while delivering it delivers it after a restart.

describe('a server killed between a deployment event and its delivery', () => {
  const scenario = processScenario()

  it('delivers the event after a restart', async () => {
    const receiver = await startWebhookReceiver()
    try {
      // The first request is held unanswered: the server is killed while it waits.
      const target = receiver.url('/restart', ['hold', 200])
      const env = baseEnv(scenario.database, {
        BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
        BERTH_SIMULATED_STEP_MS: '50',
        BERTH_WEBHOOK_TIMEOUT_MS: '3000',
        BERTH_LOG_LEVEL: 'info',
      })
      const first = await scenario.group.add(startServer(env))
      const { organization, environment, tokens } = await factories(scenario.db).environmentWithTokens()
      await factories(scenario.db).helmService(environment.id)
      const hook = await call(first.baseUrl, 'POST', `/organization/${organization.id}/webhook`, tokens.admin.authorization, {
        body: { kind: 'STANDARD', target_url: target, events: ['DEPLOYMENT_SUCCESSFUL'] },
      })
      assert.equal(hook.status, 201, hook.text)
      const deploy = await call(first.baseUrl, 'POST', `/environment/${environment.id}/deploy`, tokens.deploy.authorization)
      assert.equal(deploy.status, 202, deploy.text)

      const [held] = await receiver.waitFor('/restart', 1)
      assert.equal(await first.stop('SIGKILL'), null)
      const pending = await scenario.db.selectFrom('webhookDeliveries').select(['state', 'attempts']).where('webhookId', '=', hook.body.id).execute()
      assert.deepEqual(pending, [{ state: 'PENDING', attempts: 0 }], 'the attempt under way was lost with the process, not the event')

      const second = await scenario.group.add(startServer(env))
      const both = await receiver.waitFor('/restart', 2)
      assert.equal(both[1]!.headers['webhook-id'], held!.headers['webhook-id'], 'the same event')
      assert.equal(both[1]!.body.execution_id, deploy.body.execution_id)
      const attempts = await until(
        async () =>
          (await call(second.baseUrl, 'GET', `/organization/${organization.id}/webhook/${hook.body.id}/event`, tokens.admin.authorization)).body,
        (body) => body.results?.length === 1,
        { what: 'the delivery recorded' },
      )
      assert.equal(attempts.results[0].target_response_status_code, 200)
      const delivered = await scenario.db
        .selectFrom('webhookDeliveries')
        .select('state')
        .where('webhookId', '=', hook.body.id)
        .executeTakeFirstOrThrow()
      assert.equal(delivered.state, 'DELIVERED')
    } finally {
      await receiver.close()
    }
  })
})
