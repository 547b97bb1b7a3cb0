import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { namespaceOf, releaseName } from '#src/modules/executors/kubernetes/helm-executor.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type FakeKubeApi, startFakeKubeApi } from './helpers/fake-kube-api.ts'
import { helmBinary, kubectlBinary } from './helpers/helm-binary.ts'

// Issue 35, "Service logs" on Kubernetes of what the built-in chart's labels do not find: a helm
// service's own chart (its pods found by the release's `app.kubernetes.io/instance` label) and a
// job's runs (its Job's pods, completed ones too). Deployed through the API and the runner with the
// real helm (a chart served here over HTTPS), `helm upgrade` answered with success by a wrapper (no
// cluster runs here); the pods and their logs are the recording stand-in API server's
// (test/helpers/fake-kube-api.ts), read with the real kubectl.

const SECRET = `helm-logs-s3cret-${Math.random().toString(36).slice(2)}`

let api: FakeKubeApi
let t: DeploymentsTestApp
let calls: DeploymentCalls
let work: string
let server: Server
let repositoryUrl: string

before(async () => {
  api = await startFakeKubeApi()
  work = mkdtempSync(path.join(os.tmpdir(), 'berth-kube-release-logs-'))
  const helm = helmBinary(3)
  const env = { PATH: process.env.PATH, HOME: work }
  execFileSync(helm, ['create', 'shop'], { cwd: work, env, stdio: 'ignore' })
  const repo = path.join(work, 'repo')
  mkdirSync(repo)
  execFileSync(helm, ['package', path.join(work, 'shop'), '--version', '1.0.0', '--destination', repo], { env, stdio: 'ignore' })
  execFileSync(helm, ['repo', 'index', repo], { env, stdio: 'ignore' })
  const key = path.join(work, 'key.pem')
  const cert = path.join(work, 'cert.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-days', '1', '-keyout', key, '-out', cert], {
    stdio: 'ignore',
  })
  server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const file = path.join(repo, path.basename(new URL(req.url ?? '/', 'https://x').pathname))
    if (!existsSync(file)) {
      res.writeHead(404)
      return res.end()
    }
    res.writeHead(200)
    res.end(readFileSync(file))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  repositoryUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  const wrapper = path.join(work, 'helm')
  writeFileSync(wrapper, `#!/bin/sh\nif [ "$1" = upgrade ] || [ "$1" = uninstall ]; then exit 0; fi\nexec '${helm}' "$@"\n`, { mode: 0o755 })
  t = await createDeploymentsApp(0, {
    BERTH_HELM_PATH: wrapper,
    BERTH_KUBECTL_PATH: kubectlBinary(3),
    BERTH_RUNNER_POLL_MS: '50',
    BERTH_RATE_LIMIT_PER_CREDENTIAL: '0',
    BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
  })
  calls = deploymentCalls(t.app)
})

after(async () => {
  await t?.close()
  await api?.close()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  if (work) rmSync(work, { recursive: true, force: true })
})

interface Log {
  message: string
  pod_name?: string
  version?: string
}

async function kubernetesWorld() {
  const f = factories(t.db)
  const { organization, tokens } = await f.organizationWithTokens()
  const cluster = await f.cluster(organization.id, { executor: 'KUBERNETES' }, api.kubeconfig('kube-token'))
  const project = await f.project(organization.id)
  const environment = await f.environment(project.id, { clusterId: cluster.id })
  return { f, organization, tokens, environment, namespace: namespaceOf(environment.id) }
}

const results = async (url: string, authorization: string) => {
  const res = await calls.inject('GET', url, authorization)
  assert.equal(res.statusCode, 200, res.body)
  return (res.json() as { results: Log[] }).results
}

describe('service logs of releases on Kubernetes', () => {
  it("lists a helm service's pods by its release's app.kubernetes.io/instance label, masked with its deployment's secrets", async () => {
    const { f, organization, tokens, environment, namespace } = await kubernetesWorld()
    const repository = await f.helmRepository(organization.id, { url: repositoryUrl, skipTlsVerification: true })
    const service = await f.helmService(environment.id, {
      name: 'shop',
      source: { helm_repository: { repository: repository.id, chart_name: 'shop', chart_version: '1.0.0' } },
    } as never)
    const release = releaseName({ name: 'shop', serviceId: service.id })
    const pod = (name: string, instance: string, message: string) => ({
      name,
      labels: { 'app.kubernetes.io/instance': instance, 'app.kubernetes.io/name': 'shop' },
      log: [{ at: '2026-11-28T12:00:01.5Z', message }],
    })
    api.pods(namespace, [pod('shop-a', release, `the key is ${SECRET}`), pod('other-a', 'another-release', 'not mine')])

    // Never deployed: no release, nothing to read.
    assert.deepEqual(await results(`/helm/${service.id}/log`, tokens.read.authorization), [])

    const variable = await calls.inject('POST', '/variable', tokens.write.authorization, {
      key: 'SHOP_KEY',
      value: SECRET,
      is_secret: true,
      variable_scope: 'HELM',
      variable_parent_id: service.id,
    })
    assert.equal(variable.statusCode, 201, variable.body)
    const queued = await calls.trigger(`/helm/${service.id}/deploy`, tokens.deploy.authorization)
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYED', JSON.stringify(entry))

    const lines = await results(`/helm/${service.id}/log`, tokens.read.authorization)
    assert.deepEqual(
      lines.map((line) => [line.message, line.pod_name, line.version]),
      [['the key is ***', 'shop-a', queued.execution_id]],
    )
    const list = api.requests.findLast((request) => request.url.startsWith(`/api/v1/namespaces/${namespace}/pods?`))
    assert.match(decodeURIComponent(list?.url ?? ''), new RegExp(`labelSelector=app\\.kubernetes\\.io/instance=${release}`))

    // A dry run installs nothing: the release is still the deploy's.
    await calls.trigger(`/helm/${service.id}/deploy?dry_run=true`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal((await results(`/helm/${service.id}/log`, tokens.read.authorization))[0]?.version, queued.execution_id)

    const stranger = await f.organizationWithTokens()
    assert.equal((await calls.inject('GET', `/helm/${service.id}/log`, stranger.tokens.read.authorization)).statusCode, 404)
  })

  it("lists a job's runs from its Job's pods, a completed one too, masked", async () => {
    const { f, organization, tokens, environment, namespace } = await kubernetesWorld()
    const registry = await f.containerRegistry(organization.id)
    const job = await f.job(environment.id, {
      name: 'migrate',
      source: { image: { image_name: 'acme/migrate', tag: '1', registry_id: registry.id } },
      schedule: { on_start: { entrypoint: '/bin/sh', arguments: ['-c', 'echo migrated'] } },
    } as never)
    const variable = await calls.inject('POST', '/variable', tokens.write.authorization, {
      key: 'JOB_KEY',
      value: SECRET,
      is_secret: true,
      variable_scope: 'JOB',
      variable_parent_id: job.id,
    })
    assert.equal(variable.statusCode, 201, variable.body)
    const queued = await calls.trigger(`/job/${job.id}/deploy`, tokens.deploy.authorization)
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYED', JSON.stringify(entry))

    const labels = { 'berth.service-id': job.id, 'berth.execution-id': queued.execution_id as string, 'berth.kind': 'JOB' }
    api.pods(namespace, [
      {
        name: 'job-run-1',
        labels,
        phase: 'Succeeded',
        log: [
          { at: '2026-11-28T12:00:01Z', message: `migrating with ${SECRET}` },
          { at: '2026-11-28T12:00:02Z', message: 'migrated' },
        ],
      },
    ])
    const lines = await results(`/job/${job.id}/log`, tokens.read.authorization)
    assert.deepEqual(
      lines.map((line) => [line.message, line.pod_name, line.version]),
      [
        ['migrating with ***', 'job-run-1', queued.execution_id],
        ['migrated', 'job-run-1', queued.execution_id],
      ],
    )
  })
})
