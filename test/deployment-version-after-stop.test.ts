/**
 * Issue 42 ("Deployed at a tag, then stopped and started, it runs another tag"): a container
 * deployed with `image_tag: "2"` while configured at `1.0.0` reads OUT_OF_DATE (what runs differs
 * from the configuration); a stop and a redeploy after it are of what runs, tag 2, and say so; a
 * plain deploy runs the configured tag again and is UP_TO_DATE. A chart_version deploy reads
 * OUT_OF_DATE alike. docs/deployments.md, "What runs after a deploy of another version".
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

describe('the version that runs after a deploy of another one (issue 42)', () => {
  let t: DeploymentsTestApp
  let calls: DeploymentCalls
  let f: ReturnType<typeof factories>

  before(async () => {
    t = await createDeploymentsApp(0)
    calls = deploymentCalls(t.app)
    f = factories(t.db)
  })
  after(async () => t?.close())

  it('a container deployed at image_tag 2 is OUT_OF_DATE; stopped and redeployed it runs 2; a plain deploy runs its configured tag', async () => {
    const { environment, tokens } = await f.environmentWithTokens()
    const container = await f.containerService(environment.id, { tag: '1.0.0' })
    const status = async () => {
      const res = await calls.inject('GET', `/container/${container.id}/status`, tokens.read.authorization)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().service_deployment_status as string
    }
    const tagOfNewest = async (action: string) => {
      const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
      assert.equal(entry?.trigger_action, action)
      assert.equal(entry?.action_status, 'SUCCESS', JSON.stringify(entry))
      return entry!.stages.flatMap((stage) => stage.services)[0]!.details.tag as string
    }

    await calls.trigger(`/container/${container.id}/deploy`, tokens.deploy.authorization)
    assert.equal(await tagOfNewest('DEPLOY'), '1.0.0')
    assert.equal(await status(), 'UP_TO_DATE')

    await calls.trigger(`/container/${container.id}/deploy`, tokens.deploy.authorization, { image_tag: '2' })
    assert.equal(await tagOfNewest('DEPLOY'), '2')
    assert.equal(await status(), 'OUT_OF_DATE', 'tag 2 runs against a configured 1.0.0')

    await calls.trigger(`/container/${container.id}/stop`, tokens.deploy.authorization)
    assert.equal(await tagOfNewest('STOP'), '2', 'the stop is of what ran')
    await calls.trigger(`/container/${container.id}/redeploy`, tokens.deploy.authorization)
    assert.equal(await tagOfNewest('RESTART'), '2', 'a start after a stop runs what ran before it')
    assert.equal(await status(), 'OUT_OF_DATE')

    // A plain deploy deploys the configuration again.
    await calls.trigger(`/container/${container.id}/deploy`, tokens.deploy.authorization)
    assert.equal(await tagOfNewest('DEPLOY'), '1.0.0')
    assert.equal(await status(), 'UP_TO_DATE')
    await calls.trigger(`/container/${container.id}/redeploy`, tokens.deploy.authorization)
    assert.equal(await tagOfNewest('RESTART'), '1.0.0')
    assert.equal(await status(), 'UP_TO_DATE')
  })

  it('a chart_version deploy of another version reads OUT_OF_DATE until the configured one runs', async () => {
    const { environment, tokens } = await f.environmentWithTokens()
    const helm = await f.helmService(environment.id)
    await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization, { chart_version: '2.0.0' })
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal((await calls.helmStatus(helm.id, tokens.read.authorization)).service_deployment_status, 'OUT_OF_DATE')
    assert.equal((await calls.environmentStatus(environment.id, tokens.read.authorization)).deployment_status, 'OUT_OF_DATE')
    await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization, { chart_version: '1.0.0' })
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal((await calls.helmStatus(helm.id, tokens.read.authorization)).service_deployment_status, 'UP_TO_DATE')
  })
})
