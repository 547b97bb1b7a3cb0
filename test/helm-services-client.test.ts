import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Configuration, HelmMainCallsApi, type HelmRequest, HelmsApi } from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { rejectedStatus } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

/** The fields of a read helm service that a HelmRequest wrote, in the request's shape. */
// biome-ignore lint/suspicious/noExplicitAny: a response read field by field
function asWritten(helm: Record<string, any>): Record<string, unknown> {
  const git = helm.source.git?.git_repository
  return {
    name: helm.name,
    description: helm.description,
    timeout_sec: helm.timeout_sec,
    auto_preview: helm.auto_preview,
    auto_deploy: helm.auto_deploy,
    source: git
      ? { git_repository: { url: git.url, branch: git.branch, root_path: git.root_path, git_token_id: git.git_token_id } }
      : {
          helm_repository: {
            repository: helm.source.repository.repository.id,
            chart_name: helm.source.repository.chart_name,
            chart_version: helm.source.repository.chart_version,
          },
        },
    arguments: helm.arguments,
    allow_cluster_wide_resources: helm.allow_cluster_wide_resources,
    values_override: helm.values_override,
    ports: helm.ports.map(({ id: _id, port_type: _type, ...port }: Record<string, unknown>) => port),
    icon_uri: helm.icon_uri,
    blueprint_id: helm.blueprint_id,
  }
}

describe('helm services through the official client', () => {
  let t: TestApp
  let basePath: string

  before(async () => {
    t = await createTestApp()
    basePath = await t.listen()
  })
  after(() => t.close())

  it('creates, reads, edits and deletes a helm service, reading back what it wrote', async () => {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB' })
    const helmRepository = await f.helmRepository(organization.id)
    // ADMIN: the ports name a namespace, which needs allow_cluster_wide_resources.
    const configuration = new Configuration({ basePath, apiKey: tokens.admin.authorization })
    const helms = new HelmsApi(configuration)
    const helmMain = new HelmMainCallsApi(configuration)

    const created: HelmRequest = {
      name: 'ingress',
      description: 'edge proxy',
      timeout_sec: 300,
      auto_preview: false,
      auto_deploy: true,
      source: { git_repository: { url: 'https://github.com/acme/ingress', branch: 'release', root_path: '/chart', git_token_id: gitToken.id } },
      arguments: ['--atomic'],
      allow_cluster_wide_resources: true,
      values_override: {
        set: [['replicaCount', '2']],
        set_string: [['image.tag', '0042']],
        set_json: [['resources', '{"limits":{"cpu":"1"}}']],
        file: { raw: { values: [{ name: 'extra.yaml', content: 'a: 1\n' }] } },
      },
      ports: [
        { name: 'http', internal_port: 8080, external_port: 443, namespace: 'edge', protocol: 'HTTP', is_default: true, service_name: 'ingress' },
      ],
      icon_uri: 'https://example.com/icon.svg',
      blueprint_id: null,
    }
    const { data: helm, status } = await helms.createHelm(environment.id, created)
    assert.equal(status, 201)
    assert.deepEqual(asWritten(helm), created)

    const { data: read } = await helmMain.getHelm(helm.id)
    assert.deepEqual(read, helm)

    const edited: HelmRequest = {
      name: 'ingress-v2',
      description: 'edge proxy, from a chart repository',
      timeout_sec: 0,
      auto_preview: true,
      auto_deploy: false,
      source: { helm_repository: { repository: helmRepository.id, chart_name: 'ingress-nginx', chart_version: '4.10.0' } },
      arguments: [],
      allow_cluster_wide_resources: true,
      values_override: {
        set: [],
        set_string: [],
        set_json: [],
        file: {
          git: {
            git_repository: { url: 'https://github.com/acme/values', branch: 'main', root_path: '/', git_token_id: gitToken.id, provider: 'GITHUB' },
            paths: ['/prod.yaml'],
          },
        },
      },
      ports: [
        {
          name: 'grpc',
          internal_port: 9000,
          external_port: 9443,
          namespace: 'edge',
          protocol: 'GRPC',
          is_default: false,
          service_selectors: [{ key: 'app', value: 'ingress' }],
        },
      ],
      icon_uri: 'https://example.com/icon-v2.svg',
      blueprint_id: '0b3a1c52-5a0e-4a8e-8f5e-3f1f3c8e2a10',
    }
    const { data: afterEdit } = await helmMain.editHelm(helm.id, edited)
    // biome-ignore lint/suspicious/noExplicitAny: the request, edited by path below
    const expected = structuredClone(edited) as Record<string, any>
    // A git repository read back is the record of contract 2.14: compare what was written.
    const file = afterEdit.values_override.file?.git?.git_repository
    assert.ok(file)
    assert.deepEqual(
      { url: file.url, branch: file.branch, root_path: file.root_path, git_token_id: file.git_token_id, provider: file.provider },
      expected.values_override.file.git.git_repository,
    )
    assert.equal(file.git_token_name, gitToken.name)
    expected.values_override.file.git.git_repository = afterEdit.values_override.file?.git?.git_repository
    assert.deepEqual(asWritten(afterEdit), expected)
    assert.deepEqual((await helmMain.getHelm(helm.id)).data, afterEdit)

    const { data: list } = await helms.listHelms(environment.id)
    assert.deepEqual(list.results, [afterEdit])

    assert.equal((await helmMain.deleteHelm(helm.id)).status, 204)
    assert.equal(await rejectedStatus(helmMain.getHelm(helm.id)), 404)
  })
})
