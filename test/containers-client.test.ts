import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import {
  Configuration,
  ContainerMainCallsApi,
  ContainerRegistriesApi,
  type ContainerRequest,
  ContainersApi,
  OrganizationMainCallsApi,
} from 'qovery-typescript-axios'
import { createTestApp, type TestApp, testSecretBox } from './helpers/app.ts'
import { rejectedStatus } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// Container registries and containers through the official TypeScript client, with the bodies the
// Terraform provider's qovery_container_registry and qovery_container send.

describe('container registries and containers through the official client', () => {
  let t: TestApp
  let basePath: string

  before(async () => {
    t = await createTestApp()
    basePath = await t.listen()
  })
  after(() => t.close())

  it('creates, reads, edits and deletes a registry; the password is never returned and an edit that leaves it out keeps it', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const registries = new ContainerRegistriesApi(new Configuration({ basePath, apiKey: tokens.write.authorization }))
    const password = `ghp_${randomUUID()}`

    const { data: created, status } = await registries.createContainerRegistry(organization.id, {
      name: 'GitHub packages',
      kind: 'GITHUB_CR',
      description: 'images of acme',
      config: { username: 'robot', password },
    })
    assert.equal(status, 201)
    assert.equal(created.url, 'https://ghcr.io', 'GITHUB_CR defaults to its one address')
    assert.deepEqual(created.config, { username: 'robot' })
    assert.equal(created.associated_services_count, 0)
    assert.ok(!JSON.stringify(created).includes(password))

    const { data: read } = await registries.getContainerRegistry(organization.id, created.id)
    assert.deepEqual(read, created)

    // As the Terraform provider sends an edit: every field, secrets only when its configuration holds them.
    const { data: edited } = await registries.editContainerRegistry(organization.id, created.id, {
      name: 'GitHub',
      kind: 'GITHUB_CR',
      url: 'https://ghcr.io',
      description: 'renamed',
      config: { username: 'robot2' },
    })
    assert.equal(edited.name, 'GitHub')
    assert.deepEqual(edited.config, { username: 'robot2' })
    const row = await t.db.selectFrom('containerRegistries').select('secretsSealed').where('id', '=', created.id).executeTakeFirstOrThrow()
    assert.ok(row.secretsSealed && !row.secretsSealed.toString('latin1').includes(password), 'sealed at rest')
    assert.equal(JSON.parse(testSecretBox().open(row.secretsSealed)).password, password, 'the edit that left the password out kept it')

    const { data: list } = await registries.listContainerRegistry(organization.id)
    assert.deepEqual(
      list.results?.map((registry) => registry.id),
      [created.id],
    )
    assert.ok(!JSON.stringify(list).includes(password))

    const { data: available } = await registries.listAvailableContainerRegistry()
    const ecr = available.results?.find((kind) => kind.kind === 'ECR')
    assert.deepEqual(ecr, {
      kind: 'ECR',
      required_config: { region: 'string', access_key_id: 'string', secret_access_key: 'string' },
      is_mandatory: true,
    })

    assert.equal((await registries.deleteContainerRegistry(organization.id, created.id)).status, 204)
    assert.equal(await rejectedStatus(registries.getContainerRegistry(organization.id, created.id)), 404)
  })

  it('creates, reads, edits and deletes a container; its registry is in use meanwhile', async () => {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const registry = await f.containerRegistry(organization.id, { name: 'Docker Hub', kind: 'DOCKER_HUB', url: 'https://docker.io' })
    const configuration = new Configuration({ basePath, apiKey: tokens.write.authorization })
    const containers = new ContainersApi(configuration)
    const main = new ContainerMainCallsApi(configuration)
    const registries = new ContainerRegistriesApi(configuration)

    const request: ContainerRequest = {
      name: 'web',
      description: 'front',
      registry_id: registry.id,
      image_name: 'library/nginx',
      tag: '1.27',
      arguments: ['-g', 'daemon off;'],
      entrypoint: '/docker-entrypoint.sh',
      cpu: 250,
      memory: 256,
      min_running_instances: 1,
      max_running_instances: 3,
      auto_preview: false,
      auto_deploy: true,
      ports: [{ name: 'http', internal_port: 80, external_port: 443, publicly_accessible: true, is_default: true, protocol: 'HTTP' }],
      storage: [{ type: 'FAST_SSD', size: 10, mount_point: '/data' }],
      healthchecks: {
        readiness_probe: {
          type: { http: { path: '/healthz', scheme: 'HTTP', port: 80 } },
          initial_delay_seconds: 5,
          period_seconds: 10,
          timeout_seconds: 2,
          success_threshold: 1,
          failure_threshold: 3,
        },
        liveness_probe: null,
      },
    }
    const { data: created, status } = await containers.createContainer(environment.id, request)
    assert.equal(status, 201)
    assert.equal(created.service_type, 'CONTAINER')
    assert.deepEqual(created.registry, { id: registry.id, name: 'Docker Hub', url: 'https://docker.io', kind: 'DOCKER_HUB' })
    assert.deepEqual(
      [created.image_name, created.tag, created.arguments, created.entrypoint, created.cpu, created.memory, created.gpu],
      ['library/nginx', '1.27', ['-g', 'daemon off;'], '/docker-entrypoint.sh', 250, 256, 0],
    )
    assert.equal(created.max_running_instances, 3)
    assert.equal(created.ports?.[0]?.public_path, '/')
    assert.equal(created.storage?.[0]?.size, 10)
    assert.deepEqual(created.healthchecks.readiness_probe?.type?.http, { path: '/healthz', scheme: 'HTTP', port: 80 })
    assert.equal(created.healthchecks.liveness_probe, null)

    assert.deepEqual((await main.getContainer(created.id)).data, created)
    assert.equal((await registries.getContainerRegistry(organization.id, registry.id)).data.associated_services_count, 1)
    const { data: associated } = await new OrganizationMainCallsApi(configuration).getContainerRegistryAssociatedServices(
      organization.id,
      registry.id,
    )
    assert.deepEqual(
      associated.results?.map((service) => [service.service_id, service.service_name, service.service_type, service.environment_id]),
      [[created.id, 'web', 'CONTAINER', environment.id]],
    )
    assert.equal(await rejectedStatus(registries.deleteContainerRegistry(organization.id, registry.id)), 409)

    // An edit that names the port and storage by id keeps them; defaults fill what it leaves out.
    const portId = created.ports![0]!.id
    const storageId = created.storage![0]!.id
    const { data: edited } = await main.editContainer(created.id, {
      name: 'web',
      registry_id: registry.id,
      image_name: 'library/nginx',
      tag: '1.28',
      healthchecks: {},
      ports: [{ id: portId, name: 'www', internal_port: 8080, publicly_accessible: true, protocol: 'HTTP' }],
      storage: [{ id: storageId, type: 'FAST_SSD', size: 20, mount_point: '/data' }],
    })
    assert.equal(edited.tag, '1.28')
    assert.deepEqual([edited.cpu, edited.memory, edited.min_running_instances, edited.max_running_instances], [500, 512, 1, 1])
    assert.deepEqual(edited.arguments, [])
    assert.equal(edited.entrypoint, undefined)
    assert.deepEqual(
      edited.ports?.map((port) => [port.id, port.name, port.internal_port, port.external_port]),
      [[portId, 'www', 8080, 443]],
    )
    assert.deepEqual(
      edited.storage?.map((volume) => [volume.id, volume.size]),
      [[storageId, 20]],
    )
    assert.equal(edited.auto_deploy, false)

    const { data: list } = await containers.listContainer(environment.id)
    assert.deepEqual(list.results, [edited])

    const { data: links } = await main.listContainerLinks(created.id)
    const host = `z${created.id.replaceAll('-', '').slice(0, 8)}-z${environment.id.replaceAll('-', '').slice(0, 8)}.berth.local`
    assert.deepEqual(
      links.results?.map((link) => [link.url, link.internal_port, link.external_port, link.is_default]),
      [[`https://p443-${host}`, 8080, 443, false]],
    )

    assert.equal((await main.deleteContainer(created.id)).status, 204)
    assert.equal(await rejectedStatus(main.getContainer(created.id)), 404)
    assert.equal((await registries.deleteContainerRegistry(organization.id, registry.id)).status, 204)
  })
})
