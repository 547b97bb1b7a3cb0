import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  Configuration,
  ContainerMainCallsApi,
  ContainersApi,
  DatabaseMainCallsApi,
  DatabasesApi,
  JobMainCallsApi,
  OrganizationAnnotationsGroupApi,
  OrganizationAnnotationsGroupScopeEnum,
  OrganizationLabelsGroupApi,
} from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, rejectedStatus } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// Labels groups and annotations groups (issue 20) through the official client, with the calls the
// Terraform provider's qovery_labels_group and qovery_annotations_group make, and attached to services.

describe('labels and annotations groups through the official client', () => {
  let t: TestApp
  let basePath: string

  before(async () => {
    t = await createTestApp()
    basePath = await t.listen()
  })
  after(() => t.close())

  const apis = (authorization: string) => {
    const configuration = new Configuration({ basePath, apiKey: authorization })
    return {
      labels: new OrganizationLabelsGroupApi(configuration),
      annotations: new OrganizationAnnotationsGroupApi(configuration),
      containers: new ContainersApi(configuration),
      databases: new DatabasesApi(configuration),
      container: new ContainerMainCallsApi(configuration),
      database: new DatabaseMainCallsApi(configuration),
      job: new JobMainCallsApi(configuration),
    }
  }

  it("replays the provider's qovery_labels_group: create, read, update, read, delete (read first), read → 404", async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const { labels } = apis(tokens.write.authorization)
    const request = { name: 'team', labels: [{ key: 'team', value: 'payments', propagate_to_cloud_provider: true }] }

    const { data: created, status } = await labels.createOrganizationLabelsGroup(organization.id, request)
    assert.equal(status, 201)
    assert.equal(created.name, 'team')
    assert.deepEqual(created.labels, request.labels)
    assert.ok(created.id && created.created_at)

    const { data: read } = await labels.getOrganizationLabelssGroup(organization.id, created.id)
    assert.deepEqual(read, created)

    const update = {
      name: 'team-2',
      labels: [
        { key: 'team', value: 'billing', propagate_to_cloud_provider: false },
        { key: 'tier', value: 'gold', propagate_to_cloud_provider: true },
      ],
    }
    const { data: updated } = await labels.editOrganizationLabelsGroup(organization.id, created.id, update)
    assert.equal(updated.name, 'team-2')
    assert.deepEqual(updated.labels, update.labels, 'the order written is the order read')
    assert.deepEqual((await labels.getOrganizationLabelssGroup(organization.id, created.id)).data, updated)

    const { data: list } = await labels.listOrganizationLabelsGroup(organization.id)
    assert.deepEqual(
      (list.results as unknown as { id: string; associated_items_count: number }[]).map(({ id, associated_items_count }) => ({
        id,
        associated_items_count,
      })),
      [{ id: created.id, associated_items_count: 0 }],
    )

    // The provider's Delete reads first and treats a 404 as already deleted.
    await labels.getOrganizationLabelssGroup(organization.id, created.id)
    assert.equal((await labels.deleteOrganizationLabelsGroup(organization.id, created.id)).status, 204)
    assert.equal(await rejectedStatus(labels.getOrganizationLabelssGroup(organization.id, created.id)), 404)
  })

  it("replays the provider's qovery_annotations_group and keeps its scopes", async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const { annotations } = apis(tokens.write.authorization)
    const request = {
      name: 'monitoring',
      annotations: [{ key: 'prometheus.io/scrape', value: 'true' }],
      scopes: [OrganizationAnnotationsGroupScopeEnum.DEPLOYMENTS, OrganizationAnnotationsGroupScopeEnum.PODS],
    }
    const { data: created, status } = await annotations.createOrganizationAnnotationsGroup(organization.id, request)
    assert.equal(status, 201)
    assert.deepEqual({ name: created.name, annotations: created.annotations, scopes: created.scopes }, request)
    assert.deepEqual((await annotations.getOrganizationAnnotationsGroup(organization.id, created.id)).data, created)

    const { data: updated } = await annotations.editOrganizationAnnotationsGroup(organization.id, created.id, {
      ...request,
      scopes: [OrganizationAnnotationsGroupScopeEnum.SERVICES],
    })
    assert.deepEqual(updated.scopes, ['SERVICES'])
    assert.equal((await annotations.deleteOrganizationAnnotationsGroup(organization.id, created.id)).status, 204)
    assert.equal(await rejectedStatus(annotations.getOrganizationAnnotationsGroup(organization.id, created.id)), 404)
  })

  it('refuses malformed groups with 400 naming the field', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const headers = { authorization: tokens.write.authorization }
    const labels = await t.app.inject({
      method: 'POST',
      url: `/organization/${organization.id}/labelsGroups`,
      headers,
      payload: { name: 'x', labels: [{ key: '', value: 'v', propagate_to_cloud_provider: true }] },
    })
    assert.ok(assertError(labels, 400, 'validation_failed').errors?.some((error) => error.path === '/labels/0/key'))
    const annotations = await t.app.inject({
      method: 'POST',
      url: `/organization/${organization.id}/annotationsGroups`,
      headers,
      payload: { name: 'x', annotations: [], scopes: ['NOT_A_SCOPE'] },
    })
    assert.ok(assertError(annotations, 400, 'validation_failed').errors?.some((error) => error.path === '/scopes/0'))
  })

  it('READ and DEPLOY read groups, WRITE writes them, and another organization sees a 404', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const other = await factories(t.db).organizationWithTokens()
    const { data: group } = await apis(tokens.write.authorization).labels.createOrganizationLabelsGroup(organization.id, { name: 'g', labels: [] })
    assert.equal((await apis(tokens.read.authorization).labels.getOrganizationLabelssGroup(organization.id, group.id)).status, 200)
    assert.equal(
      await rejectedStatus(apis(tokens.deploy.authorization).labels.createOrganizationLabelsGroup(organization.id, { name: 'h', labels: [] })),
      403,
    )
    assert.equal(await rejectedStatus(apis(tokens.read.authorization).labels.deleteOrganizationLabelsGroup(organization.id, group.id)), 403)
    assert.equal(await rejectedStatus(apis(other.tokens.admin.authorization).labels.getOrganizationLabelssGroup(organization.id, group.id)), 404)
    // Its own organization's path with another organization's group id: no such group there.
    assert.equal(
      await rejectedStatus(apis(other.tokens.admin.authorization).labels.getOrganizationLabelssGroup(other.organization.id, group.id)),
      404,
    )
  })

  it('attaches groups to containers, databases and jobs, renders them in full, counts them, and refuses to delete them while attached (409)', async () => {
    const f = factories(t.db)
    const { organization, tokens, environment } = await f.environmentWithTokens()
    const {
      labels,
      annotations,
      containers,
      databases,
      container: containerCalls,
      database: databaseCalls,
      job: jobCalls,
    } = apis(tokens.write.authorization)
    const { data: labelsGroup } = await labels.createOrganizationLabelsGroup(organization.id, {
      name: 'team',
      labels: [{ key: 'team', value: 'payments', propagate_to_cloud_provider: false }],
    })
    const { data: annotationsGroup } = await annotations.createOrganizationAnnotationsGroup(organization.id, {
      name: 'scrape',
      annotations: [{ key: 'a', value: 'b' }],
      scopes: [OrganizationAnnotationsGroupScopeEnum.PODS],
    })
    const registry = await f.containerRegistry(organization.id)

    // As the provider's qovery_container sends them: [{id}] lists.
    const { data: container } = await containers.createContainer(environment.id, {
      name: 'web',
      registry_id: registry.id,
      image_name: 'acme/web',
      tag: '1',
      healthchecks: {},
      labels_groups: [{ id: labelsGroup.id }],
      annotations_groups: [{ id: annotationsGroup.id }],
    })
    assert.deepEqual(container.labels_groups, [labelsGroup])
    assert.deepEqual(container.annotations_groups, [annotationsGroup])
    assert.deepEqual((await containerCalls.getContainer(container.id)).data.labels_groups, [labelsGroup])

    const { data: database } = await databases.createDatabase(environment.id, {
      name: 'db',
      type: 'POSTGRESQL',
      version: '16',
      mode: 'CONTAINER',
      labels_groups: [{ id: labelsGroup.id }],
    })
    assert.deepEqual(database.labels_groups, [labelsGroup])
    assert.deepEqual(database.annotations_groups, [])
    // A partial edit that leaves the groups out keeps them.
    const { data: renamed } = await databaseCalls.editDatabase(database.id, { name: 'db2' })
    assert.deepEqual(renamed.labels_groups, [labelsGroup])

    const job = await f.job(environment.id)
    const { data: jobRead } = await jobCalls.getJob(job.id)
    assert.deepEqual((jobRead as { labels_groups: unknown[] }).labels_groups, [])

    const { data: list } = await labels.listOrganizationLabelsGroup(organization.id)
    assert.equal((list.results as unknown as { associated_items_count: number }[])[0]?.associated_items_count, 2)
    const { data: items } = await labels.getOrganizationLabelsGroupAssociatedItems(organization.id, labelsGroup.id)
    assert.deepEqual(
      items.results?.map((item) => [item.item_name, item.item_type, item.environment_id]),
      [
        ['db2', 'DATABASE', environment.id],
        ['web', 'CONTAINER', environment.id],
      ],
    )

    const refused = await t.app.inject({
      method: 'DELETE',
      url: `/organization/${organization.id}/labelsGroups/${labelsGroup.id}`,
      headers: { authorization: tokens.write.authorization },
    })
    assertError(refused, 409, 'conflict')

    // Edits of the group show in the services that use it.
    const { data: edited } = await labels.editOrganizationLabelsGroup(organization.id, labelsGroup.id, {
      name: 'team',
      labels: [{ key: 'team', value: 'billing', propagate_to_cloud_provider: false }],
    })
    assert.deepEqual((await containerCalls.getContainer(container.id)).data.labels_groups, [edited])

    // Detach everywhere (the provider sends every field on a container edit), then delete.
    const { data: detached } = await containerCalls.editContainer(container.id, {
      name: 'web',
      image_name: 'acme/web',
      tag: '1',
      registry_id: registry.id,
      healthchecks: {},
      labels_groups: [],
      annotations_groups: [],
    })
    assert.deepEqual(detached.labels_groups, [])
    assert.deepEqual(detached.annotations_groups, [])
    await databaseCalls.editDatabase(database.id, { labels_groups: [] })
    assert.equal((await labels.deleteOrganizationLabelsGroup(organization.id, labelsGroup.id)).status, 204)
    assert.equal((await annotations.deleteOrganizationAnnotationsGroup(organization.id, annotationsGroup.id)).status, 204)
  })

  it("lists group errors with the kind's own errors in one answer, and clones keep their source's groups", async () => {
    const f = factories(t.db)
    const { organization, tokens, environment } = await f.environmentWithTokens()
    const { labels, containers } = apis(tokens.write.authorization)
    const { data: group } = await labels.createOrganizationLabelsGroup(organization.id, { name: 'g', labels: [] })
    const registry = await f.containerRegistry(organization.id)
    const body = { name: 'web', registry_id: registry.id, image_name: 'acme/web', tag: '1', healthchecks: {} }
    const both = await t.app.inject({
      method: 'POST',
      url: `/environment/${environment.id}/container`,
      headers: { authorization: tokens.write.authorization },
      payload: { ...body, cpu: 10_000_000, labels_groups: [{ id: organization.id }] },
    })
    assert.deepEqual((assertError(both, 400, 'validation_failed').errors ?? []).map((error) => error.path).sort(), ['/cpu', '/labels_groups/0/id'])
    const { data: source } = await containers.createContainer(environment.id, { ...body, labels_groups: [{ id: group.id }] })
    const { data: clone, status } = await containers.cloneContainer(source.id, { name: 'web-copy', environment_id: environment.id })
    assert.equal(status, 202)
    assert.deepEqual(clone.labels_groups, [group])
  })

  it("refuses a service's group ids that are not groups of its organization (or of that kind) with 400 at their index", async () => {
    const f = factories(t.db)
    const { organization, tokens, environment } = await f.environmentWithTokens()
    const other = await f.organizationWithTokens()
    const { data: foreign } = await apis(other.tokens.write.authorization).labels.createOrganizationLabelsGroup(other.organization.id, {
      name: 'theirs',
      labels: [],
    })
    const { data: annotationsGroup } = await apis(tokens.write.authorization).annotations.createOrganizationAnnotationsGroup(organization.id, {
      name: 'ours',
      annotations: [],
      scopes: [],
    })
    const registry = await f.containerRegistry(organization.id)
    const res = await t.app.inject({
      method: 'POST',
      url: `/environment/${environment.id}/container`,
      headers: { authorization: tokens.write.authorization },
      payload: {
        name: 'web',
        registry_id: registry.id,
        image_name: 'acme/web',
        tag: '1',
        healthchecks: {},
        labels_groups: [{ id: foreign.id }, { id: annotationsGroup.id }],
      },
    })
    const errors = assertError(res, 400, 'validation_failed').errors ?? []
    assert.deepEqual(
      errors.map((error) => error.path),
      ['/labels_groups/0/id', '/labels_groups/1/id'],
    )
  })
})
