/**
 * Issue 20: deployment restrictions of applications, jobs and helm services. The reference's
 * operations through the official client; the values the platform refuses (400) and duplicates
 * (409); roles and other organizations (404); a signed git push deploying a restricted service only
 * when the paths it changed satisfy its restrictions; and the Terraform provider's calls replayed
 * (list on read, delete then create on apply, never edit) round-tripping without a diff.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import {
  ApplicationDeploymentRestrictionApi,
  Configuration,
  type DeploymentRestrictionModeEnum,
  HelmDeploymentRestrictionApi,
  JobDeploymentRestrictionApi,
} from 'qovery-typescript-axios'
import { pushDeploys } from '#src/modules/deployment-restrictions/path-restrictions.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, assertIsoTimestamp, rejectedStatus, UUID } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'
import { type FakeProvider, startFakeProvider } from './helpers/fake-git-providers.ts'
import { type Provider, pushPayload, signedHeaders } from './helpers/git-webhook-deliveries.ts'

type Segment = 'application' | 'job' | 'helm'
const SEGMENTS: Segment[] = ['application', 'job', 'helm']
const sha = () => randomUUID().replaceAll('-', '').padEnd(40, '0').slice(0, 40)

describe('which pushes a service with deployment restrictions deploys on', () => {
  const exclude = (value: string) => ({ mode: 'EXCLUDE' as const, type: 'PATH' as const, value })
  const match = (value: string) => ({ mode: 'MATCH' as const, type: 'PATH' as const, value })

  it('deploys on every push without restrictions, and on pushes whose changed paths are not known', () => {
    assert.equal(pushDeploys([], ['docs/a.md']), true)
    assert.equal(pushDeploys([], []), true)
    assert.equal(pushDeploys([exclude('docs/')], undefined), true)
    assert.equal(pushDeploys([match('api/')], undefined), true)
  })

  it('EXCLUDE: a push that changed only excluded paths does not deploy; one more path does', () => {
    const restrictions = [exclude('docs/'), exclude('README.md')]
    assert.equal(pushDeploys(restrictions, ['docs/a.md', 'docs/deep/b.md', 'README.md']), false)
    assert.equal(pushDeploys(restrictions, ['docs/a.md', 'src/main.ts']), true)
    // A value is a prefix of the path as a string: `docs/` does not cover `docsite/`.
    assert.equal(pushDeploys(restrictions, ['docsite/index.html']), true)
  })

  it('MATCH: only a push that changed a matched path deploys; any of several MATCH values will do', () => {
    const restrictions = [match('services/api/'), match('shared/')]
    assert.equal(pushDeploys(restrictions, ['services/web/app.ts']), false)
    assert.equal(pushDeploys(restrictions, ['services/web/app.ts', 'shared/util.ts']), true)
    assert.equal(pushDeploys(restrictions, ['services/api/main.go']), true)
    // Paths are compared as git writes them: case matters.
    assert.equal(pushDeploys(restrictions, ['Services/api/main.go']), false)
  })

  it('both: a path counts when it is matched and not excluded', () => {
    const restrictions = [match('api/'), exclude('api/docs/')]
    assert.equal(pushDeploys(restrictions, ['api/docs/x.md']), false)
    assert.equal(pushDeploys(restrictions, ['api/docs/x.md', 'api/server.ts']), true)
    assert.equal(pushDeploys(restrictions, ['web/server.ts']), false)
    // A push listed with no changed path at all changed nothing a restriction lets through.
    assert.equal(pushDeploys(restrictions, []), false)
  })
})

describe('deployment restrictions', () => {
  let t: TestApp
  let base: string
  let github: FakeProvider
  let f: ReturnType<typeof factories>

  before(async () => {
    github = await startFakeProvider('github')
    github.repositories.set('acme/app', { defaultBranch: 'main', branches: [{ name: 'main', sha: 'a'.repeat(40) }] })
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
    base = await t.listen()
    f = factories(t.db)
  })
  after(async () => {
    await t?.close()
    await github?.close()
  })

  const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload === undefined ? {} : { payload }) })

  /** An organization with its tokens, an environment, and one service of each kind with restrictions. */
  async function world() {
    const org = await f.environmentWithTokens()
    const secret = `ghp_${randomUUID().replaceAll('-', '')}`
    github.tokens.add(secret)
    const gitToken = await f.gitToken(org.organization.id, { type: 'GITHUB', token: secret, gitApiUrl: github.url })
    const application = await inject('POST', `/environment/${org.environment.id}/application`, org.tokens.admin.authorization, {
      name: uniqueName('app'),
      git_repository: { url: 'https://github.com/acme/app', branch: 'main', git_token_id: gitToken.id },
      healthchecks: {},
      ports: [{ internal_port: 8080, publicly_accessible: true }],
    })
    assert.equal(application.statusCode, 201, application.body)
    const registry = await f.containerRegistry(org.organization.id)
    const job = await f.job(org.environment.id, { source: { image: { image_name: 'busybox', tag: '1.36', registry_id: registry.id } } })
    const helmRepository = await f.helmRepository(org.organization.id)
    const helm = await f.helmService(org.environment.id, {
      source: { helm_repository: { repository: helmRepository.id, chart_name: 'app', chart_version: '1.0.0' } },
    })
    const ids: Record<Segment, string> = { application: application.json().id, job: job.id, helm: helm.id }
    return { ...org, ids }
  }

  /** The official client's calls of a kind, as one shape. */
  function client(segment: Segment, authorization: string) {
    const configuration = new Configuration({ basePath: base, apiKey: authorization })
    type Body = { mode: DeploymentRestrictionModeEnum; type: 'PATH'; value: string }
    if (segment === 'application') {
      const api = new ApplicationDeploymentRestrictionApi(configuration)
      return {
        list: async (id: string) => (await api.getApplicationDeploymentRestrictions(id)).data.results ?? [],
        create: async (id: string, body: Body) => (await api.createApplicationDeploymentRestriction(id, body)).data,
        edit: async (id: string, restrictionId: string, body: Body) => (await api.editApplicationDeploymentRestriction(id, restrictionId, body)).data,
        delete: (id: string, restrictionId: string) => api.deleteApplicationDeploymentRestriction(id, restrictionId),
      }
    }
    if (segment === 'job') {
      const api = new JobDeploymentRestrictionApi(configuration)
      return {
        list: async (id: string) => (await api.getJobDeploymentRestrictions(id)).data.results ?? [],
        create: async (id: string, body: Body) => (await api.createJobDeploymentRestriction(id, body)).data,
        edit: async (id: string, restrictionId: string, body: Body) => (await api.editJobDeploymentRestriction(id, restrictionId, body)).data,
        delete: (id: string, restrictionId: string) => api.deleteJobDeploymentRestriction(id, restrictionId),
      }
    }
    const api = new HelmDeploymentRestrictionApi(configuration)
    return {
      list: async (id: string) => (await api.getHelmDeploymentRestrictions(id)).data.results ?? [],
      create: async (id: string, body: Body) => (await api.createHelmDeploymentRestriction(id, body)).data,
      edit: async (id: string, restrictionId: string, body: Body) => (await api.editHelmDeploymentRestriction(id, restrictionId, body)).data,
      delete: (id: string, restrictionId: string) => api.deleteHelmDeploymentRestriction(id, restrictionId),
    }
  }

  const strip = (r: { mode: string; type: string; value: string }) => ({ mode: r.mode, type: r.type, value: r.value })

  for (const segment of SEGMENTS) {
    it(`${segment}: creates, lists, edits and deletes restrictions through the official client; 409 for a duplicate`, async () => {
      const w = await world()
      const id = w.ids[segment]
      const api = client(segment, w.tokens.write.authorization)
      assert.deepEqual(await api.list(id), [])

      const docs = await api.create(id, { mode: 'EXCLUDE', type: 'PATH', value: 'docs/' })
      assert.match(docs.id, UUID)
      assertIsoTimestamp(docs.created_at, 'created_at')
      assert.deepEqual(strip(docs), { mode: 'EXCLUDE', type: 'PATH', value: 'docs/' })
      const api1 = await api.create(id, { mode: 'MATCH', type: 'PATH', value: `${segment}1/src/` })
      assert.deepEqual(
        (await api.list(id)).map((r) => [r.id, r.mode, r.value]),
        [
          [docs.id, 'EXCLUDE', 'docs/'],
          [api1.id, 'MATCH', `${segment}1/src/`],
        ],
      )

      // The same mode, type and value twice is a conflict, created or edited into.
      assert.equal(await rejectedStatus(api.create(id, { mode: 'EXCLUDE', type: 'PATH', value: 'docs/' })), 409)
      assert.equal(await rejectedStatus(api.edit(id, api1.id, { mode: 'EXCLUDE', type: 'PATH', value: 'docs/' })), 409)
      // Another mode with the same value is another restriction.
      const matchDocs = await api.create(id, { mode: 'MATCH', type: 'PATH', value: 'docs/' })

      const edited = await api.edit(id, api1.id, { mode: 'EXCLUDE', type: 'PATH', value: 'README.md' })
      assert.equal(edited.id, api1.id)
      assert.equal(edited.created_at, api1.created_at)
      assertIsoTimestamp(edited.updated_at, 'updated_at')
      assert.deepEqual(strip(edited), { mode: 'EXCLUDE', type: 'PATH', value: 'README.md' })

      await api.delete(id, docs.id)
      assert.equal(await rejectedStatus(api.delete(id, docs.id)), 404)
      assert.equal(await rejectedStatus(api.edit(id, docs.id, { mode: 'MATCH', type: 'PATH', value: 'x/' })), 404)
      assert.deepEqual(
        (await api.list(id)).map((r) => r.id),
        [api1.id, matchDocs.id],
      )
      // READ lists them.
      assert.equal((await client(segment, w.tokens.read.authorization).list(id)).length, 2)

      // They go with their service.
      await t.db.deleteFrom('services').where('id', '=', id).execute()
      assert.deepEqual(await t.db.selectFrom('deploymentRestrictions').select('id').where('serviceId', '=', id).execute(), [])
    })
  }

  it('refuses values the platform refuses, and modes and types it does not know, with 400 naming the field', async () => {
    const w = await world()
    const url = `/helm/${w.ids.helm}/deploymentRestriction`
    const auth = w.tokens.write.authorization
    const cases: [object, string][] = [
      [{ mode: 'MATCH', type: 'PATH', value: '' }, '/value'],
      [{ mode: 'MATCH', type: 'PATH', value: '/src/' }, '/value'],
      [{ mode: 'MATCH', type: 'PATH', value: 'src/*.ts' }, '/value'],
      [{ mode: 'MATCH', type: 'PATH', value: 'src/\nx' }, '/value'],
      [{ mode: 'MATCH', type: 'PATH', value: '   ' }, '/value'],
      [{ mode: 'MATCH', type: 'PATH', value: 'a'.repeat(1025) }, '/value'],
      [{ mode: 'MATCH', type: 'PATH' }, '/value'],
      [{ mode: 'BOTH', type: 'PATH', value: 'src/' }, '/mode'],
      [{ mode: 'MATCH', type: 'GLOB', value: 'src/' }, '/type'],
    ]
    for (const [payload, path] of cases) {
      for (const method of ['POST', 'PUT'] as const) {
        const existing = (await inject('GET', url, auth)).json().results[0]?.id ?? randomUUID()
        const res = await inject(method, method === 'POST' ? url : `${url}/${existing}`, auth, payload)
        const body = assertError(res, 400, 'validation_failed')
        assert.ok(
          body.errors?.some((error) => error.path === path),
          `${method} ${JSON.stringify(payload)}: ${res.body}`,
        )
      }
    }
    assertError(await inject('PUT', `${url}/not-a-uuid`, auth, { mode: 'MATCH', type: 'PATH', value: 'src/' }), 400, 'validation_failed')
    assert.deepEqual((await inject('GET', url, auth)).json().results, [])
  })

  it('needs READ to list and WRITE to change; answers 404 for another organization, another kind, or another service’s restriction', async () => {
    const w = await world()
    const other = await world()
    const body = { mode: 'MATCH', type: 'PATH', value: 'src/' }
    for (const segment of SEGMENTS) {
      const url = `/${segment}/${w.ids[segment]}/deploymentRestriction`
      const created = await inject('POST', url, w.tokens.write.authorization, body)
      assert.equal(created.statusCode, 201, created.body)
      const item = `${url}/${created.json().id}`
      assert.equal((await inject('GET', url, w.tokens.read.authorization)).statusCode, 200)
      assertError(await inject('POST', url, w.tokens.deploy.authorization, { ...body, value: 'x/' }), 403, 'forbidden')
      assertError(await inject('PUT', item, w.tokens.read.authorization, body), 403, 'forbidden')
      assertError(await inject('DELETE', item, w.tokens.deploy.authorization), 403, 'forbidden')

      // Another organization's ADMIN sees nothing of it, as for a random id.
      const theirs = other.tokens.admin.authorization
      for (const [method, path] of [
        ['GET', url],
        ['POST', url],
        ['PUT', item],
        ['DELETE', item],
      ] as const) {
        assertError(await inject(method, path, theirs, method === 'POST' || method === 'PUT' ? body : undefined), 404, 'not_found')
      }
      // A service of another kind is not one of this kind.
      const otherKind = SEGMENTS.find((s) => s !== segment)!
      assertError(await inject('GET', `/${segment}/${w.ids[otherKind]}/deploymentRestriction`, w.tokens.read.authorization), 404, 'not_found')
      // A restriction is reached only through its own service.
      const underOther = `/${otherKind}/${w.ids[otherKind]}/deploymentRestriction/${created.json().id}`
      assertError(await inject('PUT', underOther, w.tokens.admin.authorization, body), 404, 'not_found')
      assertError(await inject('DELETE', underOther, w.tokens.admin.authorization), 404, 'not_found')
      assert.equal((await inject('GET', url, w.tokens.read.authorization)).json().results.length, 1)
    }
  })

  describe('at git push', () => {
    async function organization() {
      const org = await f.environmentWithTokens()
      const made = await inject('POST', `/organization/${org.organization.id}/gitWebhookSecret`, org.tokens.admin.authorization)
      assert.equal(made.statusCode, 201, made.body)
      return { ...org, secret: made.json().secret as string }
    }

    async function helmFollowing(environmentId: string, url: string) {
      return f.helmService(environmentId, { auto_deploy: true, source: { git_repository: { url, branch: 'main', root_path: '/chart' } } })
    }

    async function restrict(authorization: string, helmId: string, mode: 'EXCLUDE' | 'MATCH', value: string) {
      const res = await inject('POST', `/helm/${helmId}/deploymentRestriction`, authorization, { mode, type: 'PATH', value })
      assert.equal(res.statusCode, 201, res.body)
    }

    /** A push of `provider` to main whose commits changed `files` (as added, modified and removed in turn). */
    function push(provider: Provider, fullName: string, files: string[][] | undefined, extra: object = {}) {
      const payload = pushPayload(provider, fullName, 'main', sha(), 'octocat') as Record<string, unknown>
      if (files !== undefined) {
        payload.commits = files.map((changed, i) => ({
          id: sha(),
          added: changed.filter((_, j) => j % 3 === i % 3),
          modified: changed.filter((_, j) => j % 3 === (i + 1) % 3),
          removed: changed.filter((_, j) => j % 3 === (i + 2) % 3),
        }))
      }
      return { ...payload, ...extra }
    }

    async function deliver(provider: Provider, organizationId: string, secret: string, payload: unknown) {
      const body = JSON.stringify(payload)
      const res = await t.app.inject({
        method: 'POST',
        url: `/organization/${organizationId}/gitWebhook/${provider}`,
        headers: signedHeaders(provider, body, secret, randomUUID()),
        payload: body,
      })
      assert.equal(res.statusCode, 200, res.body)
      return res.json() as { outcome: string; reason: string | null; deployments: { service_ids: string[] }[] }
    }

    const deployed = (outcome: { deployments: { service_ids: string[] }[] }) => outcome.deployments.flatMap((d) => d.service_ids).sort()

    for (const provider of ['github', 'gitlab'] as const) {
      it(`${provider}: a signed push whose changed files are all excluded deploys nothing; one that changed a matched file deploys that service`, async () => {
        const org = await organization()
        const fullName = `acme-${randomUUID().slice(0, 6)}/mono`
        const url = `https://${provider}.com/${fullName}`
        const auth = org.tokens.write.authorization
        const api = await helmFollowing(org.environment.id, url)
        const web = await helmFollowing(org.environment.id, url)
        const docsExcluded = await helmFollowing(org.environment.id, url)
        await restrict(auth, api.id, 'MATCH', 'services/api/')
        await restrict(auth, web.id, 'MATCH', 'services/web/')
        await restrict(auth, docsExcluded.id, 'EXCLUDE', 'docs/')
        await restrict(auth, docsExcluded.id, 'EXCLUDE', 'README.md')

        const onlyDocs = await deliver(
          provider,
          org.organization.id,
          org.secret,
          push(provider, fullName, [['docs/a.md', 'README.md'], ['docs/b/c.md']]),
        )
        assert.equal(onlyDocs.outcome, 'IGNORED')
        assert.match(onlyDocs.reason ?? '', /deployment restrictions/)
        assert.deepEqual(await t.db.selectFrom('deploymentRequests').select('id').where('organizationId', '=', org.organization.id).execute(), [])

        const apiChange = await deliver(
          provider,
          org.organization.id,
          org.secret,
          push(provider, fullName, [['docs/a.md'], ['services/api/main.go']]),
        )
        assert.equal(apiChange.outcome, 'DEPLOYED')
        assert.deepEqual(deployed(apiChange), [api.id, docsExcluded.id].sort())
        const snapshots = await t.db
          .selectFrom('deploymentSnapshots')
          .innerJoin('deploymentRequests', 'deploymentRequests.id', 'deploymentSnapshots.executionId')
          .select('deploymentSnapshots.serviceId')
          .where('deploymentRequests.organizationId', '=', org.organization.id)
          .execute()
        assert.deepEqual(snapshots.map((s) => s.serviceId).sort(), [api.id, docsExcluded.id].sort())
      })
    }

    it('deploys as if there were no restrictions when the push does not list every changed file: none listed, a partial GitLab list, Bitbucket', async () => {
      const org = await organization()
      const fullName = `acme-${randomUUID().slice(0, 6)}/mono`
      const auth = org.tokens.write.authorization
      const targets: Record<Provider, string> = { github: '', gitlab: '', bitbucket: '' }
      for (const provider of ['github', 'gitlab', 'bitbucket'] as const) {
        const helm = await helmFollowing(org.environment.id, `https://${provider === 'bitbucket' ? 'bitbucket.org' : `${provider}.com`}/${fullName}`)
        await restrict(auth, helm.id, 'MATCH', 'never/')
        targets[provider] = helm.id
      }
      // A new branch at a commit GitHub already had: no commit listed.
      const created = await deliver('github', org.organization.id, org.secret, push('github', fullName, [], { created: true }))
      assert.deepEqual(deployed(created), [targets.github])
      // GitLab lists 20 commits and counts them all.
      const partial = await deliver('gitlab', org.organization.id, org.secret, push('gitlab', fullName, [['docs/a.md']], { total_commits_count: 21 }))
      assert.deepEqual(deployed(partial), [targets.gitlab])
      const listed = await deliver('gitlab', org.organization.id, org.secret, push('gitlab', fullName, [['docs/a.md']], { total_commits_count: 1 }))
      assert.equal(listed.outcome, 'IGNORED')
      // Bitbucket Cloud's push events list no files.
      const bitbucket = await deliver('bitbucket', org.organization.id, org.secret, push('bitbucket', fullName, undefined))
      assert.deepEqual(deployed(bitbucket), [targets.bitbucket])
    })
  })

  it('replays the Terraform provider: create then read, a plan without changes calls nothing, a changed value is deleted and created, import reads them', async () => {
    const w = await world()
    const auth = w.tokens.admin.authorization
    for (const segment of SEGMENTS) {
      const url = `/${segment}/${w.ids[segment]}/deploymentRestriction`
      // Create: the service, then UpdateServiceDeploymentRestrictions with nothing to delete and each restriction to create.
      const config = [
        { mode: 'EXCLUDE', type: 'PATH', value: 'docs/' },
        { mode: 'MATCH', type: 'PATH', value: `${segment}1/src/` },
        { mode: 'MATCH', type: 'PATH', value: 'Makefile' },
      ]
      for (const restriction of config) {
        const res = await inject('POST', url, auth, restriction)
        assert.equal(res.statusCode, 201, res.body)
      }
      // Read: the list, into state as {id, mode, type, value}; it must equal the configuration, value for value.
      const read = async () =>
        ((await inject('GET', url, auth)).json().results as { id: string; mode: string; type: string; value: string }[]).map(
          ({ id, mode, type, value }) => ({
            id,
            mode,
            type,
            value,
          }),
        )
      const state = await read()
      const setOf = (items: { mode: string; type: string; value: string }[]) => new Set(items.map((r) => `${r.mode} ${r.type} ${r.value}`))
      assert.deepEqual(setOf(state), setOf(config))
      // Refresh: reading again gives the same ids and values: no diff.
      assert.deepEqual(await read(), state)

      // Apply with one value changed: the element loses its id, so the provider deletes the old one and creates the new.
      const changed = state.find((r) => r.value === 'Makefile')!
      assert.equal((await inject('DELETE', `${url}/${changed.id}`, auth)).statusCode, 204)
      assert.equal((await inject('POST', url, auth, { mode: 'MATCH', type: 'PATH', value: 'build/Makefile' })).statusCode, 201)
      const after = await read()
      assert.deepEqual(
        after.filter((r) => r.id !== changed.id && r.value !== 'build/Makefile'),
        state.filter((r) => r.id !== changed.id),
      )
      assert.ok(after.some((r) => r.value === 'build/Makefile' && r.mode === 'MATCH'))

      // Import: the state has no restrictions; the read reflects the API's with their ids.
      assert.deepEqual(await read(), after)
      // Destroy removes them all, one delete each.
      for (const restriction of after) assert.equal((await inject('DELETE', `${url}/${restriction.id}`, auth)).statusCode, 204)
      assert.deepEqual(await read(), [])
    }
  })
})
