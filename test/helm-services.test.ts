import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, assertIsoTimestamp, assertValidationError, UUID } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'

const HELM_FIELDS = [
  'allow_cluster_wide_resources',
  'arguments',
  'auto_deploy',
  'auto_preview',
  'blueprint_id',
  'created_at',
  'description',
  'environment',
  'icon_uri',
  'id',
  'name',
  'ports',
  'service_type',
  'source',
  'timeout_sec',
  'updated_at',
  'values_override',
]

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

/** A valid HelmRequest with a git source; `overrides` replace top-level fields. */
function helmRequest(overrides: Body = {}): Body {
  return {
    name: uniqueName('chart'),
    auto_deploy: true,
    source: { git_repository: { url: 'https://github.com/acme/charts.git', branch: 'main', root_path: '/charts/api' } },
    arguments: ['--atomic', '--timeout=5m'],
    values_override: { set: [['image.tag', '1.2.3']], set_string: [['podLabels.team', '007']], set_json: [['resources', '{"cpu":"100m"}']] },
    ...overrides,
  }
}

describe('helm services', () => {
  let t: TestApp
  let f: ReturnType<typeof factories>

  before(async () => {
    t = await createTestApp()
    f = factories(t.db)
  })
  after(() => t.close())

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: unknown, headers: Body = {}) =>
    t.app.inject({ method, url, headers: { authorization, ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) })

  /** An environment with tokens of each role, a GitHub token and an HTTPS helm repository. */
  async function world(options: { autoPreview?: boolean } = {}) {
    const w = await f.environmentWithTokens(options)
    const gitToken = await f.gitToken(w.organization.id, { type: 'GITHUB' })
    const helmRepository = await f.helmRepository(w.organization.id)
    return { ...w, gitToken, helmRepository }
  }

  async function createHelm(environmentId: string, authorization: string, body: Body = helmRequest()) {
    const res = await call('POST', `/environment/${environmentId}/helm`, authorization, body)
    assert.equal(res.statusCode, 201, res.body)
    return res
  }

  describe('create and read', () => {
    it('answers 201 with the contract 2.10 shape, an ETag and the defaults filled in', async () => {
      const w = await world({ autoPreview: true })
      const body = helmRequest({
        description: 'the API chart',
        source: {
          git_repository: { url: 'https://github.com/acme/charts.git', branch: 'main', root_path: '/charts/api', git_token_id: w.gitToken.id },
        },
        ports: [{ internal_port: 8080, service_name: 'api', is_default: true }],
      })
      const res = await createHelm(w.environment.id, w.tokens.write.authorization, body)
      const helm = res.json()
      assert.deepEqual(Object.keys(helm).sort(), HELM_FIELDS)
      assert.match(helm.id, UUID)
      assertIsoTimestamp(helm.created_at, 'created_at')
      assertIsoTimestamp(helm.updated_at, 'updated_at')
      assert.match(String(res.headers.etag), /^"1\.[\w-]+"$/)
      assert.deepEqual(helm.environment, { id: w.environment.id })
      assert.equal(helm.name, body.name)
      assert.equal(helm.description, 'the API chart')
      assert.equal(helm.timeout_sec, 600)
      assert.equal(helm.auto_preview, true, "absent auto_preview takes the environment's value")
      assert.equal(helm.auto_deploy, true)
      assert.equal(helm.allow_cluster_wide_resources, false)
      assert.equal(helm.service_type, 'HELM')
      assert.equal(helm.blueprint_id, null)
      assert.equal(typeof helm.icon_uri, 'string')
      assert.deepEqual(helm.arguments, ['--atomic', '--timeout=5m'])
      assert.deepEqual(helm.source, {
        git: {
          git_repository: {
            has_access: true,
            provider: 'GITHUB',
            owner: 'acme',
            name: 'charts',
            url: 'https://github.com/acme/charts.git',
            branch: 'main',
            root_path: '/charts/api',
            git_token_id: w.gitToken.id,
            git_token_name: w.gitToken.name,
          },
        },
      })
      assert.deepEqual(helm.values_override, {
        set: [['image.tag', '1.2.3']],
        set_string: [['podLabels.team', '007']],
        set_json: [['resources', '{"cpu":"100m"}']],
        file: null,
      })
      assert.equal(helm.ports.length, 1)
      const [port] = helm.ports
      assert.match(port.id, UUID)
      assert.deepEqual(
        { ...port, id: undefined },
        {
          id: undefined,
          port_type: 'SERVICE_NAME',
          name: 'p8080',
          internal_port: 8080,
          external_port: 443,
          protocol: 'HTTP',
          is_default: true,
          service_name: 'api',
        },
      )

      const read = await call('GET', `/helm/${helm.id}`, w.tokens.read.authorization)
      assert.equal(read.statusCode, 200, read.body)
      assert.deepEqual(read.json(), helm)
      assert.equal(read.headers.etag, res.headers.etag)
    })

    it('serves a helm repository source with the repository it names', async () => {
      const w = await world()
      const body = helmRequest({
        source: { helm_repository: { repository: w.helmRepository.id, chart_name: 'nginx', chart_version: '15.0.1' } },
        values_override: { file: { raw: { values: [{ name: 'override.yaml', content: 'replicaCount: 2\n' }] } } },
        auto_preview: false,
      })
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization, body)).json()
      assert.deepEqual(helm.source, {
        repository: {
          chart_name: 'nginx',
          chart_version: '15.0.1',
          repository: { id: w.helmRepository.id, name: w.helmRepository.name, url: w.helmRepository.url },
        },
      })
      assert.deepEqual(helm.values_override, {
        set: [],
        set_string: [],
        set_json: [],
        file: { raw: { values: [{ name: 'override.yaml', content: 'replicaCount: 2\n' }] } },
      })
      assert.equal(helm.auto_preview, false)
      assert.equal('description' in helm, false, 'no description was given')
    })

    it('reads a values file from git with the repository record of 2.14', async () => {
      const w = await world()
      const body = helmRequest({
        values_override: {
          file: {
            git: {
              git_repository: { url: 'https://github.com/acme/values', branch: 'prod', git_token_id: w.gitToken.id },
              paths: ['/values.yaml', '/env/prod.yaml'],
            },
          },
        },
      })
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization, body)).json()
      assert.deepEqual(helm.values_override.file, {
        git: {
          git_repository: {
            has_access: true,
            provider: 'GITHUB',
            owner: 'acme',
            name: 'values',
            url: 'https://github.com/acme/values',
            branch: 'prod',
            root_path: '/',
            git_token_id: w.gitToken.id,
            git_token_name: w.gitToken.name,
          },
          paths: ['/values.yaml', '/env/prod.yaml'],
        },
      })
    })

    it('lists the helm services of one environment only', async () => {
      const w = await world()
      const other = await f.environment(w.project.id)
      const a = (await createHelm(w.environment.id, w.tokens.write.authorization, helmRequest({ name: 'b-chart' }))).json()
      const b = (await createHelm(w.environment.id, w.tokens.write.authorization, helmRequest({ name: 'A-chart' }))).json()
      await createHelm(other.id, w.tokens.write.authorization)
      const res = await call('GET', `/environment/${w.environment.id}/helm`, w.tokens.read.authorization)
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(
        res.json().results.map((h: Body) => h.id),
        [b.id, a.id],
      )
    })

    it('answers 304 to If-None-Match with the current ETag', async () => {
      const w = await world()
      const created = await createHelm(w.environment.id, w.tokens.write.authorization)
      const etag = String(created.headers.etag)
      const res = await call('GET', `/helm/${created.json().id}`, w.tokens.read.authorization, undefined, { 'if-none-match': `W/${etag}` })
      assert.equal(res.statusCode, 304)
      assert.equal(res.body, '')
      assert.equal(res.headers.etag, etag)
      const changed = await call('GET', `/helm/${created.json().id}`, w.tokens.read.authorization, undefined, { 'if-none-match': '"0.x"' })
      assert.equal(changed.statusCode, 200)
    })

    it('changes the ETag when a name the response shows changes, so a stale copy is not reused', async () => {
      const w = await world()
      const body = helmRequest({ source: { git_repository: { url: 'https://github.com/a/b', git_token_id: w.gitToken.id } } })
      const created = await createHelm(w.environment.id, w.tokens.write.authorization, body)
      const renamed = await call('PUT', `/organization/${w.organization.id}/gitToken/${w.gitToken.id}`, w.tokens.admin.authorization, {
        name: 'renamed token',
        type: 'GITHUB',
        token: 'ghp_another',
      })
      assert.equal(renamed.statusCode, 200, renamed.body)
      const read = await call('GET', `/helm/${created.json().id}`, w.tokens.read.authorization, undefined, {
        'if-none-match': String(created.headers.etag),
      })
      assert.equal(read.statusCode, 200)
      assert.notEqual(read.headers.etag, created.headers.etag)
      assert.equal(read.json().source.git.git_repository.git_token_name, 'renamed token')
      const stale = await call('PUT', `/helm/${created.json().id}`, w.tokens.write.authorization, body, { 'if-match': String(created.headers.etag) })
      assertError(stale, 412, 'precondition_failed')
    })
  })

  describe('PUT /helm/{helmId}', () => {
    it('replaces the whole service, returns it and bumps the ETag', async () => {
      const w = await world()
      const created = (
        await createHelm(
          w.environment.id,
          w.tokens.write.authorization,
          helmRequest({ description: 'first', ports: [{ internal_port: 80, service_name: 'web' }], timeout_sec: 60 }),
        )
      ).json()
      const replacement = {
        name: 'renamed',
        auto_deploy: false,
        source: { helm_repository: { repository: w.helmRepository.id, chart_name: 'redis', chart_version: '18.1.0' } },
        arguments: [],
        values_override: { set_string: [['a', 'b']] },
      }
      const res = await call('PUT', `/helm/${created.id}`, w.tokens.write.authorization, replacement)
      assert.equal(res.statusCode, 200, res.body)
      const helm = res.json()
      assert.deepEqual(
        Object.keys(helm).sort(),
        HELM_FIELDS.filter((field) => field !== 'description'),
      )
      assert.match(String(res.headers.etag), /^"2\./)
      assert.equal(helm.id, created.id)
      assert.equal(helm.created_at, created.created_at)
      assert.ok(helm.updated_at >= created.updated_at)
      assert.equal(helm.name, 'renamed')
      assert.equal(helm.auto_deploy, false)
      assert.equal(helm.timeout_sec, 600, 'an omitted timeout_sec is the default again')
      assert.deepEqual(helm.ports, [], 'omitted ports are cleared')
      assert.deepEqual(helm.arguments, [])
      assert.deepEqual(helm.values_override, { set: [], set_string: [['a', 'b']], set_json: [], file: null })
      assert.equal(helm.source.repository.chart_name, 'redis')
      const read = await call('GET', `/helm/${created.id}`, w.tokens.read.authorization)
      assert.deepEqual(read.json(), helm)
    })

    it("gives an edit without auto_preview the environment's value, not the service's old one", async () => {
      const w = await world({ autoPreview: true })
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization, helmRequest({ auto_preview: false }))).json()
      assert.equal(helm.auto_preview, false)
      const edited = await call('PUT', `/helm/${helm.id}`, w.tokens.write.authorization, helmRequest({ name: helm.name }))
      assert.equal(edited.json().auto_preview, true)
    })

    it('keeps the id of a port that keeps its name', async () => {
      const w = await world()
      const ports = [
        { name: 'http', internal_port: 80, service_name: 'web' },
        { name: 'grpc', internal_port: 9090, protocol: 'GRPC', service_selectors: [{ key: 'app', value: 'api' }] },
      ]
      const created = (await createHelm(w.environment.id, w.tokens.write.authorization, helmRequest({ ports }))).json()
      const grpc = created.ports.find((p: Body) => p.name === 'grpc')
      assert.deepEqual(grpc.service_selectors, [{ key: 'app', value: 'api' }])
      assert.equal(grpc.port_type, 'SERVICE_SELECTORS')
      assert.equal(grpc.protocol, 'GRPC')
      const edited = (
        await call(
          'PUT',
          `/helm/${created.id}`,
          w.tokens.write.authorization,
          helmRequest({
            name: created.name,
            ports: [
              { ...ports[1], internal_port: 9091 },
              { name: 'admin', internal_port: 81, service_name: 'web' },
            ],
          }),
        )
      ).json()
      assert.equal(edited.ports[0].id, grpc.id)
      assert.equal(edited.ports[0].internal_port, 9091)
      assert.notEqual(edited.ports[1].id, created.ports[0].id)
    })

    it('applies with a current If-Match or *, and answers 412 changing nothing with a stale one', async () => {
      const w = await world()
      const created = await createHelm(w.environment.id, w.tokens.write.authorization)
      const id = created.json().id
      const etag = String(created.headers.etag)
      const first = await call('PUT', `/helm/${id}`, w.tokens.write.authorization, helmRequest({ name: 'v2' }), { 'if-match': `"x", ${etag}` })
      assert.equal(first.statusCode, 200, first.body)
      assert.match(String(first.headers.etag), /^"2\./)
      const stale = await call('PUT', `/helm/${id}`, w.tokens.write.authorization, helmRequest({ name: 'v3' }), { 'if-match': etag })
      assertError(stale, 412, 'precondition_failed')
      const read = await call('GET', `/helm/${id}`, w.tokens.read.authorization)
      assert.deepEqual(read.json(), first.json())
      const anyVersion = await call('PUT', `/helm/${id}`, w.tokens.write.authorization, helmRequest({ name: 'v4' }), { 'if-match': '*' })
      assert.equal(anyVersion.statusCode, 200, anyVersion.body)
      const weak = `W/${anyVersion.headers.etag}`
      const foreignTag = await call('PUT', `/helm/${id}`, w.tokens.write.authorization, helmRequest({ name: 'v5' }), { 'if-match': weak })
      assertError(foreignTag, 412, 'precondition_failed')
    })

    it('lets exactly one of two concurrent edits with the same If-Match through', async () => {
      const w = await world()
      const created = await createHelm(w.environment.id, w.tokens.write.authorization)
      const id = created.json().id
      const results = await Promise.all(
        ['left', 'right'].map((name) =>
          call('PUT', `/helm/${id}`, w.tokens.write.authorization, helmRequest({ name }), { 'if-match': String(created.headers.etag) }),
        ),
      )
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 412])
      const winner = results.find((r) => r.statusCode === 200)!.json()
      assert.equal((await call('GET', `/helm/${id}`, w.tokens.read.authorization)).json().name, winner.name)
    })

    it('answers 409 when the name is taken in the environment, ignoring case, and allows it elsewhere', async () => {
      const w = await world()
      await createHelm(w.environment.id, w.tokens.write.authorization, helmRequest({ name: 'Gateway' }))
      const clash = await call('POST', `/environment/${w.environment.id}/helm`, w.tokens.write.authorization, helmRequest({ name: 'gateway' }))
      assertError(clash, 409, 'conflict')
      const other = (await createHelm(w.environment.id, w.tokens.write.authorization, helmRequest({ name: 'other' }))).json()
      const renamed = await call('PUT', `/helm/${other.id}`, w.tokens.write.authorization, helmRequest({ name: 'GATEWAY' }))
      assertError(renamed, 409, 'conflict')
      assert.deepEqual((await call('GET', `/helm/${other.id}`, w.tokens.read.authorization)).json(), other, 'a refused edit changes nothing')
      const elsewhere = await f.environment(w.project.id)
      await createHelm(elsewhere.id, w.tokens.write.authorization, helmRequest({ name: 'gateway' }))
    })

    it('answers 400 naming every invalid field by its path', async () => {
      const w = await world()
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization)).json()
      const res = await call('PUT', `/helm/${helm.id}`, w.tokens.write.authorization, {
        name: 'x',
        auto_deploy: 'yes',
        source: { git_repository: { url: 'https://github.com/a/b' } },
        arguments: ['--atomic'],
        timeout_sec: -1,
        values_override: { set: [['only-key']], set_json: [['k', 'v', 'extra']] },
        ports: [{ internal_port: 70000, protocol: 'TCP', service_name: 'x' }],
      })
      const paths = assertValidationError(res).map((e) => e.path)
      for (const path of [
        '/auto_deploy',
        '/timeout_sec',
        '/values_override/set/0',
        '/values_override/set_json/0',
        '/ports/0/internal_port',
        '/ports/0/protocol',
      ]) {
        assert.ok(paths.includes(path), `${path} missing from ${JSON.stringify(paths)}`)
      }
      assert.deepEqual((await call('GET', `/helm/${helm.id}`, w.tokens.read.authorization)).json(), helm, 'nothing changed')
    })

    it('answers 400 for each missing required field', async () => {
      const w = await world()
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization)).json()
      for (const field of ['name', 'auto_deploy', 'source', 'arguments', 'values_override']) {
        const body = helmRequest()
        delete body[field]
        const errors = assertValidationError(await call('PUT', `/helm/${helm.id}`, w.tokens.write.authorization, body))
        assert.deepEqual(
          errors.map((e) => e.path),
          [`/${field}`],
        )
      }
    })

    it('answers 400 for the rules beyond the schema, all at once', async () => {
      const w = await world()
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization)).json()
      const res = await call(
        'PUT',
        `/helm/${helm.id}`,
        w.tokens.write.authorization,
        helmRequest({
          source: {
            git_repository: { url: 'https://github.com/a/b' },
            helm_repository: { repository: w.helmRepository.id, chart_name: 'x', chart_version: '1' },
          },
          arguments: ['--wait', '--kubeconfig=/etc/kube', '-n other'],
          values_override: {
            set: [[' ', 'v']],
            set_json: [
              ['ok', '{"a":1}'],
              ['bad', '{not json'],
            ],
            file: {
              git: { git_repository: { url: 'https://github.com/a/values' }, paths: ['values.yaml', '/a/../../etc/passwd', '/ok.yaml'] },
            },
          },
          ports: [
            { internal_port: 80, is_default: true, service_name: 'a' },
            { internal_port: 81, is_default: true, service_name: 'b', service_selectors: [{ key: 'k', value: 'v' }] },
            { internal_port: 80, service_name: 'c' },
          ],
        }),
      )
      const errors = assertValidationError(res)
      const byPath = Object.fromEntries(errors.map((e) => [e.path, e.message]))
      assert.deepEqual(Object.keys(byPath).sort(), [
        '/arguments/1',
        '/arguments/2',
        '/ports/1',
        '/ports/1/is_default',
        '/ports/2/name',
        '/source',
        '/values_override/file/git/paths/0',
        '/values_override/file/git/paths/1',
        '/values_override/set/0/0',
        '/values_override/set_json/1/1',
      ])
      assert.match(byPath['/arguments/1']!, /"--kubeconfig" is not allowed/)
      assert.match(byPath['/arguments/2']!, /"-n" is not allowed unless allow_cluster_wide_resources/)
      assert.match(byPath['/values_override/set_json/1/1']!, /valid JSON/)
      assert.match(res.json().message, /^invalid request: /)
    })

    it('rejects raw values files with the same name twice, and a file with both git and raw', async () => {
      const w = await world()
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization)).json()
      const duplicate = await call(
        'PUT',
        `/helm/${helm.id}`,
        w.tokens.write.authorization,
        helmRequest({
          values_override: {
            file: {
              raw: {
                values: [
                  { name: 'a.yaml', content: '' },
                  { name: 'a.yaml', content: 'x: 1' },
                ],
              },
            },
          },
        }),
      )
      assert.deepEqual(
        assertValidationError(duplicate).map((e) => e.path),
        ['/values_override/file/raw/values/1/name'],
      )
      const both = await call(
        'PUT',
        `/helm/${helm.id}`,
        w.tokens.write.authorization,
        helmRequest({
          values_override: { file: { raw: { values: [] }, git: { git_repository: { url: 'https://github.com/a/b' }, paths: ['/v.yaml'] } } },
        }),
      )
      assert.deepEqual(
        assertValidationError(both).map((e) => e.path),
        ['/values_override/file'],
      )
    })

    it('requires referenced git tokens and helm repositories to exist in the same organization', async () => {
      const w = await world()
      const stranger = await world()
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization)).json()
      const res = await call(
        'PUT',
        `/helm/${helm.id}`,
        w.tokens.write.authorization,
        helmRequest({
          source: { helm_repository: { repository: stranger.helmRepository.id, chart_name: 'x', chart_version: '1' } },
          values_override: {
            file: { git: { git_repository: { url: 'https://github.com/a/b', git_token_id: stranger.gitToken.id }, paths: ['/v.yaml'] } },
          },
        }),
      )
      assert.deepEqual(
        assertValidationError(res)
          .map((e) => e.path)
          .sort(),
        ['/source/helm_repository/repository', '/values_override/file/git/git_repository/git_token_id'],
      )
      const unknown = await call(
        'PUT',
        `/helm/${helm.id}`,
        w.tokens.write.authorization,
        helmRequest({ source: { git_repository: { url: 'https://github.com/a/b', git_token_id: randomUUID() } } }),
      )
      assert.deepEqual(
        assertValidationError(unknown).map((e) => e.path),
        ['/source/git_repository/git_token_id'],
      )
    })

    it('derives the provider from the token on a self-hosted host and refuses a token of another provider', async () => {
      const w = await world()
      const gitlab = await f.gitToken(w.organization.id, { type: 'GITLAB' })
      const selfHosted = (
        await createHelm(
          w.environment.id,
          w.tokens.write.authorization,
          helmRequest({ source: { git_repository: { url: 'https://git.example.com/platform/charts', git_token_id: gitlab.id } } }),
        )
      ).json()
      assert.equal(selfHosted.source.git.git_repository.provider, 'GITLAB')
      assert.equal(selfHosted.source.git.git_repository.owner, 'platform')
      assert.equal('branch' in selfHosted.source.git.git_repository, false, 'no branch given: the default branch')

      const mismatch = await call(
        'PUT',
        `/helm/${selfHosted.id}`,
        w.tokens.write.authorization,
        helmRequest({ source: { git_repository: { url: 'https://github.com/a/b', git_token_id: gitlab.id } } }),
      )
      const [error] = assertValidationError(mismatch)
      assert.equal(error!.path, '/source/git_repository/git_token_id')
      assert.match(error!.message, /GITLAB.*GITHUB/)

      const unknownHost = await call(
        'PUT',
        `/helm/${selfHosted.id}`,
        w.tokens.write.authorization,
        helmRequest({ source: { git_repository: { url: 'https://git.example.com/a/b' } } }),
      )
      assert.deepEqual(
        assertValidationError(unknownHost).map((e) => e.path),
        ['/source/git_repository/url'],
      )
    })

    it('needs ADMIN to allow cluster-wide resources, which also allows --namespace', async () => {
      const w = await world()
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization)).json()
      const clusterWide = helmRequest({ name: helm.name, allow_cluster_wide_resources: true, arguments: ['--namespace=infra'] })
      const denied = await call('PUT', `/helm/${helm.id}`, w.tokens.write.authorization, clusterWide)
      assert.match(assertError(denied, 403, 'forbidden').message, /allow_cluster_wide_resources.*ADMIN/)
      assert.deepEqual((await call('GET', `/helm/${helm.id}`, w.tokens.read.authorization)).json(), helm, 'a refused edit changes nothing')
      const deniedCreate = await call('POST', `/environment/${w.environment.id}/helm`, w.tokens.write.authorization, {
        ...clusterWide,
        name: 'another',
      })
      assertError(deniedCreate, 403, 'forbidden')
      const allowed = await call('PUT', `/helm/${helm.id}`, w.tokens.admin.authorization, clusterWide)
      assert.equal(allowed.statusCode, 200, allowed.body)
      assert.equal(allowed.json().allow_cluster_wide_resources, true)
      assert.deepEqual(allowed.json().arguments, ['--namespace=infra'])
      // Granted once by an ADMIN, it is kept through a WRITE user's later edits (the console sends it back as read).
      const kept = await call('PUT', `/helm/${helm.id}`, w.tokens.write.authorization, { ...clusterWide, timeout_sec: 42 })
      assert.equal(kept.statusCode, 200, kept.body)
      assert.equal(kept.json().allow_cluster_wide_resources, true)
    })
  })

  describe('access', () => {
    it('needs credentials', async () => {
      const w = await world()
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization)).json()
      const res = await t.app.inject({ method: 'PUT', url: `/helm/${helm.id}`, payload: helmRequest() })
      assertError(res, 401, 'unauthenticated')
    })

    it('lets READ and DEPLOY read but not create, edit or delete', async () => {
      const w = await world()
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization)).json()
      for (const token of [w.tokens.read, w.tokens.deploy]) {
        assert.equal((await call('GET', `/helm/${helm.id}`, token.authorization)).statusCode, 200)
        assert.equal((await call('GET', `/environment/${w.environment.id}/helm`, token.authorization)).statusCode, 200)
        assertError(await call('PUT', `/helm/${helm.id}`, token.authorization, helmRequest()), 403, 'forbidden')
        const breaksRules = helmRequest({ arguments: ['--kubeconfig=/x'] })
        assertError(await call('PUT', `/helm/${helm.id}`, token.authorization, breaksRules), 403, 'forbidden')
        assertError(await call('POST', `/environment/${w.environment.id}/helm`, token.authorization, helmRequest()), 403, 'forbidden')
        assertError(await call('DELETE', `/helm/${helm.id}`, token.authorization), 403, 'forbidden')
      }
    })

    it("reports another organization's helm service and environment as not found", async () => {
      const w = await world()
      const stranger = await world()
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization)).json()
      const admin = stranger.tokens.admin.authorization
      assertError(await call('GET', `/helm/${helm.id}`, admin), 404, 'not_found')
      assertError(await call('PUT', `/helm/${helm.id}`, admin, helmRequest()), 404, 'not_found')
      assertError(await call('DELETE', `/helm/${helm.id}`, admin), 404, 'not_found')
      assertError(await call('GET', `/environment/${w.environment.id}/helm`, admin), 404, 'not_found')
      assertError(await call('POST', `/environment/${w.environment.id}/helm`, admin, helmRequest()), 404, 'not_found')
      assertError(await call('GET', `/helm/${randomUUID()}`, admin), 404, 'not_found')
      assert.equal((await call('GET', `/helm/${helm.id}`, w.tokens.read.authorization)).statusCode, 200, 'untouched')
    })
  })

  describe('delete', () => {
    it('answers 204, then 404, and frees the name and the git token', async () => {
      const w = await world()
      const body = helmRequest({ source: { git_repository: { url: 'https://github.com/a/b', git_token_id: w.gitToken.id } } })
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization, body)).json()
      const inUse = await call('DELETE', `/organization/${w.organization.id}/gitToken/${w.gitToken.id}`, w.tokens.admin.authorization)
      assertError(inUse, 409, 'conflict')
      const res = await call('DELETE', `/helm/${helm.id}?skipReconcile=true`, w.tokens.write.authorization)
      assert.equal(res.statusCode, 204, res.body)
      assertError(await call('GET', `/helm/${helm.id}`, w.tokens.read.authorization), 404, 'not_found')
      assertError(await call('DELETE', `/helm/${helm.id}`, w.tokens.write.authorization), 404, 'not_found')
      await createHelm(w.environment.id, w.tokens.write.authorization, helmRequest({ name: body.name }))
      const freed = await call('DELETE', `/organization/${w.organization.id}/gitToken/${w.gitToken.id}`, w.tokens.admin.authorization)
      assert.equal(freed.statusCode, 204, freed.body)
    })

    it("is queued for deletion by its environment's delete (the deployment that ends it: test/jobs.test.ts)", async () => {
      const w = await world()
      const helm = (await createHelm(w.environment.id, w.tokens.write.authorization)).json()
      assert.equal((await call('DELETE', `/environment/${w.environment.id}`, w.tokens.admin.authorization)).statusCode, 204)
      // No runner here: the deletion stays queued.
      assert.equal((await call('GET', `/environment/${w.environment.id}/status`, w.tokens.read.authorization)).json().state, 'DELETE_QUEUED')
      assert.equal((await call('GET', `/helm/${helm.id}/status`, w.tokens.read.authorization)).json().state, 'DELETE_QUEUED')
    })
  })

  describe('hostile and racing input', () => {
    it('refuses repository URLs that smuggle paths or break decoding, and tokens over plain http', async () => {
      const w = await world()
      for (const url of ['https://github.com/acme/a%2F..%2F..%2Fother', 'https://github.com/acme/%E0%A4%A', 'https://github.com/acme/..']) {
        const res = await call(
          'POST',
          `/environment/${w.environment.id}/helm`,
          w.tokens.write.authorization,
          helmRequest({ source: { git_repository: { url } } }),
        )
        assert.deepEqual(
          assertValidationError(res).map((e) => e.path),
          ['/source/git_repository/url'],
          url,
        )
      }
      const clear = await call(
        'POST',
        `/environment/${w.environment.id}/helm`,
        w.tokens.write.authorization,
        helmRequest({ source: { git_repository: { url: 'http://github.com/a/b', git_token_id: w.gitToken.id } } }),
      )
      assert.match(assertValidationError(clear)[0]!.message, /must be https when a git token is used/)
    })

    it('refuses a port namespace unless cluster-wide resources are allowed', async () => {
      const w = await world()
      const ports = [{ internal_port: 80, service_name: 'web', namespace: 'kube-system' }]
      const res = await call('POST', `/environment/${w.environment.id}/helm`, w.tokens.admin.authorization, helmRequest({ ports }))
      assert.deepEqual(
        assertValidationError(res).map((e) => e.path),
        ['/ports/0/namespace'],
      )
      await createHelm(w.environment.id, w.tokens.admin.authorization, helmRequest({ ports, allow_cluster_wide_resources: true }))
    })

    it('answers 400 for text PostgreSQL cannot store, naming where it is', async () => {
      const w = await world()
      const cases: [Body, string][] = [
        [helmRequest({ name: 'a\u0000b' }), '/name'],
        [
          helmRequest({ values_override: { file: { raw: { values: [{ name: 'v.yaml', content: 'x\u0000y' }] } } } }),
          '/values_override/file/raw/values/0/content',
        ],
        [helmRequest({ values_override: { set: [['a', '\ud800']] } }), '/values_override/set/0/1'],
      ]
      for (const [body, path] of cases) {
        // JSON.stringify writes NUL and lone surrogates as \u escapes, as a client would.
        const res = await call('POST', `/environment/${w.environment.id}/helm`, w.tokens.write.authorization, body)
        assert.deepEqual(
          assertValidationError(res).map((e) => e.path),
          [path],
        )
      }
      const paired = await t.app.inject({
        method: 'POST',
        url: `/environment/${w.environment.id}/helm`,
        headers: { authorization: w.tokens.write.authorization, 'content-type': 'application/json' },
        payload: JSON.stringify(helmRequest({ description: 'ship it ROCKET' })).replace('ROCKET', '\\ud83d\\ude80'),
      })
      assert.equal(paired.statusCode, 201, paired.body)
      assert.equal(paired.json().description, 'ship it \u{1F680}', 'an escaped surrogate pair is a character like any other')
    })

    it('never answers 5xx when a referenced git token is deleted while services are being created', async () => {
      const w = await world()
      const body = (i: number) =>
        helmRequest({ name: `race-${i}`, source: { git_repository: { url: 'https://github.com/a/b', git_token_id: w.gitToken.id } } })
      const creates = Array.from({ length: 8 }, (_, i) =>
        call('POST', `/environment/${w.environment.id}/helm`, w.tokens.write.authorization, body(i)),
      )
      const remove = call('DELETE', `/organization/${w.organization.id}/gitToken/${w.gitToken.id}`, w.tokens.admin.authorization)
      const results = await Promise.all([...creates, remove])
      for (const res of results) assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`)
      const created = results.slice(0, 8).filter((res) => res.statusCode === 201).length
      const deleted = results[8]!.statusCode === 204
      assert.ok(!(deleted && created > 0), 'a token that services use was deleted')
    })
  })
})
