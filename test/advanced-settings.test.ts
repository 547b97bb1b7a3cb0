import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { isDeepStrictEqual } from 'node:util'
import {
  ApplicationConfigurationApi,
  ApplicationsApi,
  Configuration,
  ContainerConfigurationApi,
  ContainersApi,
  HelmConfigurationApi,
  HelmsApi,
  JobConfigurationApi,
  JobsApi,
} from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { rejectedStatus } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'
import { type FakeProvider, startFakeProvider } from './helpers/fake-git-providers.ts'

// Advanced settings of applications, containers, jobs and helm services: the defaults, reads and
// partial edits through the official client, the 400 that names each bad key, who may read and
// edit, and the exact calls the Terraform provider makes on an apply and a refresh.

const HEAD = 'c'.repeat(40)
type Settings = Record<string, unknown>

describe('advanced settings', () => {
  let t: TestApp
  let basePath: string
  let github: FakeProvider

  before(async () => {
    github = await startFakeProvider('github')
    github.tokens.add('ghp-settings')
    github.repositories.set('acme/web', {
      defaultBranch: 'main',
      branches: [{ name: 'main', sha: HEAD }],
      commits: [{ sha: HEAD, message: 'Initial', authorName: 'Ada', date: '2024-05-01T00:00:00Z' }],
    })
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
    basePath = await t.listen()
  })
  after(async () => {
    await t.close()
    await github.close()
  })

  /** An environment with one service of each kind, and its tokens. */
  async function world() {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token: 'ghp-settings', gitApiUrl: github.url })
    const [container, job, helm] = await Promise.all([f.containerService(environment.id), f.job(environment.id), f.helmService(environment.id)])
    const application = await t.app.inject({
      method: 'POST',
      url: `/environment/${environment.id}/application`,
      headers: { authorization: tokens.admin.authorization },
      payload: {
        name: 'web',
        git_repository: { url: 'https://github.com/acme/web', branch: 'main', git_token_id: gitToken.id, provider: 'GITHUB' },
        build_mode: 'DOCKER',
        dockerfile_path: 'Dockerfile',
        healthchecks: {},
      },
    })
    assert.equal(application.statusCode, 201, application.body)
    const ids = { application: application.json().id as string, container: container.id, job: job.id, helm: helm.id }
    return { organization, environment, tokens, ids }
  }

  const call = async (method: 'GET' | 'PUT', url: string, authorization: string | undefined, payload?: Settings) => {
    const res = await t.app.inject({ method, url, headers: authorization ? { authorization } : {}, ...(payload ? { payload } : {}) })
    return { status: res.statusCode, body: res.json() }
  }

  it('serves the defaults of each kind to any member, every key of the public document with a value', async () => {
    const { tokens } = await world()
    const expected: Record<string, [number, Settings]> = {
      Application: [
        47,
        { 'deployment.termination_grace_period_seconds': 30, 'build.timeout_max_sec': 1800, 'hpa.memory.average_utilization_percent': null },
      ],
      Container: [41, { 'deployment.update_strategy.type': 'RollingUpdate', 'network.ingress.proxy_request_buffering': 'on' }],
      Job: [14, { 'job.delete_ttl_seconds_after_finished': null, 'cronjob.concurrency_policy': 'Forbid', 'build.timeout_max_sec': 1800 }],
      Helm: [29, { 'deployment.custom_domain_check_enabled': true, 'network.gateway_api.retry.per_try_timeout_seconds': null }],
    }
    for (const [kind, [count, some]] of Object.entries(expected)) {
      const res = await call('GET', `/default${kind}AdvancedSettings`, tokens.read.authorization)
      assert.equal(res.status, 200)
      assert.equal(Object.keys(res.body).length, count, kind)
      for (const [key, value] of Object.entries(some)) assert.deepEqual(res.body[key], value, `${kind} ${key}`)
      assert.equal((await call('GET', `/default${kind}AdvancedSettings`, undefined)).status, 401)
    }
  })

  it('reads the defaults, edits some keys, keeps the others and reads back what it wrote, for every kind, through the official client', async () => {
    const { tokens, ids } = await world()
    const configuration = new Configuration({ basePath, apiKey: tokens.write.authorization })
    const application = new ApplicationConfigurationApi(configuration)
    const container = new ContainerConfigurationApi(configuration)
    const job = new JobConfigurationApi(configuration)
    const helm = new HelmConfigurationApi(configuration)
    const defaults = {
      application: (await new ApplicationsApi(configuration).getDefaultApplicationAdvancedSettings()).data,
      container: (await new ContainersApi(configuration).getDefaultContainerAdvancedSettings()).data,
      job: (await new JobsApi(configuration).getDefaultJobAdvancedSettings()).data,
      helm: (await new HelmsApi(configuration).getDefaultHelmAdvancedSettings()).data,
    }
    assert.deepEqual((await application.getAdvancedSettings(ids.application)).data, defaults.application)
    assert.deepEqual((await container.getContainerAdvancedSettings(ids.container)).data, defaults.container)
    assert.deepEqual((await job.getJobAdvancedSettings(ids.job)).data, defaults.job)
    assert.deepEqual((await helm.getHelmAdvancedSettings(ids.helm)).data, defaults.helm)

    const applicationEdit = await application.editAdvancedSettings(ids.application, {
      'build.timeout_max_sec': 600,
      'deployment.lifecycle.pre_stop_exec_command': ['/bin/sh', '-c', 'sleep 15'],
      'deployment.affinity.node.required': { 'node.kubernetes.io/pool': 'web' },
    })
    assert.equal(applicationEdit.status, 201)
    const applicationWanted = {
      ...defaults.application,
      'build.timeout_max_sec': 600,
      'deployment.lifecycle.pre_stop_exec_command': ['/bin/sh', '-c', 'sleep 15'],
      'deployment.affinity.node.required': { 'node.kubernetes.io/pool': 'web' },
    }
    assert.deepEqual(applicationEdit.data, applicationWanted)
    // A later edit of another key leaves the first ones as they were.
    await application.editAdvancedSettings(ids.application, { 'network.ingress.enable_cors': true })
    assert.deepEqual((await application.getAdvancedSettings(ids.application)).data, { ...applicationWanted, 'network.ingress.enable_cors': true })
    // Set back to its default, a key reads as the default again.
    await application.editAdvancedSettings(ids.application, { 'build.timeout_max_sec': 1800 })
    assert.equal((await application.getAdvancedSettings(ids.application)).data['build.timeout_max_sec'], 1800)

    await container.editContainerAdvancedSettings(ids.container, {
      'deployment.termination_grace_period_seconds': 5,
      'network.gateway_api.retry.num_retries': 3,
    })
    assert.deepEqual((await container.getContainerAdvancedSettings(ids.container)).data, {
      ...defaults.container,
      'deployment.termination_grace_period_seconds': 5,
      'network.gateway_api.retry.num_retries': 3,
    })
    // null puts a nullable setting back to unset.
    await container.editContainerAdvancedSettings(ids.container, { 'network.gateway_api.retry.num_retries': null })
    assert.equal((await container.getContainerAdvancedSettings(ids.container)).data['network.gateway_api.retry.num_retries'], null)

    await job.editJobAdvancedSettings(ids.job, { 'job.delete_ttl_seconds_after_finished': 120, 'cronjob.concurrency_policy': 'Replace' })
    assert.deepEqual((await job.getJobAdvancedSettings(ids.job)).data, {
      ...defaults.job,
      'job.delete_ttl_seconds_after_finished': 120,
      'cronjob.concurrency_policy': 'Replace',
    })
    await helm.editHelmAdvancedSettings(ids.helm, { 'network.ingress.proxy_body_size_mb': 512 })
    assert.deepEqual((await helm.getHelmAdvancedSettings(ids.helm)).data, { ...defaults.helm, 'network.ingress.proxy_body_size_mb': 512 })

    // READ may read, not edit.
    const readOnly = new Configuration({ basePath, apiKey: tokens.read.authorization })
    assert.equal((await new HelmConfigurationApi(readOnly).getHelmAdvancedSettings(ids.helm)).data['network.ingress.proxy_body_size_mb'], 512)
    assert.equal(await rejectedStatus(new HelmConfigurationApi(readOnly).editHelmAdvancedSettings(ids.helm, {})), 403)
    assert.equal(await rejectedStatus(new JobConfigurationApi(readOnly).editJobAdvancedSettings(ids.job, {})), 403)
  })

  it('refuses unknown keys, wrong types and values out of range in one 400 that names each key by its JSON pointer, and changes nothing', async () => {
    const { tokens, ids } = await world()
    const res = await call('PUT', `/job/${ids.job}/advancedSettings`, tokens.write.authorization, {
      'build.timeout_max_sec': '60',
      'cronjob.failed_jobs_history_limit': -1,
      'cronjob.concurrency_policy': 'Sometimes',
      'network.ingress.enable_cors': true,
      'build.nope': 1,
      'job.delete_ttl_seconds_after_finished': 30,
    })
    assert.equal(res.status, 400)
    assert.equal(res.body.code, 'validation_failed')
    const paths = (res.body.errors as { path: string; message: string }[]).map((error) => error.path).sort()
    assert.deepEqual(paths, [
      '/build.nope',
      '/build.timeout_max_sec',
      '/cronjob.concurrency_policy',
      '/cronjob.failed_jobs_history_limit',
      '/network.ingress.enable_cors',
    ])
    const unknown = (res.body.errors as { path: string; message: string }[]).find((error) => error.path === '/build.nope')
    assert.equal(unknown?.message, 'is not a known key')
    assert.equal(
      (await call('GET', `/job/${ids.job}/advancedSettings`, tokens.read.authorization)).body['job.delete_ttl_seconds_after_finished'],
      null,
    )

    // A key of another kind is unknown to this one; a body that is not an object is refused too.
    const helm = await call('PUT', `/helm/${ids.helm}/advancedSettings`, tokens.write.authorization, { 'build.timeout_max_sec': 60 })
    assert.equal(helm.status, 400)
    assert.deepEqual(
      helm.body.errors.map((error: { path: string }) => error.path),
      ['/build.timeout_max_sec'],
    )
    const array = await t.app.inject({
      method: 'PUT',
      url: `/container/${ids.container}/advancedSettings`,
      headers: { authorization: tokens.write.authorization, 'content-type': 'application/json' },
      payload: '[]',
    })
    assert.equal(array.statusCode, 400)
  })

  it("answers 404 for another kind's id, another organization's service and a deleted service, whose settings go with it", async () => {
    const { tokens, ids } = await world()
    const other = await world()
    assert.equal((await call('GET', `/container/${ids.job}/advancedSettings`, tokens.read.authorization)).status, 404)
    assert.equal((await call('GET', `/advancedSettings`, tokens.read.authorization)).status, 404)
    const foreign = await call('GET', `/job/${other.ids.job}/advancedSettings`, tokens.admin.authorization)
    const random = await call('GET', `/job/${crypto.randomUUID()}/advancedSettings`, tokens.admin.authorization)
    assert.equal(foreign.status, 404)
    assert.equal(foreign.body.message, random.body.message)
    assert.equal((await call('PUT', `/job/${other.ids.job}/advancedSettings`, tokens.admin.authorization, {})).status, 404)

    await call('PUT', `/job/${ids.job}/advancedSettings`, tokens.write.authorization, { 'build.timeout_max_sec': 60 })
    const stored = () => t.db.selectFrom('serviceAdvancedSettings').select('settings').where('serviceId', '=', ids.job).executeTakeFirst()
    assert.deepEqual((await stored())?.settings, { 'build.timeout_max_sec': 60 })
    const deleted = await t.app.inject({ method: 'DELETE', url: `/job/${ids.job}`, headers: { authorization: tokens.admin.authorization } })
    assert.equal(deleted.statusCode, 204)
    assert.equal(await stored(), undefined)
    assert.equal((await call('GET', `/job/${ids.job}/advancedSettings`, tokens.read.authorization)).status, 404)
  })

  it('reads a stored value it no longer takes, or a key the kind no longer has, as the default, so that sending back what was read works', async () => {
    const { tokens, ids } = await world()
    // As a job's settings were stored before migration 0020: every key, with any text as the policy.
    await t.db
      .insertInto('serviceAdvancedSettings')
      .values({
        serviceId: ids.job,
        settings: JSON.stringify({ 'cronjob.concurrency_policy': 'forbid', 'cronjob.gone': 1, 'build.timeout_max_sec': 90 }),
      })
      .execute()
    const read = await call('GET', `/job/${ids.job}/advancedSettings`, tokens.read.authorization)
    assert.equal(read.body['cronjob.concurrency_policy'], 'Forbid')
    assert.equal(read.body['build.timeout_max_sec'], 90)
    assert.equal('cronjob.gone' in read.body, false)
    assert.equal((await call('PUT', `/job/${ids.job}/advancedSettings`, tokens.write.authorization, read.body)).status, 201)
  })

  it('carries every setting of each deployed service, as of the trigger, into the deployment snapshot', async () => {
    const { environment, tokens, ids } = await world()
    await call('PUT', `/job/${ids.job}/advancedSettings`, tokens.write.authorization, { 'deployment.termination_grace_period_seconds': 7 })
    const deployed = await t.app.inject({
      method: 'POST',
      url: `/job/${ids.job}/deploy`,
      headers: { authorization: tokens.deploy.authorization },
      payload: { image_tag: '1.37' },
    })
    assert.equal(deployed.statusCode, 202, deployed.body)
    // A later edit does not change what was queued.
    await call('PUT', `/job/${ids.job}/advancedSettings`, tokens.write.authorization, { 'deployment.termination_grace_period_seconds': 8 })
    const defaults = (await call('GET', '/defaultJobAdvancedSettings', tokens.read.authorization)).body
    const snapshot = await t.db
      .selectFrom('deploymentSnapshots')
      .select('advancedSettings')
      .where('serviceId', '=', ids.job)
      .executeTakeFirstOrThrow()
    assert.deepEqual(snapshot.advancedSettings, { ...defaults, 'deployment.termination_grace_period_seconds': 7 })

    // A whole environment's deployment snapshots each service with its kind's settings; a database has none.
    const database = await factories(t.db).database(environment.id)
    const all = await t.app.inject({
      method: 'POST',
      url: `/environment/${environment.id}/deploy`,
      headers: { authorization: tokens.deploy.authorization },
    })
    assert.equal(all.statusCode, 202, all.body)
    const rows = await t.db
      .selectFrom('deploymentSnapshots')
      .select(['serviceId', 'advancedSettings'])
      .where(
        'executionId',
        '=',
        (await t.db.selectFrom('deploymentSnapshots').select('executionId').where('serviceId', '=', database.id).executeTakeFirstOrThrow())
          .executionId,
      )
      .execute()
    const byService = new Map(rows.map((row) => [row.serviceId, row.advancedSettings]))
    assert.deepEqual(byService.get(database.id), {})
    assert.equal(byService.get(ids.job)?.['deployment.termination_grace_period_seconds'], 8)
    assert.equal(byService.get(ids.helm)?.['network.ingress.proxy_body_size_mb'], 100)
    assert.equal(Object.keys(byService.get(ids.application) ?? {}).length, 47)
  })

  // internal/domain/advanced_settings/service_advanced_settings.go and normalize.go of the
  // Terraform provider, replayed: an apply GETs the service's settings, lays the configured ones
  // over them and PUTs the whole object; a refresh GETs the settings and the defaults and keeps the
  // keys in state (or, on import, those that differ from the defaults).
  describe('replays the Terraform provider', () => {
    const normalize = (value: unknown) => {
      if (typeof value !== 'string') return value
      if (value === 'true') return true
      if (value === 'false') return false
      const number = Number(value)
      return value.trim() !== '' && Number.isFinite(number) ? number : value
    }
    function overridden(current: Settings, defaults: Settings, state: Settings, importing: boolean): Settings {
      const result: Settings = {}
      for (const [name, value] of Object.entries(current)) {
        const inState = name in state
        if (!importing && !inState) continue
        if (inState && isDeepStrictEqual(normalize(state[name]), normalize(value))) result[name] = state[name]
        else if (!isDeepStrictEqual(normalize(defaults[name]), normalize(value))) result[name] = normalize(value)
        else if (inState) result[name] = state[name]
      }
      for (const [name, value] of Object.entries(state)) if (!(name in current) && !(name in defaults)) result[name] = value
      return result
    }

    const kinds = [
      {
        path: 'application',
        kind: 'Application',
        plan: { 'build.timeout_max_sec': 900, 'network.ingress.cors_allow_origin': 'https://acme.example.com' },
      },
      { path: 'container', kind: 'Container', plan: { 'deployment.antiaffinity.pod': 'Requirred', 'hpa.cpu.average_utilization_percent': 75 } },
      { path: 'job', kind: 'Job', plan: { 'job.delete_ttl_seconds_after_finished': 3600, 'build.timeout_max_sec': 60 } },
      {
        path: 'helm',
        kind: 'Helm',
        plan: { 'network.ingress.whitelist_source_range': '10.0.0.0/8', 'deployment.custom_domain_check_enabled': false },
      },
    ] as const

    for (const { path, kind, plan } of kinds) {
      it(`applies and refreshes a ${path}'s advanced_settings_json without a diff`, async () => {
        const { tokens, ids } = await world()
        const token = tokens.write.authorization
        const url = `/${path}/${ids[path]}/advancedSettings`
        const apply = async (planned: Settings) => {
          const current = await call('GET', url, token)
          assert.equal(current.status, 200)
          const put = await call('PUT', url, token, { ...current.body, ...planned })
          assert.equal(put.status, 201, JSON.stringify(put.body))
        }
        const refresh = async (state: Settings, importing = false) => {
          const current = await call('GET', url, token)
          const defaults = await call('GET', `/default${kind}AdvancedSettings`, token)
          return overridden(current.body, defaults.body, state, importing)
        }

        await apply(plan)
        assert.deepEqual(await refresh(plan), plan)
        // A second apply of the same configuration changes nothing; an import finds the same keys.
        await apply(plan)
        assert.deepEqual(await refresh(plan), plan)
        assert.deepEqual(await refresh({}, true), plan)
        // An empty configuration reads back empty.
        assert.deepEqual(await refresh({}), {})
      })
    }
  })
})
