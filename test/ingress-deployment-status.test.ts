import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError } from './helpers/assertions.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// getIngressDeploymentStatus on the simulator: the route is deployed with the service, so its state
// follows the service's deployments; a service without a public port has no route.

describe("a service's route status", () => {
  let t: DeploymentsTestApp
  let calls: DeploymentCalls

  before(async () => {
    t = await createDeploymentsApp(5)
    calls = deploymentCalls(t.app)
  })
  after(() => t.close())

  it("follows the service's deployment: its state before, DEPLOYED after, STOPPED after a stop; the same router throughout", async () => {
    const f = factories(t.db)
    const { environment, tokens } = await f.environmentWithTokens()
    const container = await f.containerService(environment.id, {
      ports: [{ internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP', is_default: true }],
    } as never)
    const url = `/CONTAINER/${container.id}/ingressDeploymentStatus`
    const read = async () => {
      const answer = await calls.inject('GET', url, tokens.read.authorization)
      assert.equal(answer.statusCode, 200, answer.body)
      return answer.json() as { routerId: string; status: string }
    }
    const before = await read()
    assert.notEqual(before.status, 'DEPLOYED')
    await calls.trigger(`/container/${container.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const deployed = await read()
    assert.equal(deployed.status, 'DEPLOYED')
    assert.equal(deployed.routerId, before.routerId)
    await calls.trigger(`/container/${container.id}/stop`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal((await read()).status, 'STOPPED')

    // No public port, no route; a kind the route does not serve, a 400; another kind's id, a 404.
    const internal = await f.containerService(environment.id, { ports: [] } as never)
    assertError(await calls.inject('GET', `/CONTAINER/${internal.id}/ingressDeploymentStatus`, tokens.read.authorization), 404, 'not_found')
    assert.equal((await calls.inject('GET', `/DATABASE/${container.id}/ingressDeploymentStatus`, tokens.read.authorization)).statusCode, 400)
    assertError(await calls.inject('GET', `/APPLICATION/${container.id}/ingressDeploymentStatus`, tokens.read.authorization), 404, 'not_found')
  })

  // The sweeps skip this route's cross-organization cases (its first path parameter is a kind word, not a world's resource): here they are.
  it("another organization's service answers as a random id does (404), for every role of the caller; none, 401", async () => {
    const f = factories(t.db)
    const mine = await f.environmentWithTokens()
    const theirs = await f.environmentWithTokens()
    const port = [{ internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP', is_default: true }]
    const container = await f.containerService(theirs.environment.id, { ports: port } as never)
    const own = await calls.inject('GET', `/CONTAINER/${container.id}/ingressDeploymentStatus`, theirs.tokens.read.authorization)
    assert.equal(own.statusCode, 200, own.body)
    for (const token of Object.values(mine.tokens)) {
      const foreign = await calls.inject('GET', `/CONTAINER/${container.id}/ingressDeploymentStatus`, token.authorization)
      const random = await calls.inject('GET', `/CONTAINER/${crypto.randomUUID()}/ingressDeploymentStatus`, token.authorization)
      assertError(foreign, 404, 'not_found')
      assertError(random, 404, 'not_found')
      const words = (body: string) => body.replaceAll(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')
      assert.equal(words(foreign.body), words(random.body))
    }
    assert.equal((await t.app.inject({ method: 'GET', url: `/CONTAINER/${container.id}/ingressDeploymentStatus` })).statusCode, 401)
  })
})
