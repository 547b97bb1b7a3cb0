import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

describe("the organization's own views", () => {
  let t: TestApp

  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())

  /** Two projects: the first with an environment of a helm (chart in git), a helm of a repository, a job and a database, and one of a container; the second with an empty environment. */
  async function world() {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const [first, second] = [await f.project(organization.id, 'a first'), await f.project(organization.id, 'b second')]
    const busy = await f.environment(first.id, { name: 'a busy' })
    const quiet = await f.environment(first.id, { name: 'b quiet' })
    const empty = await f.environment(second.id, { name: 'c empty' })
    const gitToken = await f.gitToken(organization.id)
    const repository = await f.helmRepository(organization.id)
    const services = {
      chartInGit: await f.helmService(busy.id, {
        name: 'chart in git',
        source: { git_repository: { url: 'https://github.com/acme/charts', branch: 'main', git_token_id: gitToken.id } },
      }),
      chartOfRepository: await f.helmService(busy.id, {
        name: 'chart of repository',
        source: { helm_repository: { repository: repository.id, chart_name: 'app', chart_version: '1.0.0' } },
      }),
      job: await f.job(busy.id, { name: 'job' }),
      database: await f.database(busy.id, { name: 'database' }),
      container: await f.containerService(quiet.id, { name: 'container' }),
    }
    return { organization, tokens, projects: { first, second }, environments: { busy, quiet, empty }, gitToken, repository, services }
  }

  const get = async (url: string, authorization: string): Promise<Body> => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization } })
    assert.equal(res.statusCode, 200, `${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }

  it('lists the services of every project, filtered by project, environment or cluster', async () => {
    const w = await world()
    const auth = w.tokens.read.authorization
    const all = await get(`/organization/${w.organization.id}/services`, auth)
    assert.deepEqual(
      all.results.map((service: Body) => [service.name, service.service_type, service.environment_name, service.project_name]),
      [
        ['chart in git', 'HELM', 'a busy', 'a first'],
        ['chart of repository', 'HELM', 'a busy', 'a first'],
        ['database', 'DATABASE', 'a busy', 'a first'],
        ['job', 'JOB', 'a busy', 'a first'],
        ['container', 'CONTAINER', 'b quiet', 'a first'],
      ],
    )
    const job = all.results.find((service: Body) => service.id === w.services.job.id)
    assert.equal(job.job_type, 'LIFECYCLE')
    assert.equal(job.cluster_id, w.environments.busy.clusterId)
    assert.ok(job.icon_uri.length > 0)
    const quiet = await get(`/organization/${w.organization.id}/services?environment_id=${w.environments.quiet.id}`, auth)
    assert.deepEqual(
      quiet.results.map((service: Body) => service.id),
      [w.services.container.id],
    )
    const second = await get(`/organization/${w.organization.id}/services?project_id=${w.projects.second.id}`, auth)
    assert.deepEqual(second.results, [])
    const onCluster = await get(`/organization/${w.organization.id}/services?cluster_id=${w.environments.busy.clusterId}`, auth)
    assert.equal(onCluster.results.length, 5)
  })

  it('lists the environments of every project, and counts environments and services per project and per environment', async () => {
    const w = await world()
    const auth = w.tokens.read.authorization
    const environments = await get(`/organization/${w.organization.id}/environments`, auth)
    assert.deepEqual(
      environments.results.map((environment: Body) => [environment.name, environment.project.id, environment.organization.id]),
      [
        ['a busy', w.projects.first.id, w.organization.id],
        ['b quiet', w.projects.first.id, w.organization.id],
        ['c empty', w.projects.second.id, w.organization.id],
      ],
    )
    assert.deepEqual((await get(`/organization/${w.organization.id}/project/stats`, auth)).results, [
      { id: w.projects.first.id, environment_total_number: 2, service_total_number: 5 },
      { id: w.projects.second.id, environment_total_number: 1, service_total_number: 0 },
    ])
    assert.deepEqual((await get(`/project/${w.projects.first.id}/environment/stats`, auth)).results, [
      { id: w.environments.busy.id, service_total_number: 4 },
      { id: w.environments.quiet.id, service_total_number: 1 },
    ])
  })

  it("gives each environment's overview: its cluster, its services and its status", async () => {
    const w = await world()
    const overview = await get(`/project/${w.projects.first.id}/environment/overview`, w.tokens.read.authorization)
    assert.deepEqual(
      overview.results.map((environment: Body) => [
        environment.id,
        environment.services_overview,
        environment.cluster.id,
        environment.deployment_status.id,
      ]),
      [
        [w.environments.busy.id, { service_count: 4, managed_by: 'QOVERY' }, w.environments.busy.clusterId, w.environments.busy.id],
        [w.environments.quiet.id, { service_count: 1, managed_by: 'QOVERY' }, w.environments.quiet.clusterId, w.environments.quiet.id],
      ],
    )
    const cluster = overview.results[0].cluster
    const stored = await t.db.selectFrom('clusters').select(['name', 'cloudProvider']).where('id', '=', cluster.id).executeTakeFirstOrThrow()
    assert.deepEqual(cluster, { id: cluster.id, name: stored.name, cloud_provider: stored.cloudProvider, is_demo: false })
    assert.equal(overview.results[0].deployment_status.deployment_status, 'NEVER_DEPLOYED')
  })

  it('lists the services that use a git token, and those that use a helm repository', async () => {
    const w = await world()
    const auth = w.tokens.read.authorization
    const byToken = await get(`/organization/${w.organization.id}/gitToken/${w.gitToken.id}/associatedServices`, auth)
    assert.deepEqual(byToken.results, [
      {
        project_id: w.projects.first.id,
        project_name: 'a first',
        environment_id: w.environments.busy.id,
        environment_name: 'a busy',
        service_id: w.services.chartInGit.id,
        service_name: 'chart in git',
        service_type: 'HELM',
      },
    ])
    const byRepository = await get(`/organization/${w.organization.id}/helmRepository/${w.repository.id}/associatedServices`, auth)
    assert.deepEqual(
      byRepository.results.map((service: Body) => [service.service_id, service.service_type]),
      [[w.services.chartOfRepository.id, 'HELM']],
    )
  })

  it("answers 404 to another organization's member", async () => {
    const w = await world()
    const stranger = (await factories(t.db).organizationWithTokens()).tokens.admin.authorization
    for (const url of [
      `/organization/${w.organization.id}/services`,
      `/organization/${w.organization.id}/environments`,
      `/organization/${w.organization.id}/project/stats`,
      `/project/${w.projects.first.id}/environment/stats`,
      `/project/${w.projects.first.id}/environment/overview`,
      `/organization/${w.organization.id}/gitToken/${w.gitToken.id}/associatedServices`,
    ]) {
      assertError(await t.app.inject({ method: 'GET', url, headers: { authorization: stranger } }), 404, 'not_found')
    }
  })
})
