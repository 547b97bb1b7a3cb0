import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// Issue 35, "Going back", with the simulated executor: what a rollback restores beyond the
// configuration (a deploy's chart version), and which services an environment's rollback takes.

let t: DeploymentsTestApp
let make: ReturnType<typeof factories>
let calls: DeploymentCalls

before(async () => {
  t = await createDeploymentsApp(0)
  make = factories(t.db)
  calls = deploymentCalls(t.app)
})

after(() => t?.close())

const servicesOf = (entry: { stages: { services: { identifier: { service_id: string }; details: unknown }[] }[] }) =>
  entry.stages.flatMap((stage) => stage.services)

async function snapshotOf(executionId: string, serviceId: string) {
  return t.db
    .selectFrom('deploymentSnapshots')
    .select(['configuration', 'overrides', 'variablesFingerprint'])
    .where('executionId', '=', executionId)
    .where('serviceId', '=', serviceId)
    .executeTakeFirstOrThrow()
}

describe('rollbacks of what a deploy named', () => {
  it("restores a helm deploy's chart_version, not the configured one, and the snapshot of then", async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    const first = await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization, { chart_version: '2.0.0' })
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization, {})
    const [plain] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.deepEqual(servicesOf(plain!)[0]!.details, { repository: { chart_name: 'app', chart_version: '1.0.0' } })

    const rolledBack = await calls.trigger(`/helm/${helm.id}/rollback`, tokens.deploy.authorization, { execution_id: first.execution_id })
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.identifier.execution_id, rolledBack.execution_id)
    assert.equal(entry!.trigger_action, 'DEPLOY')
    assert.equal(entry!.status, 'DEPLOYED')
    assert.deepEqual(servicesOf(entry!)[0]!.details, {
      repository: { chart_name: 'app', chart_version: '2.0.0' },
      restores_execution_id: first.execution_id,
    })
    const [then, now] = await Promise.all([snapshotOf(first.execution_id, helm.id), snapshotOf(rolledBack.execution_id, helm.id)])
    assert.deepEqual(now, then)
    // The restored chart_version is not the configured one: what runs differs from the configuration (issue 42).
    const status = await calls.inject('GET', `/helm/${helm.id}/status`, tokens.read.authorization)
    assert.equal(status.json().service_deployment_status, 'OUT_OF_DATE')
  })

  it("an environment's rollback restores the services that execution deployed and are still there; others are left alone", async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const kept = await make.helmService(environment.id)
    const deleted = await make.helmService(environment.id)
    const whole = await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)

    // A service deleted since stays deleted; one created since is not part of the rollback.
    const removed = await calls.inject('DELETE', `/helm/${deleted.id}`, tokens.write.authorization)
    assert.equal(removed.statusCode, 204, removed.body)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const added = await make.helmService(environment.id)

    const rolledBack = await calls.trigger(`/environment/${environment.id}/rollback`, tokens.deploy.authorization, {
      execution_id: whole.execution_id,
    })
    assert.equal(rolledBack.state, 'DEPLOYMENT_QUEUED')
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.identifier.execution_id, rolledBack.execution_id)
    assert.equal(entry!.action_status, 'SUCCESS')
    assert.deepEqual(
      servicesOf(entry!).map((service) => [service.identifier.service_id, (service.details as Record<string, unknown>).restores_execution_id]),
      [[kept.id, whole.execution_id]],
    )
    assert.ok(!servicesOf(entry!).some((service) => service.identifier.service_id === added.id))

    // An execution whose services are all gone has nothing to restore.
    const lone = await make.helmService(environment.id)
    const loneDeploy = await calls.trigger(`/helm/${lone.id}/deploy`, tokens.deploy.authorization, {})
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal((await calls.inject('DELETE', `/helm/${lone.id}`, tokens.write.authorization)).statusCode, 204)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const nothing = await calls.inject('POST', `/environment/${environment.id}/rollback`, tokens.deploy.authorization, {
      execution_id: loneDeploy.execution_id,
    })
    assert.equal(nothing.statusCode, 400, nothing.body)
    assert.match(nothing.json().errors[0].message, /deployed no service that is still in this environment/)
  })
})
