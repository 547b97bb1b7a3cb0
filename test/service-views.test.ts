import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { assertError, UUID } from './helpers/assertions.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

describe('per-kind statuses, histories, logs and actions', () => {
  let t: DeploymentsTestApp
  let calls: DeploymentCalls

  before(async () => {
    t = await createDeploymentsApp(5)
    calls = deploymentCalls(t.app)
  })
  after(() => t.close())

  /** An environment with one service of each kind that deploys without a git provider, deployed `times` times. */
  async function deployedWorld(times: number) {
    const f = factories(t.db)
    const world = await f.environmentWithTokens()
    const { environment, tokens } = world
    const services = {
      helm: await f.helmService(environment.id),
      database: await f.database(environment.id),
      job: await f.job(environment.id),
      container: await f.containerService(environment.id),
    }
    const requests: string[] = []
    for (let i = 0; i < times; i++) {
      const queued = await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
      requests.push(queued.deployment_request_id)
      await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    }
    return { ...world, services, requests }
  }

  const get = async (url: string, authorization: string): Promise<Body> => {
    const res = await calls.inject('GET', url, authorization)
    assert.equal(res.statusCode, 200, `${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }

  it("lists the statuses of the environment's services of each kind, and of that kind only", async () => {
    const { environment, tokens, services } = await deployedWorld(1)
    for (const [segment, service] of [
      ['helm', services.helm],
      ['database', services.database],
      ['job', services.job],
    ] as const) {
      const { results } = await get(`/environment/${environment.id}/${segment}/status`, tokens.read.authorization)
      assert.deepEqual(
        results.map((status: Body) => status.id),
        [service.id],
        segment,
      )
      assert.notEqual(results[0].state, 'READY', `${segment} was deployed`)
      assert.equal(results[0].service_deployment_status, 'UP_TO_DATE', segment)
    }
    assert.deepEqual((await get(`/environment/${environment.id}/application/status`, tokens.read.authorization)).results, [])
    assertError(await calls.inject('GET', `/environment/${randomUUID()}/helm/status`, tokens.read.authorization), 404, 'not_found')
  })

  it('pages each service’s v1 history by execution id, newest first', async () => {
    const { environment, tokens, services } = await deployedWorld(2)
    const executions = (await calls.entries(environment.id, tokens.read.authorization)).map((entry) => entry.identifier.execution_id)
    assert.equal(executions.length, 2)
    for (const [segment, service] of [
      ['helm', services.helm],
      ['database', services.database],
      ['job', services.job],
      ['container', services.container],
    ] as const) {
      const page = await get(`/${segment}/${service.id}/deploymentHistory`, tokens.read.authorization)
      assert.deepEqual(
        page.results.map((entry: Body) => entry.id),
        executions,
        segment,
      )
      assert.ok(
        page.results.every((entry: Body) => entry.name === service.name && entry.status === 'DEPLOYED'),
        `${segment}: ${JSON.stringify(page.results)}`,
      )
      const next = await get(`/${segment}/${service.id}/deploymentHistory?startId=${executions[0]}`, tokens.read.authorization)
      assert.deepEqual(
        next.results.map((entry: Body) => entry.id),
        executions.slice(1),
        segment,
      )
    }
    const helmEntry = (await get(`/helm/${services.helm.id}/deploymentHistory`, tokens.read.authorization)).results[0]
    assert.deepEqual(helmEntry.repository, { chart_name: 'app', chart_version: '1.0.0' })
    const containerEntry = (await get(`/container/${services.container.id}/deploymentHistory`, tokens.read.authorization)).results[0]
    assert.equal(containerEntry.image_name, 'acme/web')
    assert.equal(containerEntry.tag, '1.0.0')
    // A service of another kind is not found under this kind's path.
    assertError(await calls.inject('GET', `/helm/${services.job.id}/deploymentHistory`, tokens.read.authorization), 404, 'not_found')
  })

  it("lists the newest deployment's log lines with stable UUIDs and their scope", async () => {
    const { environment, tokens, services } = await deployedWorld(1)
    const first = await get(`/environment/${environment.id}/log`, tokens.read.authorization)
    assert.ok(first.results.length > 0)
    assert.ok(first.results.every((line: Body) => UUID.test(line.id)))
    assert.deepEqual(await get(`/environment/${environment.id}/log`, tokens.read.authorization), first)
    const detailed = await get(`/environment/${environment.id}/logs`, tokens.read.authorization)
    assert.equal(first.results.length, detailed.length)
    assert.deepEqual(
      first.results.map((line: Body) => line.message),
      detailed.map((line: Body) => line.message.safe_message),
    )
    const scopes = new Set(first.results.map((line: Body) => `${line.scope.type} ${line.scope.id}`))
    assert.ok(scopes.has(`ENVIRONMENT ${environment.id}`), [...scopes].join(', '))
    assert.ok(scopes.has(`DATABASE ${services.database.id}`), [...scopes].join(', '))
    assert.ok(scopes.has(`APPLICATION ${services.helm.id}`), [...scopes].join(', '))
    const fresh = await factories(t.db).environmentWithTokens()
    assert.deepEqual(await get(`/environment/${fresh.environment.id}/log`, fresh.tokens.read.authorization), { results: [] })
  })

  it('tells a deployment request’s state and environment, and nothing of another organization’s', async () => {
    const { environment, tokens, requests } = await deployedWorld(1)
    const status = await get(`/environment/deploymentStatus?deploymentRequestId=${requests[0]}`, tokens.read.authorization)
    assert.deepEqual(status, { deployment_request_id: requests[0], environment_id: environment.id, status: 'DEPLOYED' })
    const stranger = await factories(t.db).organizationWithTokens()
    const hidden = await calls.inject('GET', `/environment/deploymentStatus?deploymentRequestId=${requests[0]}`, stranger.tokens.admin.authorization)
    assertError(hidden, 404, 'not_found')
    const unknown = await calls.inject('GET', `/environment/deploymentStatus?deploymentRequestId=${randomUUID()}`, tokens.read.authorization)
    assert.equal(unknown.body.replace(/"request_id":"[^"]*"/, ''), hidden.body.replace(/"request_id":"[^"]*"/, ''))
  })

  it('queues one run that uninstalls every service, and needs the DEPLOY role', async () => {
    const f = factories(t.db)
    const { environment, tokens } = await f.environmentWithTokens()
    const helm = await f.helmService(environment.id)
    const database = await f.database(environment.id)
    await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)

    assertError(await calls.inject('POST', `/environment/${environment.id}/uninstall`, tokens.read.authorization), 403, 'forbidden')
    assert.deepEqual(await calls.trigger(`/environment/${environment.id}/uninstall`, tokens.deploy.authorization), {})
    const [newest] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(newest!.trigger_action, 'UNINSTALL')
    assert.deepEqual(
      newest!.stages
        .flatMap((stage) => stage.services)
        .map((service) => service.identifier.service_id)
        .sort(),
      [helm.id, database.id].sort(),
    )
    // The services stay, uninstalled.
    const statuses = (await calls.inject('GET', `/environment/${environment.id}/statuses`, tokens.read.authorization)).json()
    assert.equal(statuses.helms[0].id, helm.id)
    assert.notEqual(statuses.helms[0].state, 'DEPLOYED')
    const empty = await f.environmentWithTokens()
    assert.deepEqual(await calls.trigger(`/environment/${empty.environment.id}/uninstall`, empty.tokens.deploy.authorization), {})
  })
  it('deploys the tag to the containers and jobs of the image with auto_deploy on, and to no other', async () => {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const registry = await f.containerRegistry(organization.id)
    const following = await f.containerService(environment.id, { image_name: 'acme/web', tag: '1.0.0', auto_deploy: true, registry_id: registry.id })
    const pinned = await f.containerService(environment.id, { image_name: 'acme/web', tag: '1.0.0', auto_deploy: false, registry_id: registry.id })
    const other = await f.containerService(environment.id, { image_name: 'acme/api', tag: '1.0.0', auto_deploy: true, registry_id: registry.id })
    const job = await f.job(environment.id, {
      auto_deploy: true,
      source: { image: { image_name: 'acme/migrate', tag: '1', registry_id: registry.id } },
    })
    const url = `/organization/${organization.id}/container/deploy`

    assertError(await calls.inject('POST', url, tokens.read.authorization, { image_name: 'acme/web', tag: '2.0.0' }), 403, 'forbidden')
    const status = await calls.trigger(url, tokens.deploy.authorization, { image_name: 'acme/web', tag: '2.0.0' })
    assert.equal(status.id, following.id)
    const jobStatus = await calls.trigger(`/organization/${organization.id}/job/deploy`, tokens.deploy.authorization, {
      image_name: 'acme/migrate',
      tag: '2',
    })
    assert.equal(jobStatus.id, job.id)
    const entries = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const deployed = entries.flatMap((entry) => entry.stages.flatMap((stage) => stage.services))
    assert.deepEqual(deployed.map((service) => service.identifier.service_id).sort(), [following.id, job.id].sort())
    assert.equal((deployed.find((service) => service.identifier.service_id === following.id)!.details as { tag: string }).tag, '2.0.0')
    assert.ok(![pinned.id, other.id].some((id) => deployed.some((service) => service.identifier.service_id === id)))
    // An image nothing auto-deploys: nothing to deploy.
    assertError(await calls.inject('POST', url, tokens.deploy.authorization, { image_name: 'acme/none', tag: '2.0.0' }), 400, 'validation_failed')
    assertError(await calls.inject('POST', url, tokens.read.authorization, { image_name: 'acme/none', tag: '2.0.0' }), 403, 'forbidden')
  })
})
