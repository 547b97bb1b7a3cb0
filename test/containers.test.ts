import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { assertError, assertValidationError } from './helpers/assertions.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls, type ServiceEntry } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// Containers through HTTP: request rules, deployments with an image tag, their history details
// (contract 2.7, container shape) and the simulator's steps.

let t: DeploymentsTestApp
let make: ReturnType<typeof factories>
let calls: DeploymentCalls

before(async () => {
  t = await createDeploymentsApp(50)
  make = factories(t.db)
  calls = deploymentCalls(t.app)
})

after(() => t?.close())

describe('containers', () => {
  it('reports every rule a container request breaks in one 400, an unknown registry at /registry_id', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const res = await t.app.inject({
      method: 'POST',
      url: `/environment/${environment.id}/container`,
      headers: { authorization: tokens.write.authorization },
      payload: {
        name: 'web',
        registry_id: randomUUID(),
        image_name: 'Acme/Web:latest',
        tag: '-bad',
        cpu: 100_000,
        min_running_instances: 3,
        max_running_instances: 2,
        healthchecks: {
          readiness_probe: { type: { tcp: { port: 80 }, http: { path: '/' } } },
          liveness_probe: { type: { http: { path: 'health' } } },
        },
        ports: [
          { internal_port: 80, publicly_accessible: true, is_default: true },
          { internal_port: 80, publicly_accessible: false, is_default: true, public_path: '/api' },
        ],
        storage: [
          { type: 'FAST_SSD', size: 10, mount_point: '/data' },
          { type: 'FAST_SSD', size: 10, mount_point: '/data' },
        ],
      },
    })
    const errors = assertValidationError(res)
    assert.deepEqual(errors.map((error) => error.path).sort(), [
      '/cpu',
      '/healthchecks/liveness_probe/type/http/path',
      '/healthchecks/readiness_probe/type',
      '/image_name',
      '/max_running_instances',
      '/ports/1/internal_port',
      '/ports/1/is_default',
      '/ports/1/name',
      '/ports/1/public_path',
      '/registry_id',
      '/storage/1/mount_point',
      '/tag',
    ])
    assert.equal(await t.db.selectFrom('services').select('id').where('environmentId', '=', environment.id).executeTakeFirst(), undefined)
  })

  it('deploys a container with an image tag; the history details say the image, tag, arguments and entrypoint deployed', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const container = await make.containerService(environment.id, {
      image_name: 'acme/api',
      tag: '1.0.0',
      arguments: ['--port', '8080'],
      entrypoint: '/bin/api',
      ports: [{ internal_port: 8080, publicly_accessible: true, is_default: true }],
    })

    const queued = await calls.trigger(`/container/${container.id}/deploy`, tokens.deploy.authorization, { image_tag: '1.2.0' })
    assert.equal(queued.id, container.id)
    assert.equal(queued.state, 'DEPLOYMENT_QUEUED')
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYED')
    assert.deepEqual(
      entry!.stages.map((stage) => [stage.name, stage.services.map((service) => service.identifier.service_type)]),
      [['CONTAINER DEFAULT', ['CONTAINER']]],
    )
    const inEnvironment = entry!.stages[0]!.services[0]!
    assert.deepEqual(inEnvironment.details, { image_name: 'acme/api', tag: '1.2.0', arguments: ['--port', '8080'], entrypoint: '/bin/api' })
    assert.equal(inEnvironment.icon_uri, 'app://berth/container')

    const own = await calls.inject('GET', `/container/${container.id}/deploymentHistoryV2`, tokens.read.authorization)
    assert.equal(own.statusCode, 200, own.body)
    const [serviceEntry] = own.json().results as ServiceEntry[]
    assert.deepEqual(serviceEntry!.details, inEnvironment.details)
    assert.equal(
      (await calls.inject('GET', `/container/${container.id}`, tokens.read.authorization)).json().tag,
      '1.0.0',
      'the configuration keeps its tag',
    )

    const status = await calls.inject('GET', `/container/${container.id}/status`, tokens.read.authorization)
    assert.equal(status.json().state, 'DEPLOYED')

    const logs = await calls.inject('GET', `/environment/${environment.id}/logs?version=${entry!.identifier.execution_id}`, tokens.read.authorization)
    assert.equal(logs.statusCode, 200, logs.body)
    assert.match(logs.body, /pulling image acme\/api:1\.2\.0 from container registry/)
    assert.match(logs.body, /entrypoint \/bin\/api, 2 argument\(s\)/)
    assert.ok(!logs.body.includes('--port'), 'argument values are not logged')

    // A redeploy (RESTART) and a reboot deploy the configured tag again; without a body, deploy takes the configuration's.
    await calls.trigger(`/container/${container.id}/restart-service`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    await calls.trigger(`/container/${container.id}/deploy`, tokens.deploy.authorization)
    const [latest] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(latest!.stages[0]!.services[0]!.details.tag, '1.0.0')

    assertValidationError(await calls.inject('POST', `/container/${container.id}/deploy`, tokens.deploy.authorization, { image_tag: 'no spaces' }))
    assertError(await calls.inject('POST', `/container/${container.id}/deploy`, tokens.read.authorization, { image_tag: '1' }), 403, 'forbidden')
  })

  it('fails a deployment in the simulator when its arguments ask it to', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const container = await make.containerService(environment.id, { arguments: ['berth.simulate.fail=deploy'] })
    await calls.trigger(`/container/${container.id}/deploy`, tokens.deploy.authorization, {})
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYMENT_ERROR')
    await calls.trigger(`/container/${container.id}/stop`, tokens.deploy.authorization)
    const [stopped] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(stopped!.status, 'STOPPED')
  })

  it('is listed with the environment’s other services and statuses, and a helm route does not reach it', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const container = await make.containerService(environment.id)
    const helm = await make.helmService(environment.id)
    const services = await calls.inject('GET', `/environment/${environment.id}/services`, tokens.read.authorization)
    assert.deepEqual(
      services
        .json()
        .results.map((service: { id: string; service_type: string }) => [service.id, service.service_type])
        .sort(),
      [
        [container.id, 'CONTAINER'],
        [helm.id, 'HELM'],
      ].sort(),
    )
    const statuses = await calls.inject('GET', `/environment/${environment.id}/statuses`, tokens.read.authorization)
    assert.deepEqual(
      statuses.json().containers.map((status: { id: string }) => status.id),
      [container.id],
    )
    const own = await calls.inject('GET', `/environment/${environment.id}/container/status`, tokens.read.authorization)
    assert.deepEqual(
      own.json().results.map((status: { id: string; state: string }) => [status.id, status.state]),
      [[container.id, 'READY']],
    )
    const byRegistry = await calls.inject(
      'GET',
      `/organization/${environment.organizationId}/containerRegistry/${container.registryId}/container/status`,
      tokens.read.authorization,
    )
    assert.deepEqual(
      byRegistry.json().results.map((status: { id: string }) => status.id),
      [container.id],
    )
    assertError(await calls.inject('GET', `/helm/${container.id}`, tokens.read.authorization), 404, 'not_found')
    assertError(await calls.inject('GET', `/container/${helm.id}`, tokens.read.authorization), 404, 'not_found')
  })

  it('takes the Terraform provider’s bodies: nulls for what is unset, empty group lists, probes with null types', async () => {
    const { organization, environment, tokens } = await make.environmentWithTokens()
    const registry = await make.containerRegistry(organization.id)
    const body = {
      name: 'tf-web',
      registry_id: registry.id,
      image_name: 'nginx',
      tag: 'latest',
      icon_uri: 'app://qovery-console/container',
      auto_preview: null,
      cpu: 500,
      memory: 512,
      min_running_instances: 1,
      max_running_instances: 1,
      arguments: [],
      storage: [],
      ports: [{ id: null, name: 'p80', internal_port: 80, external_port: 443, publicly_accessible: true, is_default: true, protocol: 'HTTP' }],
      healthchecks: {
        readiness_probe: {
          type: { tcp: { port: 80, host: null }, http: null, exec: null, grpc: null },
          initial_delay_seconds: 30,
          period_seconds: 10,
          timeout_seconds: 5,
          success_threshold: 1,
          failure_threshold: 3,
        },
        liveness_probe: null,
      },
      auto_deploy: null,
      annotations_groups: [],
      labels_groups: [],
    }
    const created = await calls.inject('POST', `/environment/${environment.id}/container`, tokens.write.authorization, body)
    assert.equal(created.statusCode, 201, created.body)
    const container = created.json()
    assert.equal(container.auto_deploy, false)
    assert.equal(container.icon_uri, 'app://qovery-console/container')
    assert.deepEqual(container.healthchecks.readiness_probe.type, { tcp: { port: 80, host: null }, http: null, exec: null, grpc: null })
    // The provider's update sends the port ids it read back.
    const edited = await calls.inject('PUT', `/container/${container.id}`, tokens.write.authorization, {
      ...body,
      tag: '1.27',
      ports: [{ ...body.ports[0], id: container.ports[0].id }],
    })
    assert.equal(edited.statusCode, 200, edited.body)
    assert.equal(edited.json().ports[0].id, container.ports[0].id)
    const stage = await calls.inject('GET', `/service/${container.id}/deploymentStage`, tokens.read.authorization)
    assert.equal(stage.statusCode, 200, stage.body)
  })

  it('keeps ETags: an edit with a stale If-Match is a 412', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const container = await make.containerService(environment.id)
    const read = await calls.inject('GET', `/container/${container.id}`, tokens.read.authorization)
    const etag = read.headers.etag as string
    const body = {
      name: container.name,
      registry_id: container.registryId,
      image_name: 'acme/web',
      tag: '2.0.0',
      healthchecks: {},
    }
    const first = await calls.inject('PUT', `/container/${container.id}`, tokens.write.authorization, body, { 'if-match': etag })
    assert.equal(first.statusCode, 200, first.body)
    assert.notEqual(first.headers.etag, etag)
    assertError(
      await calls.inject('PUT', `/container/${container.id}`, tokens.write.authorization, body, { 'if-match': etag }),
      412,
      'precondition_failed',
    )
    const unchanged = await calls.inject('GET', `/container/${container.id}`, tokens.read.authorization, undefined, {
      'if-none-match': first.headers.etag as string,
    })
    assert.equal(unchanged.statusCode, 304)
  })
})
