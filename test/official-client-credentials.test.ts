import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Configuration, HelmRepositoriesApi, OrganizationMainCallsApi } from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { rejectedStatus } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

describe('git tokens and helm repositories through the official TypeScript client', () => {
  let t: TestApp
  let basePath: string
  before(async () => {
    t = await createTestApp()
    basePath = await t.listen()
  })
  after(async () => t.close())

  it('creates, reads, lists, edits and deletes a git token and a helm repository', async () => {
    const { organization, tokens } = await factories(t.db).organizationWithTokens()
    const configuration = new Configuration({ basePath, apiKey: tokens.write.authorization })
    const main = new OrganizationMainCallsApi(configuration)
    const helm = new HelmRepositoriesApi(configuration)

    const secret = 'glpat-official-client-secret'
    const created = await main.createGitToken(organization.id, { name: uniqueName('gitlab'), type: 'GITLAB', token: secret })
    assert.equal(created.status, 201)
    assert.equal(created.data.type, 'GITLAB')
    assert.equal(created.data.associated_services_count, 0)
    assert.ok(!JSON.stringify(created.data).includes(secret))
    const gitTokenId = created.data.id
    assert.deepEqual((await main.getOrganizationGitToken(organization.id, gitTokenId)).data, created.data)
    assert.deepEqual(
      (await main.listOrganizationGitTokens(organization.id)).data.results?.map((r) => r.id),
      [gitTokenId],
    )
    const edited = await main.editGitToken(organization.id, gitTokenId, {
      name: created.data.name,
      type: 'GITLAB',
      token: `${secret}-2`,
      git_api_url: 'https://gitlab.example.com',
    })
    assert.equal(edited.data.git_api_url, 'https://gitlab.example.com')
    assert.equal((await main.deleteGitToken(organization.id, gitTokenId)).status, 204)
    assert.equal(await rejectedStatus(main.getOrganizationGitToken(organization.id, gitTokenId)), 404)

    const password = 'official-client-password'
    const repository = await helm.createHelmRepository(organization.id, {
      name: uniqueName('bitnami'),
      kind: 'HTTPS',
      url: 'https://charts.bitnami.com/bitnami',
      skip_tls_verification: false,
      config: { username: 'robot', password },
    })
    assert.equal(repository.status, 201)
    assert.deepEqual(repository.data.config, { username: 'robot' })
    assert.ok(!JSON.stringify(repository.data).includes(password))
    const repositoryId = repository.data.id
    assert.deepEqual((await helm.getHelmRepository(organization.id, repositoryId)).data, repository.data)
    assert.deepEqual(
      (await helm.listHelmRepository(organization.id)).data.results?.map((r) => r.id),
      [repositoryId],
    )
    const renamed = await helm.editHelmRepository(organization.id, repositoryId, {
      name: uniqueName('renamed'),
      kind: 'HTTPS',
      url: 'https://charts.bitnami.com/bitnami',
      skip_tls_verification: true,
      config: { username: 'robot' },
    })
    assert.equal(renamed.data.skip_tls_verification, true)
    assert.equal((await helm.deleteHelmRepository(organization.id, repositoryId)).status, 204)
    assert.equal(await rejectedStatus(helm.getHelmRepository(organization.id, repositoryId)), 404)

    const reader = new HelmRepositoriesApi(new Configuration({ basePath, apiKey: tokens.read.authorization }))
    const refused = reader.createHelmRepository(organization.id, {
      name: 'x',
      kind: 'HTTPS',
      url: 'https://x.example',
      skip_tls_verification: false,
      config: {},
    })
    assert.equal(await rejectedStatus(refused), 403)
  })
})
