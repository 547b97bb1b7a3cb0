import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  ApplicationActionsApi,
  ApplicationDeploymentHistoryApi,
  ApplicationMainCallsApi,
  type ApplicationRequest,
  ApplicationsApi,
  Configuration,
} from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, rejectedStatus } from './helpers/assertions.ts'
import { factories, uniqueName } from './helpers/factories.ts'
import { type FakeProvider, startFakeProvider } from './helpers/fake-git-providers.ts'

const HEAD = 'd'.repeat(40)

describe('applications through the official client', () => {
  let t: TestApp
  let basePath: string
  let github: FakeProvider

  before(async () => {
    github = await startFakeProvider('github')
    github.tokens.add('ghp-client')
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

  it('creates, lists, reads, edits, acts on and deletes an application, reading back what it wrote', async () => {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token: 'ghp-client', gitApiUrl: github.url })
    const configuration = new Configuration({ basePath, apiKey: tokens.write.authorization })
    const applications = new ApplicationsApi(configuration)
    const main = new ApplicationMainCallsApi(configuration)

    const request: ApplicationRequest = {
      name: 'web',
      description: 'the storefront',
      git_repository: { url: 'https://github.com/acme/web', branch: 'main', root_path: '/app', git_token_id: gitToken.id, provider: 'GITHUB' },
      build_mode: 'DOCKER',
      dockerfile_path: 'Dockerfile.prod',
      cpu: 250,
      memory: 256,
      min_running_instances: 1,
      max_running_instances: 3,
      healthchecks: {
        readiness_probe: { type: { http: { path: '/ready', scheme: 'HTTP', port: 8080 } }, initial_delay_seconds: 5 },
        liveness_probe: null,
      },
      auto_preview: false,
      auto_deploy: false,
      ports: [
        { name: 'web', internal_port: 8080, publicly_accessible: true, is_default: true, protocol: 'HTTP' },
        { internal_port: 9090, publicly_accessible: false, protocol: 'GRPC' },
      ],
      storage: [{ type: 'FAST_SSD', size: 10, mount_point: '/data' }],
      arguments: ['--port', '8080'],
      entrypoint: '/bin/web',
    }
    const { data: created, status, headers } = await applications.createApplication(environment.id, request)
    assert.equal(status, 201)
    assert.ok(headers.etag)
    assert.equal(created.name, 'web')
    assert.equal(created.service_type, 'APPLICATION')
    assert.deepEqual(
      { ...created.git_repository },
      {
        has_access: true,
        provider: 'GITHUB',
        owner: 'acme',
        name: 'web',
        url: 'https://github.com/acme/web',
        branch: 'main',
        root_path: '/app',
        git_token_id: gitToken.id,
        git_token_name: gitToken.name,
      },
    )
    assert.equal(created.dockerfile_path, 'Dockerfile.prod')
    assert.equal(created.cpu, 250)
    assert.equal(created.memory, 256)
    assert.equal(created.max_running_instances, 3)
    assert.equal(created.auto_deploy, false)
    assert.deepEqual(created.healthchecks.readiness_probe, {
      type: { http: { path: '/ready', scheme: 'HTTP', port: 8080 } },
      initial_delay_seconds: 5,
      period_seconds: 10,
      timeout_seconds: 5,
      success_threshold: 1,
      failure_threshold: 9,
    })
    assert.deepEqual(
      created.ports?.map(({ id: _id, ...port }) => port),
      [
        { name: 'web', internal_port: 8080, external_port: 443, publicly_accessible: true, is_default: true, protocol: 'HTTP' },
        { name: 'p9090', internal_port: 9090, publicly_accessible: false, is_default: false, protocol: 'GRPC' },
      ],
    )
    assert.deepEqual(created.arguments, ['--port', '8080'])
    assert.equal(created.entrypoint, '/bin/web')
    assert.equal(created.storage?.[0]?.mount_point, '/data')

    const listed = await applications.listApplication(environment.id)
    assert.deepEqual(
      listed.data.results?.map((app) => app.id),
      [created.id],
    )
    // The environment's services list it in its kind's shape, beside the other kinds.
    const services = await t.app.inject({
      method: 'GET',
      url: `/environment/${environment.id}/services`,
      headers: { authorization: tokens.read.authorization },
    })
    assert.equal(services.statusCode, 200, services.body)
    const listedService = services.json().results.find((service: { id: string }) => service.id === created.id)
    assert.equal(listedService.service_type, 'APPLICATION')
    assert.equal(listedService.git_repository.url, 'https://github.com/acme/web')
    assert.equal(listedService.ports.length, 2)
    const { data: read } = await main.getApplication(created.id)
    assert.deepEqual(read, created)

    // The CLI's `application update`: the response echoed back, with a new branch.
    const echoed = {
      ...read,
      git_repository: { ...read.git_repository, branch: 'release' },
      storage: read.storage?.map((storage) => ({ ...storage })),
    }
    const { data: edited } = await main.editApplication(created.id, echoed as never)
    assert.equal(edited.git_repository?.branch, 'release')
    assert.deepEqual(edited.ports, read.ports, 'the ports keep their ids')
    assert.deepEqual(edited.storage, read.storage, 'the storage keeps its id')

    // The Terraform provider's update: ids it does not know are sent empty; a new storage gets a new id.
    const { data: replaced } = await main.editApplication(created.id, {
      name: 'web-2',
      git_repository: { url: 'https://github.com/acme/web', branch: 'main', git_token_id: gitToken.id, provider: 'GITHUB' },
      healthchecks: {},
      ports: [{ id: '', internal_port: 8080, publicly_accessible: true, protocol: 'HTTP', name: 'web' } as never],
      storage: [{ id: '', type: 'FAST_SSD', size: 20, mount_point: '/cache' }],
    })
    assert.equal(replaced.name, 'web-2')
    assert.equal(replaced.ports?.[0]?.id, read.ports?.[0]?.id, 'a port keeps its id by name')
    assert.notEqual(replaced.storage?.[0]?.id, read.storage?.[0]?.id)
    assert.equal(replaced.cpu, 500, 'what the edit leaves out takes its default')
    assert.equal(replaced.auto_deploy, true)

    // Links: the default port's address and one per public port.
    const { data: links } = await main.listApplicationLinks(created.id)
    const label = `z${created.id.replaceAll('-', '').slice(0, 8)}`
    assert.deepEqual(
      links.results?.map((link) => [link.url, link.is_default, link.internal_port, link.external_port]),
      [
        [`https://${label}.berth.localhost`, true, 8080, 443],
        [`https://p8080-${label}.berth.localhost`, false, 8080, 443],
      ],
    )

    // Actions: deploy (the branch head), redeploy, reboot, stop, uninstall; status; history.
    const deployer = new ApplicationActionsApi(new Configuration({ basePath, apiKey: tokens.deploy.authorization }))
    const deployed = await deployer.deployApplication(created.id, { git_commit_id: HEAD })
    assert.equal(deployed.status, 202)
    assert.equal(deployed.data.state, 'DEPLOYMENT_QUEUED')
    assert.equal((await deployer.redeployApplication(created.id)).status, 202)
    assert.equal((await deployer.rebootApplication(created.id)).status, 202)
    assert.equal((await deployer.stopApplication(created.id)).status, 202)
    assert.equal((await deployer.uninstallApplication(created.id, {})).status, 202)
    // The newest deployment that includes it is the uninstall.
    assert.equal((await main.getApplicationStatus(created.id)).data.state, 'DELETE_QUEUED')
    const history = await new ApplicationDeploymentHistoryApi(configuration).listApplicationDeploymentHistoryV2(created.id)
    assert.equal(history.data.results?.length, 5)
    const deployEntry = history.data.results?.at(-1) as unknown as {
      details: { commit: { git_commit_id: string; author_name: string }; build_pod_name: string }
    }
    assert.equal(deployEntry.details.commit.git_commit_id, HEAD)
    assert.equal(deployEntry.details.commit.author_name, 'Ada')

    // The commits of the branch.
    const { data: commits } = await main.listApplicationCommit(created.id)
    assert.deepEqual(
      commits.results?.map((commit) => commit?.git_commit_id),
      [HEAD],
    )

    // READ may read, not write.
    const reader = new ApplicationMainCallsApi(new Configuration({ basePath, apiKey: tokens.read.authorization }))
    assert.equal((await reader.getApplication(created.id)).status, 200)
    assert.equal(await rejectedStatus(reader.deleteApplication(created.id)), 403)

    // An application that is (to be) deployed is deleted by a deployment, queued behind the others
    // (no runner here: test/jobs-client.test.ts and test/databases-client.test.ts see one end).
    assert.equal((await main.deleteApplication(created.id)).status, 204)
    assert.equal((await main.getApplicationStatus(created.id)).data.state, 'DELETE_QUEUED')
  })

  it('reports every broken rule of a request at once, by JSON pointer', async () => {
    const f = factories(t.db)
    const { environment, tokens } = await f.environmentWithTokens()
    const res = await t.app.inject({
      method: 'POST',
      url: `/environment/${environment.id}/application`,
      headers: { authorization: tokens.write.authorization },
      payload: {
        name: uniqueName('bad'),
        git_repository: { url: 'ftp://example.com/x', root_path: 'relative', git_token_id: '00000000-0000-4000-8000-000000000000' },
        dockerfile_path: '../Dockerfile',
        min_running_instances: 3,
        max_running_instances: 2,
        healthchecks: { readiness_probe: { type: {} } },
        ports: [
          { internal_port: 80, publicly_accessible: false, is_default: true, public_path: '/api' },
          { internal_port: 80, publicly_accessible: true, is_default: true },
        ],
        storage: [
          { type: 'FAST_SSD', size: 10, mount_point: 'data' },
          { type: 'FAST_SSD', size: 10, mount_point: 'data' },
        ],
        autoscaling: { mode: 'KEDA' },
      },
    })
    const body = assertError(res, 400, 'validation_failed')
    assert.deepEqual(body.errors?.map((error) => error.path).sort(), [
      '/autoscaling',
      '/dockerfile_path',
      '/git_repository/git_token_id',
      '/git_repository/root_path',
      '/git_repository/url',
      '/healthchecks/readiness_probe/type',
      '/max_running_instances',
      '/ports/0/public_path',
      '/ports/1/is_default',
      '/ports/1/name',
      '/storage/0/mount_point',
      '/storage/1/mount_point',
      '/storage/1/mount_point',
    ])
    // A git token that is not the organization's, with the request otherwise valid.
    const token = await t.app.inject({
      method: 'POST',
      url: `/environment/${environment.id}/application`,
      headers: { authorization: tokens.write.authorization },
      payload: {
        name: uniqueName('app'),
        git_repository: { url: 'https://github.com/acme/web', git_token_id: '00000000-0000-4000-8000-000000000000' },
        healthchecks: {},
      },
    })
    assert.deepEqual(
      assertError(token, 400, 'validation_failed').errors?.map((error) => error.path),
      ['/git_repository/git_token_id'],
    )
  })
})
