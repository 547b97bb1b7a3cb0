import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createDockerExecutor, type DockerExecutorDeps } from '#src/modules/executors/docker/docker-executor.ts'
import { LABELS } from '#src/modules/executors/docker/docker-objects.ts'
import { buildImage, builtImageRepository } from '#src/modules/executors/docker/image-builds.ts'
import { CheckoutError, checkout, guardedAddresses } from '#src/modules/executors/git-checkout.ts'
import { type DeploymentCalls, type DeploymentsTestApp, until } from './helpers/deployments.ts'
import { busyboxImage, docker } from './helpers/docker.ts'
import { factories } from './helpers/factories.ts'
import type { FakeProvider, FakeRepository } from './helpers/fake-git-providers.ts'
import { type GitBuildWorld, SITE_DOCKERFILE, SITE_SERVE, startGitBuildWorld } from './helpers/git-build-world.ts'
import type { LoopbackGitServer } from './helpers/git-server.ts'

// Issue 21: applications, and jobs built from a Dockerfile in git, really built and run by the
// Docker executor. The repository is served on loopback by git's own smart HTTP behind HTTPS (a
// certificate made here, trusted through GIT_SSL_CAINFO), asking for the git token as GitHub does;
// the commit a deploy builds is looked up at the fake GitHub the token's git_api_url names, which
// answers with the loopback repository's commits. The application's URL is the loopback server's:
// a self-hosted host, whose provider is the token's (GITHUB).

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
  builds = await startGitBuildWorld({ name: 'acme/site', fakeRepository, environments, services })
  ;({ t, calls, git, github } = builds)
})

after(() => builds?.close())

async function world() {
  const f = factories(t.db)
  const w = await f.environmentWithTokens()
  environments.push(w.environment.id)
  const gitToken = await f.gitToken(w.organization.id, { type: 'GITHUB', token: builds.token, gitApiUrl: github.url })
  return { ...w, gitTokenId: gitToken.id as string }
}

const running = async (serviceId: string) =>
  (await docker.listContainers({ filters: { label: [`${LABELS.service}=${serviceId}`] } })).filter((info) => info.State === 'running')

async function served(serviceId: string): Promise<string | undefined> {
  const [instance] = await running(serviceId)
  const binding = instance?.Ports.find((port) => port.PrivatePort === 8080 && port.PublicPort)
  if (!binding) return undefined
  try {
    const res = await fetch(`http://127.0.0.1:${binding.PublicPort}/`, { signal: AbortSignal.timeout(2_000) })
    return res.ok ? (await res.text()).trim() : undefined
  } catch {
    return undefined
  }
}

async function logsOf(environmentId: string, executionId: string, authorization: string): Promise<string> {
  const res = await calls.inject('GET', `/environment/${environmentId}/logs?version=${executionId}`, authorization)
  assert.equal(res.statusCode, 200, res.body)
  return res.body
}

const messageOf = (entry: { stages: { services: { message?: string | null }[] }[] }) =>
  entry.stages.flatMap((stage) => stage.services)[0]?.message ?? ''

const builtTags = async (serviceId: string) =>
  (await docker.listImages({ filters: { reference: [builtImageRepository(serviceId)] } })).flatMap((image) => image.RepoTags ?? [])

describe('applications and jobs built from git on the Docker executor', () => {
  it('builds the commit with the git token, runs it, redeploys a new commit, keeps the previous version when a build fails or is canceled, and leaves nothing once deleted', async () => {
    const { environment, tokens, gitTokenId } = await world()
    const repository = await git.repository('acme/site')
    const first = await builds.commit(
      repository,
      { 'site/Dockerfile': SITE_DOCKERFILE, 'site/serve.sh': SITE_SERVE, 'site/www/index.html': 'version one\n' },
      'One',
    )

    const created = await calls.inject('POST', `/environment/${environment.id}/application`, tokens.write.authorization, {
      name: 'site',
      git_repository: { url: `${git.url}/acme/site.git`, branch: 'main', root_path: '/site', git_token_id: gitTokenId },
      dockerfile_path: 'Dockerfile',
      cpu: 250,
      memory: 64,
      min_running_instances: 1,
      max_running_instances: 1,
      ports: [{ internal_port: 8080, publicly_accessible: true, protocol: 'HTTP' }],
      healthchecks: {
        readiness_probe: {
          type: { http: { path: '/', port: 8080 } },
          initial_delay_seconds: 0,
          period_seconds: 1,
          timeout_seconds: 1,
          failure_threshold: 10,
        },
        liveness_probe: null,
      },
    })
    assert.equal(created.statusCode, 201, created.body)
    const appId = created.json().id as string
    services.push(appId)

    // The branch head, resolved at the trigger, is built and runs.
    const deployed = await calls.trigger(`/application/${appId}/deploy`, tokens.deploy.authorization, {})
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYED', JSON.stringify(entry))
    assert.deepEqual(await builtTags(appId), [`${builtImageRepository(appId)}:${first}`])
    assert.equal(await served(appId), 'version one')
    const logs = await logsOf(environment.id, deployed.execution_id, tokens.read.authorization)
    assert.ok(logs.includes(`checked out commit ${first}`), 'the commit checked out is logged')
    assert.ok(/Step 1\/\d+ : FROM berth-test\/busybox:1/.test(logs), 'the build output is logged')
    assert.ok(!logs.includes(builds.token), 'the token is never logged')
    assert.ok(!logs.includes(Buffer.from(`x-access-token:${builds.token}`).toString('base64')), 'nor its header')
    assert.ok(
      git.authorizations.some((authorization) => authorization?.startsWith('Basic ')),
      'git presented the token',
    )

    // A new commit, named by the deploy: new content; the previous image goes.
    const second = await builds.commit(repository, { 'site/www/index.html': 'version two\n' }, 'Two')
    await builds.commit(repository, { 'site/www/index.html': 'version three, not deployed\n' }, 'Three')
    await calls.trigger(`/application/${appId}/deploy`, tokens.deploy.authorization, { git_commit_id: second })
    const [again] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(again!.status, 'DEPLOYED', JSON.stringify(again))
    assert.equal(await served(appId), 'version two')
    // Once the previous instance, stopping in the background, is gone.
    await until(
      () => builtTags(appId),
      (tags) => tags.length === 1,
      { what: "the previous commit's image removed", timeoutMs: 20_000, intervalMs: 100 },
    )
    assert.deepEqual(await builtTags(appId), [`${builtImageRepository(appId)}:${second}`])

    // A broken Dockerfile fails with the build's output; the previous version keeps running.
    await builds.commit(repository, { 'site/Dockerfile': `${SITE_DOCKERFILE}RUN echo "the broken step" && exit 3\n` }, 'Broken')
    const broken = await calls.trigger(`/application/${appId}/deploy`, tokens.deploy.authorization, {})
    const [failed] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(failed!.status, 'DEPLOYMENT_ERROR', JSON.stringify(failed))
    assert.match(messageOf(failed!), /the build failed: .*non-zero code: 3/)
    assert.match(messageOf(failed!), /the broken step/)
    assert.ok(
      (await logsOf(environment.id, broken.execution_id, tokens.read.authorization)).includes('the broken step'),
      'the build output is logged',
    )
    assert.equal(await served(appId), 'version two')

    // A cancel mid-build stops the build: CANCELED, nothing of it left, the previous version running.
    const slow = await builds.commit(repository, { 'site/Dockerfile': `${SITE_DOCKERFILE}RUN echo "slow step" && sleep 60\n` }, 'Slow')
    const canceled = await calls.trigger(`/application/${appId}/deploy`, tokens.deploy.authorization, {})
    await until(
      () => logsOf(environment.id, canceled.execution_id, tokens.read.authorization),
      (text) => text.includes('slow step'),
      { timeoutMs: 60_000, intervalMs: 100, what: 'the slow build step' },
    )
    const cancel = await calls.inject('POST', `/environment/${environment.id}/cancelDeployment`, tokens.deploy.authorization)
    assert.ok(cancel.statusCode < 300, cancel.body)
    const [stopped] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(stopped!.action_status, 'CANCELED', JSON.stringify(stopped))
    await until(
      async () => (await docker.listContainers({ all: true })).filter((info) => info.Command.includes('slow step')).length,
      (count) => count === 0,
      { timeoutMs: 20_000, intervalMs: 200, what: 'the build container removed' },
    )
    assert.ok(!(await builtTags(appId)).includes(`${builtImageRepository(appId)}:${slow}`))
    assert.equal(await served(appId), 'version two')

    // Deleting the application removes its instances and its images.
    assert.equal((await calls.inject('DELETE', `/application/${appId}`, tokens.write.authorization)).statusCode, 204)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.deepEqual(await docker.listContainers({ all: true, filters: { label: [`${LABELS.service}=${appId}`] } }), [])
    assert.deepEqual(await builtTags(appId), [])
  })

  it('runs a job built from git to completion', async () => {
    const { environment, tokens, gitTokenId } = await world()
    const repository = await git.repository('acme/task')
    await repository.commit(
      { Dockerfile: 'FROM berth-test/busybox:1\nCOPY message.txt /message.txt\n', 'message.txt': 'hello from the repository\n' },
      'Task',
    )
    const created = await calls.inject('POST', `/environment/${environment.id}/job`, tokens.write.authorization, {
      name: 'task',
      cpu: 250,
      memory: 64,
      max_nb_restart: 0,
      max_duration_seconds: 60,
      source: {
        docker: {
          git_repository: { url: `${git.url}/acme/task.git`, branch: 'main', git_token_id: gitTokenId },
          dockerfile_path: 'Dockerfile',
        },
      },
      schedule: { on_start: { entrypoint: '/bin/sh', arguments: ['-c', 'cat /message.txt'] } },
      healthchecks: {},
    })
    assert.equal(created.statusCode, 201, created.body)
    const jobId = created.json().id as string
    services.push(jobId)
    const queued = await calls.trigger(`/job/${jobId}/deploy`, tokens.deploy.authorization, {})
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYED', JSON.stringify(entry))
    assert.ok(
      (await logsOf(environment.id, queued.execution_id, tokens.read.authorization)).includes('hello from the repository'),
      'the run output is logged',
    )
    assert.equal((await builtTags(jobId)).length, 1)

    assert.equal((await calls.inject('DELETE', `/job/${jobId}`, tokens.write.authorization)).statusCode, 204)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.deepEqual(await builtTags(jobId), [])
  })

  it("names a build's checkout after its run, so that the runner ending a run whose runner was killed removes what it left", async () => {
    const repository = await git.repository('acme/left')
    await repository.commit({ Dockerfile: 'FROM berth-test/busybox:1\n' }, 'Left')
    const runId = randomUUID()
    // A runner killed mid-build never removes its checkout.
    const left = await checkout({
      url: `${git.url}/acme/left.git`,
      ref: { branch: 'main' },
      credentials: { username: 'x-access-token', token: builds.token },
      allowPrivateUrls: true,
      say: () => undefined,
      signal: new AbortController().signal,
      runId,
    })
    assert.ok(path.basename(path.dirname(left.dir)).startsWith(`berth-build-${runId}-`), left.dir)
    const other = await mkdtemp(path.join(os.tmpdir(), `berth-build-${randomUUID()}-`))
    try {
      const executor = createDockerExecutor({ docker } as DockerExecutorDeps)
      const said: string[] = []
      await executor.abandoned!({ id: runId, environmentId: randomUUID() }, (message) => said.push(message))
      await assert.rejects(stat(left.dir), /ENOENT/)
      assert.ok((await stat(other)).isDirectory(), "another run's checkout stays")
      assert.match(said.join('\n'), /removed the checkout berth-build-/)
    } finally {
      await rm(other, { recursive: true, force: true })
      await left.remove()
    }
  })

  it('fetches nothing from a loopback address unless BERTH_GIT_ALLOW_PRIVATE_URLS allows it', async () => {
    const before = git.authorizations.length
    await assert.rejects(
      checkout({
        url: `${git.url}/acme/site.git`,
        ref: { branch: 'main' },
        credentials: { username: 'x-access-token', token: builds.token },
        allowPrivateUrls: false,
        say: () => undefined,
        signal: new AbortController().signal,
      }),
      (error: Error) => error instanceof CheckoutError && /loopback, private, link-local or metadata address/.test(error.message),
    )
    await assert.rejects(
      checkout({
        url: 'http://example.com/acme/site.git',
        ref: { branch: 'main' },
        credentials: { username: 'x-access-token', token: builds.token },
        allowPrivateUrls: true,
        say: () => undefined,
        signal: new AbortController().signal,
      }),
      /would travel in clear/,
    )
    assert.equal(git.authorizations.length, before, 'git never reached the server')
    for (const refused of [
      'https://10.1.2.3/a/b.git',
      'https://[::ffff:127.0.0.1]/a/b.git',
      'https://169.254.169.254/a/b.git',
      'https://localhost/a/b.git',
    ]) {
      await assert.rejects(guardedAddresses(new URL(refused), false, true), CheckoutError, refused)
    }
    assert.equal(await guardedAddresses(new URL('https://8.8.8.8/a/b.git'), false, true), undefined)
  })

  it('stops a build past build.timeout_max_sec, and fails it saying so', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'berth-build-test-'))
    const serviceId = `timeout-${Math.random().toString(36).slice(2)}`
    try {
      await writeFile(path.join(dir, 'Dockerfile'), 'FROM berth-test/busybox:1\nRUN echo "long step" && sleep 120\n')
      const lines: string[] = []
      const outcome = await buildImage(
        docker,
        {
          serviceId,
          checkout: dir,
          rootPath: '/',
          dockerfilePath: null,
          target: null,
          tag: `${builtImageRepository(serviceId)}:x`,
          // Long enough for a loaded engine to start the step, far shorter than the step.
          timeoutSeconds: 15,
          allowPrivateUrls: false,
        },
        (line) => lines.push(line),
        new AbortController().signal,
      )
      assert.deepEqual(outcome, { ok: false, message: 'the build took longer than build.timeout_max_sec (15 s) and was stopped' })
      assert.ok(
        lines.some((line) => line.includes('long step')),
        'the build had started its step',
      )
      await until(
        async () => (await docker.listContainers({ all: true })).filter((info) => info.Command.includes('long step')).length,
        (count) => count === 0,
        { timeoutMs: 20_000, intervalMs: 200, what: 'the build container removed' },
      )
      // A root_path or Dockerfile leading out of the checkout builds nothing.
      const outside = {
        serviceId,
        checkout: dir,
        target: null,
        tag: `${builtImageRepository(serviceId)}:y`,
        timeoutSeconds: 60,
        allowPrivateUrls: true,
      }
      assert.equal(
        (await buildImage(docker, { ...outside, rootPath: '/../..', dockerfilePath: null }, () => {}, new AbortController().signal)).ok,
        false,
      )
      assert.equal(
        (await buildImage(docker, { ...outside, rootPath: '/', dockerfilePath: '../../etc/passwd' }, () => {}, new AbortController().signal)).ok,
        false,
      )
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('refuses a build whose Dockerfile would pull an image from a private address, unless BERTH_GIT_ALLOW_PRIVATE_URLS', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'berth-build-test-'))
    const serviceId = `from-guard-${Math.random().toString(36).slice(2)}`
    try {
      const spec = {
        serviceId,
        checkout: dir,
        rootPath: '/',
        dockerfilePath: null,
        target: null,
        tag: `${builtImageRepository(serviceId)}:x`,
        timeoutSeconds: 60,
      }
      const lines: string[] = []
      for (const [dockerfile, refused] of [
        ['FROM 127.0.0.1:5999/absent/base:1\n', '127.0.0.1:5999/absent/base:1'],
        [`ARG REGISTRY=169.254.169.254\nFROM \${REGISTRY}/base:1 AS build\nFROM build\n`, '169.254.169.254/base:1'],
        ['FROM berth-test/busybox:1\nCOPY --from=10.1.2.3:5000/tools:1 /bin/x /x\n', '10.1.2.3:5000/tools:1'],
      ] as const) {
        await writeFile(path.join(dir, 'Dockerfile'), dockerfile)
        const outcome = await buildImage(docker, { ...spec, allowPrivateUrls: false }, (line) => lines.push(line), new AbortController().signal)
        assert.equal(outcome.ok, false, dockerfile)
        assert.match(
          (outcome as { message: string }).message,
          new RegExp(`image ${refused.replace(/[.$]/g, '\\$&')} would be pulled from`),
          dockerfile,
        )
      }
      assert.deepEqual(lines, [], 'nothing was sent to the engine')
      // Allowed, the engine is asked (and fails to pull from the closed port): the guard is what refused.
      await writeFile(path.join(dir, 'Dockerfile'), 'FROM 127.0.0.1:5999/absent/base:1\n')
      const allowed = await buildImage(docker, { ...spec, allowPrivateUrls: true }, () => {}, new AbortController().signal)
      assert.equal(allowed.ok, false)
      assert.doesNotMatch((allowed as { message: string }).message, /would be pulled from/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it("leaves out of the build context what the context's .dockerignore names, as the engine's rules read it", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'berth-build-test-'))
    const serviceId = `ignore-${Math.random().toString(36).slice(2)}`
    const tag = `${builtImageRepository(serviceId)}:x`
    try {
      const files: Record<string, string> = {
        Dockerfile: 'FROM berth-test/busybox:1\nCOPY . /ctx\nRUN find /ctx | sort\n',
        '.dockerignore': '# local only\nsecrets.txt\nlogs\n*.tmp\n!keep.tmp\nDockerfile\n',
        'app.txt': `app ${serviceId}`,
        'secrets.txt': 'not for the image',
        'logs/today.log': 'noise',
        'scratch.tmp': 'scratch',
        'keep.tmp': 'kept by an exception',
        'logs/keep.tmp': 'in an ignored directory: the exception names only the root-level one',
        'src/deep.tmp': 'only root-level *.tmp is ignored',
      }
      for (const [name, content] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(dir, name)), { recursive: true })
        await writeFile(path.join(dir, name), content)
      }
      const lines: string[] = []
      const outcome = await buildImage(
        docker,
        { serviceId, checkout: dir, rootPath: '/', dockerfilePath: null, target: null, tag, timeoutSeconds: 120, allowPrivateUrls: false },
        (line) => lines.push(line),
        new AbortController().signal,
      )
      assert.deepEqual(outcome, { ok: true }, lines.join('\n'))
      const listed = lines.filter((line) => line.startsWith('/ctx')).sort()
      // The Dockerfile is sent (the build needs it) but, being named, is not copied: the engine's rule.
      assert.deepEqual(listed, ['/ctx', '/ctx/.dockerignore', '/ctx/app.txt', '/ctx/keep.tmp', '/ctx/src', '/ctx/src/deep.tmp'])
    } finally {
      await docker
        .getImage(tag)
        .remove({ force: true })
        .catch(() => undefined)
      await rm(dir, { recursive: true, force: true })
    }
  })
})
