import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, it } from 'node:test'
import type { ServiceProgress } from '#src/modules/deployments/queue/deployment-progress.ts'
import { builtImageRepository } from '#src/modules/executors/docker/image-builds.ts'
import type { ChartValues } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import { createKubernetesExecutor } from '#src/modules/executors/kubernetes/helm-executor.ts'
import { KUBERNETES_KINDS } from '#src/modules/services/kinds/registry.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { busyboxImage, docker, type LoopbackRegistry, startRegistry } from './helpers/docker.ts'
import { factories } from './helpers/factories.ts'
import { type FakeProvider, type FakeRepository, startFakeProvider } from './helpers/fake-git-providers.ts'
import { type LoopbackGitServer, startGitServer } from './helpers/git-server.ts'
import { describeWithEachHelm, helmBinary } from './helpers/helm-binary.ts'
import { writeRecordingHelm } from './helpers/recording-helm.ts'

// Issue 22: applications and jobs built from git on a KUBERNETES cluster. The runner's Docker
// engine builds the commit (served on loopback by git over HTTPS, looked up at a fake GitHub, as in
// test/docker-applications.test.ts), pushes it to the cluster's image_registry_id (Debian's
// docker-registry on loopback, with credentials), and the release of the chart Berth ships names
// that image and a pull secret. No Kubernetes API server can run here: as in
// test/kubernetes-builtin-chart.test.ts, BERTH_HELM_PATH is a wrapper that records each call and
// answers `upgrade` with success. Not verified: that a cluster pulls the image and runs it.

const GIT_TOKEN = `ghp_${Math.random().toString(36).slice(2)}`
const KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: { server: "https://127.0.0.1:1" }\n'

let t: DeploymentsTestApp
let calls: DeploymentCalls
let git: LoopbackGitServer
let github: FakeProvider
let registry: LoopbackRegistry
let work: string
let callsDir: string
const services: string[] = []
const fakeRepository: FakeRepository = { defaultBranch: 'main', branches: [], commits: [] }

function takeCalls(): { argv: string[]; values?: string | undefined }[] {
  const names = readdirSync(callsDir).sort()
  const taken = names.map((name) => {
    const read = (file: string) => (existsSync(path.join(callsDir, name, file)) ? readFileSync(path.join(callsDir, name, file), 'utf8') : undefined)
    return { argv: (read('argv') ?? '').split('\n').slice(0, -1), values: read('values') }
  })
  for (const name of names) rmSync(path.join(callsDir, name), { recursive: true })
  return taken
}

const messageOf = (entry: { stages: { services: { message?: string | null }[] }[] }) =>
  entry.stages.flatMap((stage) => stage.services)[0]?.message ?? ''

/** The tags of `berth/{id}` in the loopback registry, read with its credentials. */
async function registryTags(serviceId: string): Promise<string[]> {
  const res = await fetch(`http://${registry.host}/v2/${builtImageRepository(serviceId)}/tags/list`, {
    headers: { authorization: `Basic ${Buffer.from(`${registry.username}:${registry.password}`).toString('base64')}` },
  })
  if (res.status === 404) return []
  assert.equal(res.status, 200, await res.clone().text())
  return ((await res.json()) as { tags: string[] | null }).tags ?? []
}

describeWithEachHelm('applications and jobs built from git on a KUBERNETES cluster', (major) => {
  before(async () => {
    await busyboxImage()
    const helm = helmBinary(major)
    work = mkdtempSync(path.join(os.tmpdir(), 'berth-k8s-builds-'))
    const recording = writeRecordingHelm(work, helm, '  if [ "$prev" = "--values" ]; then cp "$a" "$call/values"; fi')
    callsDir = recording.callsDir
    registry = await startRegistry()
    git = await startGitServer('x-access-token', GIT_TOKEN)
    process.env.GIT_SSL_CAINFO = git.certificateFile
    github = await startFakeProvider('github')
    github.tokens.add(GIT_TOKEN)
    github.repositories.set('acme/site', fakeRepository)
    t = await createDeploymentsApp(0, {
      BERTH_HELM_PATH: recording.wrapper,
      BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
      BERTH_RUNNER_LEASE_MS: '30000',
      BERTH_RATE_LIMIT_PER_CREDENTIAL: '0',
      BERTH_RATE_LIMIT_PER_ADDRESS: '0',
    })
    calls = deploymentCalls(t.app)
  })

  after(async () => {
    for (const id of services) {
      for (const image of await docker.listImages({
        filters: { reference: [builtImageRepository(id), `${registry.host}/${builtImageRepository(id)}`] },
      }))
        await docker
          .getImage(image.Id)
          .remove({ force: true })
          .catch(() => undefined)
    }
    await t?.close()
    await github?.close()
    await git?.close()
    await registry?.close()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('builds the commit, pushes it to the cluster’s image registry and installs a release naming it with a pull secret; without a registry it says which setting is missing', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token: GIT_TOKEN, gitApiUrl: github.url })
    const imageRegistry = await f.containerRegistry(organization.id, {
      url: `http://${registry.host}`,
      config: { username: registry.username },
      secrets: { password: registry.password },
    })
    const created = await calls.inject('POST', `/organization/${organization.id}/cluster`, tokens.write.authorization, {
      name: 'k8s',
      region: 'lab',
      cloud_provider: 'ON_PREMISE',
      kubernetes: 'SELF_MANAGED',
      image_registry_id: imageRegistry.id,
    })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.json().image_registry_id, imageRegistry.id)
    const withKubeconfig = await f.cluster(
      organization.id,
      { executor: 'KUBERNETES', kubernetes: 'SELF_MANAGED', imageRegistryId: imageRegistry.id },
      KUBECONFIG,
    )
    const project = await f.project(organization.id)
    const environment = await f.environment(project.id, { clusterId: withKubeconfig.id })

    const repository = await git.repository('acme/site')
    const sha = await repository.commit(
      { Dockerfile: 'FROM berth-test/busybox:1\nCOPY index.html /www/index.html\n', 'index.html': 'hello\n' },
      'One',
    )
    fakeRepository.commits!.unshift({ sha, message: 'One', authorName: 'Ada', date: new Date().toISOString() })
    fakeRepository.branches = [{ name: 'main', sha }]

    const app = await calls.inject('POST', `/environment/${environment.id}/application`, tokens.write.authorization, {
      name: 'site',
      git_repository: { url: `${git.url}/acme/site.git`, branch: 'main', git_token_id: gitToken.id },
      dockerfile_path: 'Dockerfile',
      cpu: 250,
      memory: 64,
      min_running_instances: 2,
      max_running_instances: 2,
      ports: [{ internal_port: 8080, publicly_accessible: true, protocol: 'HTTP' }],
      healthchecks: {},
    })
    assert.equal(app.statusCode, 201, app.body)
    const appId = app.json().id as string
    services.push(appId)
    takeCalls()
    await calls.trigger(`/application/${appId}/deploy`, tokens.deploy.authorization, {})
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const recorded = takeCalls()
    assert.equal(entry!.status, 'DEPLOYED', JSON.stringify(entry))
    assert.deepEqual(await registryTags(appId), [sha], 'the commit’s image is in the cluster’s registry')
    const upgrade = recorded.find((call) => call.argv[0] === 'upgrade')
    assert.ok(upgrade?.argv.includes('--install'), JSON.stringify(recorded.map((call) => call.argv[0])))
    const values = JSON.parse(upgrade!.values!) as ChartValues
    assert.equal(values.image, `${registry.host}/${builtImageRepository(appId)}:${sha}`)
    assert.deepEqual(values.imagePullSecret, { server: registry.host, username: registry.username, password: registry.password })
    assert.equal(values.workload, 'Deployment')
    assert.equal(values.replicas, 2)
    assert.deepEqual(
      values.ports.map((port) => port.port),
      [8080],
    )
    assert.equal(values.ingress.length > 0, true, 'a public HTTP port gets an Ingress')
    for (const call of recorded) assert.ok(!call.argv.join(' ').includes(registry.password), 'no registry password in argv')

    // A job built from git: the same build and push, then a Job of that image.
    const job = await calls.inject('POST', `/environment/${environment.id}/job`, tokens.write.authorization, {
      name: 'task',
      cpu: 250,
      memory: 64,
      max_nb_restart: 0,
      max_duration_seconds: 60,
      source: {
        docker: { git_repository: { url: `${git.url}/acme/site.git`, branch: 'main', git_token_id: gitToken.id }, dockerfile_path: 'Dockerfile' },
      },
      schedule: { on_start: { entrypoint: '/bin/cat', arguments: ['/www/index.html'] } },
      healthchecks: {},
    })
    assert.equal(job.statusCode, 201, job.body)
    const jobId = job.json().id as string
    services.push(jobId)
    await calls.trigger(`/job/${jobId}/deploy`, tokens.deploy.authorization, {})
    const [jobEntry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(jobEntry!.status, 'DEPLOYED', JSON.stringify(jobEntry))
    assert.deepEqual(await registryTags(jobId), [sha])
    const jobValues = JSON.parse(takeCalls().find((call) => call.argv[0] === 'upgrade')!.values!) as ChartValues
    assert.equal(jobValues.workload, 'Job')
    assert.equal(jobValues.image, `${registry.host}/${builtImageRepository(jobId)}:${sha}`)
    assert.deepEqual(jobValues.command, ['/bin/cat'])
    assert.equal(jobValues.imagePullSecret?.username, registry.username)

    // The same application on a cluster without an image registry: nothing built, the setting named.
    await t.db.updateTable('clusters').set({ imageRegistryId: null }).where('id', '=', withKubeconfig.id).execute()
    await calls.trigger(`/application/${appId}/deploy`, tokens.deploy.authorization, {})
    const [failed] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(failed!.status, 'DEPLOYMENT_ERROR', JSON.stringify(failed))
    assert.match(messageOf(failed!), /needs the cluster's image_registry_id/)
    assert.ok(!takeCalls().some((call) => call.argv[0] === 'upgrade'), 'nothing installed')
  })

  it('refuses, with a 400, a cluster whose image registry is another organization’s', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const other = await f.organizationWithTokens()
    const foreign = await f.containerRegistry(other.organization.id)
    const own = await f.containerRegistry(organization.id)
    const body = { name: 'k8s', region: 'lab', cloud_provider: 'ON_PREMISE', kubernetes: 'SELF_MANAGED' }
    const refused = await calls.inject('POST', `/organization/${organization.id}/cluster`, tokens.write.authorization, {
      ...body,
      image_registry_id: foreign.id,
    })
    assert.equal(refused.statusCode, 400, refused.body)
    assert.match(refused.json().message, /image_registry_id/)
    const created = await calls.inject('POST', `/organization/${organization.id}/cluster`, tokens.write.authorization, {
      ...body,
      image_registry_id: own.id,
    })
    assert.equal(created.statusCode, 201, created.body)
    const url = `/organization/${organization.id}/cluster/${created.json().id}`
    const edited = await calls.inject('PUT', url, tokens.write.authorization, { ...body, image_registry_id: foreign.id })
    assert.equal(edited.statusCode, 400, edited.body)
    const kept = await calls.inject('GET', url, tokens.read.authorization)
    assert.equal(kept.json().image_registry_id, own.id)
    const cleared = await calls.inject('PUT', url, tokens.write.authorization, body)
    assert.equal(cleared.statusCode, 200, cleared.body)
    assert.equal(cleared.json().image_registry_id, null)
  })

  it('fails, saying what it needs, when no Docker engine answers on the runner', async () => {
    const executor = createKubernetesExecutor({
      kinds: KUBERNETES_KINDS,
      helmPath: path.join(work, 'helm-wrapper.sh'),
      kubeconfig: async () => KUBECONFIG,
      chartRepository: async () => {
        throw new Error('no helm repository here')
      },
      openSecret: () => '',
      imageRegistry: async () => 'a-registry',
      docker: async () => {
        throw new Error('connect ENOENT /nowhere.sock')
      },
      workRoot: work,
    })
    const snapshot = {
      serviceId: crypto.randomUUID(),
      kind: 'APPLICATION',
      name: 'site',
      version: 1,
      configuration: {
        gitRepository: { url: 'https://git.example.com/acme/site.git', branch: 'main' },
        ...{ entrypoint: null, arguments: [], cpu: 250, memory: 256, minRunningInstances: 1, ports: [], storage: [] },
        healthchecks: { readiness_probe: null, liveness_probe: null },
      },
      overrides: {},
      variables: [],
      variablesFingerprint: '',
      advancedSettings: {},
    } as unknown as ServiceSnapshot
    takeCalls()
    const outcome = await executor.run(
      { id: snapshot.serviceId, name: 'site', type: 'APPLICATION' } as ServiceProgress,
      'DEPLOY',
      new AbortController().signal,
      {
        snapshot,
        plan: [],
        run: { id: crypto.randomUUID(), organizationId: crypto.randomUUID(), environmentId: crypto.randomUUID() },
        log: () => undefined,
      },
    )
    assert.equal(outcome.ok, false)
    assert.match((outcome as { message: string }).message, /an image build for a Kubernetes cluster needs a Docker engine on the runner.*ENOENT/)
    assert.deepEqual(takeCalls(), [])
  })
})
