import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { LABELS } from '#src/modules/executors/docker/docker-objects.ts'
import { builtImageRepository } from '#src/modules/executors/docker/image-builds.ts'
import type { DeploymentCalls, DeploymentsTestApp } from './helpers/deployments.ts'
import { busyboxImage, docker } from './helpers/docker.ts'
import { factories } from './helpers/factories.ts'
import type { FakeProvider, FakeRepository } from './helpers/fake-git-providers.ts'
import { type GitBuildWorld, SITE_DOCKERFILE, SITE_SERVE, startGitBuildWorld } from './helpers/git-build-world.ts'
import type { LoopbackGitServer } from './helpers/git-server.ts'

// Issue 35, "Dry runs" of applications on the Docker executor: `dry_run=true` checks out and builds
// the commit a deploy would (a real build by the engine, from a repository served on loopback as in
// test/docker-applications.test.ts), says which image would replace the one running, and replaces
// nothing.

let t: DeploymentsTestApp
let calls: DeploymentCalls
let git: LoopbackGitServer
let github: FakeProvider
const environments: string[] = []
const services: string[] = []
const fakeRepository: FakeRepository = { defaultBranch: 'main', branches: [], commits: [] }

let builds: GitBuildWorld

before(async () => {
  await busyboxImage()
  builds = await startGitBuildWorld({ name: 'acme/dry', fakeRepository, environments, services })
  ;({ t, calls, git, github } = builds)
})

after(() => builds?.close())

const running = async (serviceId: string) =>
  (await docker.listContainers({ filters: { label: [`${LABELS.service}=${serviceId}`] } })).filter((info) => info.State === 'running')

describe('dry runs of applications on the Docker executor', () => {
  it('build the new commit, say it would replace the image running, and leave the running instance as it was', async () => {
    const f = factories(t.db)
    const { environment, organization, tokens } = await f.environmentWithTokens()
    environments.push(environment.id)
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token: builds.token, gitApiUrl: github.url })
    const repository = await git.repository('acme/dry')
    const first = await builds.commit(
      repository,
      { 'site/Dockerfile': SITE_DOCKERFILE, 'site/serve.sh': SITE_SERVE, 'site/www/index.html': 'one\n' },
      'One',
    )
    const created = await calls.inject('POST', `/environment/${environment.id}/application`, tokens.write.authorization, {
      name: 'site',
      git_repository: { url: `${git.url}/acme/dry.git`, branch: 'main', root_path: '/site', git_token_id: gitToken.id },
      dockerfile_path: 'Dockerfile',
      cpu: 250,
      memory: 64,
      min_running_instances: 1,
      max_running_instances: 1,
      ports: [{ internal_port: 8080, publicly_accessible: false, protocol: 'HTTP' }],
      healthchecks: {
        readiness_probe: { type: { tcp: { port: 8080 } }, initial_delay_seconds: 0, period_seconds: 1, timeout_seconds: 1, failure_threshold: 10 },
        liveness_probe: null,
      },
    })
    assert.equal(created.statusCode, 201, created.body)
    const appId = created.json().id as string
    services.push(appId)
    await calls.trigger(`/application/${appId}/deploy`, tokens.deploy.authorization, {})
    const [deployed] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(deployed!.status, 'DEPLOYED', JSON.stringify(deployed))
    const [instance] = await running(appId)
    assert.equal(instance?.Image, `${builtImageRepository(appId)}:${first}`)

    const second = await builds.commit(repository, { 'site/www/index.html': 'two\n' }, 'Two')
    const dryRun = await calls.trigger(`/application/${appId}/deploy?dry_run=true`, tokens.deploy.authorization, {})
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const entry = (await calls.entries(environment.id, tokens.read.authorization)).find(
      (candidate) => candidate.identifier.execution_id === dryRun.execution_id,
    )
    const logs = (await calls.inject('GET', `/environment/${environment.id}/logs?version=${dryRun.execution_id}`, tokens.read.authorization)).body
    assert.equal(entry?.trigger_action, 'DEPLOY_DRY_RUN')
    assert.equal(entry?.action_status, 'SUCCESS', logs)
    assert.ok(logs.includes(`checked out commit ${second}`), 'the new commit is checked out')
    assert.match(logs, /Step 1\/\d+ : FROM berth-test\/busybox:1/, 'and really built')
    assert.ok(
      logs.includes(
        `site runs ${builtImageRepository(appId)}:${first} now (1 instance(s)): a deploy would run ${builtImageRepository(appId)}:${second} instead`,
      ),
      logs,
    )
    assert.ok(!logs.includes(builds.token), 'the token is never logged')
    const [still] = await running(appId)
    assert.deepEqual([still?.Id, still?.Image], [instance.Id, instance.Image], 'the same instance runs the first commit')
    const status = (await calls.inject('GET', `/application/${appId}/status`, tokens.read.authorization)).json()
    assert.equal(status.state, 'DEPLOYED')
  })
})
