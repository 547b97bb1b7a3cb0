import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, it } from 'node:test'
import type { ServiceProgress } from '#src/modules/deployments/queue/deployment-progress.ts'
import { BUILTIN_CHART } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import { createKubernetesExecutor, namespaceOf, releaseName } from '#src/modules/executors/kubernetes/helm-executor.ts'
import type { ProgramVersion } from '#src/modules/executors/kubernetes/program-versions.ts'
import type { ContainerConfig } from '#src/modules/services/kinds/container/container.types.ts'
import type { DatabaseConfig } from '#src/modules/services/kinds/database/database.types.ts'
import { newDatabaseCredentials } from '#src/modules/services/kinds/database/database-credentials.ts'
import type { HelmConfig } from '#src/modules/services/kinds/helm/helm.types.ts'
import { KUBERNETES_KINDS } from '#src/modules/services/kinds/registry.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { testSecretBox } from './helpers/app.ts'
import { chartValuesOf } from './helpers/chart-values.ts'
import { createDeploymentsApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type FakeKubeApi, startFakeKubeApi } from './helpers/fake-kube-api.ts'
import { describeWithEachHelm, helmBinary, kubectlBinary } from './helpers/helm-binary.ts'
import { helmSnapshot } from './helpers/helm-snapshots.ts'

// Issue 35, "Dry runs" of helm services on Kubernetes: the real helm renders the chart, the guard
// a deploy applies runs, `helm upgrade --install --dry-run=server` renders it against a recording
// stand-in of the API server (test/helpers/fake-kube-api.ts), whose release secrets give the
// running release's manifest; the logs say what a deploy would add, change and remove. The
// stand-in records every request: a dry run makes none that writes.

const CHART = `apiVersion: v2
name: shop
version: 1.0.0
`
const VALUES = `greeting: hello
password: none
extraService: true
clusterRole: false
`
const TEMPLATES: Record<string, string> = {
  'settings.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  greeting: {{ .Values.greeting | quote }}
  colour: "blue"
  size: "large"
`,
  'credentials.yaml': `apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-credentials
stringData:
  password: {{ .Values.password | quote }}
  user: "shop"
`,
  'service.yaml': `{{- if .Values.extraService }}
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-web
spec:
  ports:
    - port: 80
{{- end }}
`,
  'cluster-role.yaml': `{{- if .Values.clusterRole }}
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ .Release.Name }}-reader
rules: []
{{- end }}
`,
  'hook.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-hook
  annotations:
    helm.sh/hook: pre-install
data: {}
`,
}

/** What the release running was installed with: the settings with another greeting, the old password, and a ConfigMap since removed from the chart. */
const runningManifest = (release: string) => `---
# Source: shop/templates/settings.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${release}-settings
data:
  greeting: "hi"
  colour: "blue"
  size: "large"
---
# Source: shop/templates/credentials.yaml
apiVersion: v1
kind: Secret
metadata:
  name: ${release}-credentials
stringData:
  password: "the-old-password"
  user: "shop"
---
# Source: shop/templates/legacy.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${release}-legacy
data: {}
`

const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE']

describeWithEachHelm('dry runs of helm services on Kubernetes (real helm, a recording API server)', (major) => {
  let helm: string
  let work: string
  let server: Server
  let repositoryUrl: string
  let api: FakeKubeApi

  before(async () => {
    helm = helmBinary(major)
    work = mkdtempSync(path.join(os.tmpdir(), 'berth-helm-dry-run-'))
    const chart = path.join(work, 'shop')
    mkdirSync(path.join(chart, 'templates'), { recursive: true })
    writeFileSync(path.join(chart, 'Chart.yaml'), CHART)
    writeFileSync(path.join(chart, 'values.yaml'), VALUES)
    for (const [name, text] of Object.entries(TEMPLATES)) writeFileSync(path.join(chart, 'templates', name), text)
    const repo = path.join(work, 'repo')
    mkdirSync(repo)
    const env = { PATH: process.env.PATH, HOME: work }
    execFileSync(helm, ['package', chart, '--destination', repo], { env, stdio: 'ignore' })
    execFileSync(helm, ['repo', 'index', repo], { env, stdio: 'ignore' })
    const key = path.join(work, 'key.pem')
    const cert = path.join(work, 'cert.pem')
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-days', '1', '-keyout', key, '-out', cert], {
      stdio: 'ignore',
    })
    // Over HTTPS, as a repository of kind HTTPS must be; its certificate self-signed (skip_tls_verification).
    server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      const file = path.join(repo, path.basename(new URL(req.url ?? '/', 'http://x').pathname))
      if (!existsSync(file)) {
        res.writeHead(404)
        return res.end()
      }
      res.writeHead(200)
      res.end(readFileSync(file))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    repositoryUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
    api = await startFakeKubeApi()
  })
  after(async () => {
    await api?.close()
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    if (work) rmSync(work, { recursive: true, force: true })
  })

  const secrets = testSecretBox()
  const organizationId = randomUUID()
  const environmentId = randomUUID()
  const namespace = namespaceOf(environmentId)

  const snapshot = (configuration: Partial<HelmConfig> = {}, variables: ServiceSnapshot['variables'] = []) =>
    helmSnapshot(
      { source: { helmRepository: { repositoryId: 'repo-1', chartName: 'shop', chartVersion: '1.0.0' } }, ...configuration },
      { name: 'Shop', variables },
    )

  /** A dry run of `s` by the executor, with this helm or one said to be `helmVersion`; what it logged and asked the API server. */
  async function dryRun(s: ServiceSnapshot<HelmConfig>, helmVersion?: ProgramVersion) {
    api.requests.length = 0
    const logs: string[] = []
    const outcome = await createKubernetesExecutor({
      kinds: KUBERNETES_KINDS,
      helmPath: helm,
      ...(helmVersion ? { helmVersion } : {}),
      kubectlPath: kubectlBinary(major),
      kubeconfig: async () => api.kubeconfig('kube-secret'),
      chartRepository: async () => ({ kind: 'HTTPS', url: repositoryUrl, skipTlsVerification: true }),
      openSecret: (sealed) => secrets.open(Buffer.from(sealed, 'base64')),
      workRoot: work,
      allowPrivateUrls: true,
    }).run({ id: s.serviceId, name: s.name, type: 'HELM' } as ServiceProgress, 'DEPLOY_DRY_RUN', new AbortController().signal, {
      snapshot: s,
      plan: [],
      run: { id: randomUUID(), organizationId, environmentId },
      log: (step, message) => logs.push(`${step}: ${message}`),
    })
    return { outcome, logs, requests: [...api.requests] }
  }

  const writesOf = (requests: { method: string; url: string }[]) => requests.filter((request) => WRITES.includes(request.method))

  it('of a release not installed: renders on the cluster (--dry-run=server), says each object would be added, writes nothing', async () => {
    const s = snapshot()
    const { outcome, logs, requests } = await dryRun(s)
    assert.deepEqual(outcome, { ok: true }, logs.join('\n'))
    const release = releaseName(s)
    assert.ok(
      logs.includes(
        `render: helm upgrade --install ${release} --namespace ${namespace} --dry-run=server: rendered with the cluster's lookups and checked, nothing installed`,
      ),
      logs.join('\n'),
    )
    assert.ok(logs.includes(`diff: the release ${release} is not installed in ${namespace}: a deploy would install it`), logs.join('\n'))
    const changes = logs.filter((line) => /^diff: (added|changed|removed): /.test(line))
    assert.deepEqual(changes.sort(), [
      `diff: added: ConfigMap/${release}-settings`,
      `diff: added: Secret/${release}-credentials`,
      `diff: added: Service/${release}-web`,
    ])
    assert.ok(logs.includes('diff: a deploy would add 3, change 0 and remove 0 object(s); 0 unchanged'), logs.join('\n'))
    assert.ok(logs.includes('diff: dry run: nothing was installed'))
    // helm asked the cluster (its release history, whether the objects exist) and wrote nothing.
    assert.ok(requests.some((request) => request.url.startsWith(`/api/v1/namespaces/${namespace}/secrets?`)))
    assert.ok(
      requests.some((request) => request.method === 'GET' && request.url === `/api/v1/namespaces/${namespace}/configmaps/${release}-settings`),
    )
    assert.deepEqual(writesOf(requests), [])
    assert.deepEqual(
      readdirSync(work).filter((name) => name.startsWith('berth-helm-')),
      [],
      'the work directory is removed',
    )
  })

  it('of a release running: the diff of each changed object, the added and removed ones, a Secret’s values never shown; nothing written', async () => {
    const password = `pw-${randomUUID()}`
    const sealed = secrets.seal(password).toString('base64')
    const s = snapshot(
      { valuesOverride: { set: [['greeting', 'bonjour']], setString: [['password', 'qovery.env.SHOP_PASSWORD']], setJson: [], file: null } },
      [{ key: 'SHOP_PASSWORD', sealed, isSecret: true, mountPath: null, variableId: randomUUID(), scope: 'SERVICE', variableType: 'VALUE' }],
    )
    const release = releaseName(s)
    api.release(release, namespace, runningManifest(release))
    const { outcome, logs, requests } = await dryRun(s)
    assert.deepEqual(outcome, { ok: true }, logs.join('\n'))
    const text = logs.join('\n')
    assert.ok(logs.includes(`diff: compared with the manifest of the release ${release} running in ${namespace} (helm get manifest)`), text)
    assert.ok(logs.includes(`diff: added: Service/${release}-web`), text)
    assert.ok(logs.includes(`diff: removed: ConfigMap/${release}-legacy`), text)
    // The changed ConfigMap: its unified diff, the greeting replaced, the lines around it kept as context.
    const at = logs.indexOf(`diff: changed: ConfigMap/${release}-settings`)
    assert.ok(at >= 0, text)
    assert.deepEqual(logs.slice(at + 1, at + 11), [
      'diff: --- running',
      'diff: +++ rendered',
      'diff: @@ -3,6 +3,6 @@',
      'diff:  metadata:',
      `diff:    name: ${release}-settings`,
      'diff:  data:',
      'diff: -  greeting: "hi"',
      'diff: +  greeting: "bonjour"',
      'diff:    colour: "blue"',
      'diff:    size: "large"',
    ])
    assert.ok(logs.includes(`diff: changed: Secret/${release}-credentials`), text)
    assert.ok(logs.includes('diff: a Secret: its values are not shown; values change for stringData.password'), text)
    assert.ok(!text.includes(password), 'the secret variable’s value is never logged')
    assert.ok(!text.includes('the-old-password'), 'nor the running Secret’s')
    assert.ok(logs.includes('diff: a deploy would add 1, change 2 and remove 1 object(s); 0 unchanged'), text)
    assert.ok(!text.includes('-hook'), 'hooks are no object of a release manifest')
    assert.deepEqual(writesOf(requests), [])
  })

  it('applies the guard a deploy applies: a cluster-wide object fails the dry run before helm reaches the cluster', async () => {
    const s = snapshot({ valuesOverride: { set: [['clusterRole', 'true']], setString: [], setJson: [], file: null } })
    const { outcome, logs, requests } = await dryRun(s)
    assert.equal(outcome.ok, false)
    assert.match((outcome as { message: string }).message, /ClusterRole\/.*-reader .*is cluster-scoped/)
    assert.ok(!logs.some((line) => line.startsWith('diff:')), logs.join('\n'))
    assert.ok(!requests.some((request) => request.url.includes('/secrets')), 'helm never looked the release up')
    assert.deepEqual(writesOf(requests), [])
  })

  // Said of helm 3.17, which takes helm 3.12's flags; helm 4 does not.
  it('with a helm before 3.13 (no --dry-run=server) compares what helm template rendered', {
    skip: major === 4 && 'a helm 3 stood in for by helm 3.17',
  }, async () => {
    const s = snapshot()
    const release = releaseName(s)
    api.release(release, namespace, runningManifest(release))
    const { outcome, logs, requests } = await dryRun(s, { major: 3, minor: 12, patch: 0, text: 'v3.12.0' })
    assert.deepEqual(outcome, { ok: true }, logs.join('\n'))
    assert.ok(
      logs.some((line) => line.startsWith("render: this runner's helm v3.12.0 has no --dry-run=server")),
      logs.join('\n'),
    )
    assert.ok(logs.includes(`diff: changed: ConfigMap/${release}-settings`), logs.join('\n'))
    assert.ok(logs.includes('diff: a deploy would add 1, change 2 and remove 1 object(s); 0 unchanged'), logs.join('\n'))
    assert.deepEqual(writesOf(requests), [])
  })

  it('of a container (the chart Berth ships) with a new tag: the image line of its Deployment changes, its variables’ Secret never shown', async () => {
    const secretValue = `s3cret-${randomUUID()}`
    const registry = {
      host: 'registry.example.com',
      auth: { username: 'puller', password: `pull-${randomUUID()}`, serveraddress: 'registry.example.com' },
    }
    const configuration: ContainerConfig = {
      description: null,
      registryId: randomUUID(),
      imageName: 'acme/web',
      tag: '1.4.2',
      arguments: [],
      entrypoint: null,
      cpu: 250,
      memory: 256,
      gpu: 0,
      ephemeralStorageInGib: null,
      cpuArchitecture: null,
      minRunningInstances: 1,
      maxRunningInstances: 1,
      healthchecks: {},
      autoPreview: false,
      autoDeploy: false,
      ports: [],
      storage: [],
      iconUri: '',
    } as unknown as ContainerConfig
    const variables: ServiceSnapshot['variables'] = [
      {
        key: 'API_KEY',
        sealed: secrets.seal(secretValue).toString('base64'),
        isSecret: true,
        mountPath: null,
        variableId: randomUUID(),
        scope: 'SERVICE',
        variableType: 'VALUE',
      },
    ]
    const s: ServiceSnapshot<ContainerConfig> = {
      serviceId: randomUUID(),
      kind: 'CONTAINER',
      name: 'Web',
      version: 1,
      configuration,
      overrides: { imageTag: '1.5.0' },
      variables,
      variablesFingerprint: '',
      advancedSettings: {},
    }
    const release = releaseName(s)
    // The release running: the chart as the deploy of tag 1.4.2 rendered it.
    const owner = { serviceId: s.serviceId, environmentId, executionId: randomUUID() }
    const openVariables = [{ key: 'API_KEY', value: secretValue, mountPath: null }]
    const valuesFile = path.join(work, `${randomUUID()}.json`)
    writeFileSync(
      valuesFile,
      JSON.stringify(
        chartValuesOf(
          { ...s, overrides: {} },
          { owner, variables: openVariables, image: { reference: 'registry.example.com/acme/web:1.4.2', registry } },
        ),
      ),
    )
    const running = execFileSync(helm, ['template', release, BUILTIN_CHART, '--namespace', namespace, '--values', valuesFile], {
      env: { PATH: process.env.PATH, HOME: work },
      encoding: 'utf8',
    })
    api.release(release, namespace, running)
    api.requests.length = 0
    const logs: string[] = []
    const outcome = await createKubernetesExecutor({
      kinds: KUBERNETES_KINDS,
      helmPath: helm,
      kubectlPath: kubectlBinary(major),
      kubeconfig: async () => api.kubeconfig('kube-secret'),
      chartRepository: async () => {
        throw new Error('no helm repository here')
      },
      registry: async () => registry,
      openSecret: (sealed) => secrets.open(Buffer.from(sealed, 'base64')),
      workRoot: work,
    }).run({ id: s.serviceId, name: s.name, type: 'CONTAINER' } as ServiceProgress, 'DEPLOY_DRY_RUN', new AbortController().signal, {
      snapshot: s,
      plan: [],
      run: { id: randomUUID(), organizationId, environmentId },
      log: (step, message) => logs.push(`${step}: ${message}`),
    })
    const text = logs.join('\n')
    assert.deepEqual(outcome, { ok: true }, text)
    assert.ok(logs.includes(`diff: changed: Deployment/${release}`), text)
    assert.ok(
      logs.some((line) => /^diff: -\s+image: "?registry\.example\.com\/acme\/web:1\.4\.2"?$/.test(line)),
      text,
    )
    assert.ok(
      logs.some((line) => /^diff: \+\s+image: "?registry\.example\.com\/acme\/web:1\.5\.0"?$/.test(line)),
      text,
    )
    assert.ok(!text.includes(secretValue), 'the secret variable is never shown')
    assert.ok(!text.includes(registry.auth.password), 'nor the registry’s password')
    assert.deepEqual(writesOf(api.requests), [])
  })

  it('of a database (the chart Berth ships) given more CPU: its StatefulSet’s limits change, its password never shown', async () => {
    const serviceId = randomUUID()
    const configuration: DatabaseConfig = {
      description: null,
      type: 'POSTGRESQL',
      version: '16',
      mode: 'CONTAINER',
      accessibility: 'PRIVATE',
      cpu: 500,
      memory: 512,
      storage: 20,
      instanceType: null,
      diskType: null,
      iconUri: '',
      credentials: newDatabaseCredentials(serviceId, 'POSTGRESQL', secrets),
    }
    const password = secrets.open(Buffer.from(configuration.credentials.passwordSealed, 'base64'))
    const s: ServiceSnapshot<DatabaseConfig> = {
      serviceId,
      kind: 'DATABASE',
      name: 'Main',
      version: 1,
      configuration: { ...configuration, cpu: 1000 },
      overrides: {},
      variables: [],
      variablesFingerprint: '',
      advancedSettings: {},
    }
    const release = releaseName(s)
    const valuesFile = path.join(work, `${randomUUID()}.json`)
    const owner = { serviceId, environmentId, executionId: randomUUID() }
    const openSecret = (sealed: string) => secrets.open(Buffer.from(sealed, 'base64'))
    writeFileSync(valuesFile, JSON.stringify(chartValuesOf({ ...s, configuration }, { owner, variables: [], openSecret })))
    const running = execFileSync(helm, ['template', release, BUILTIN_CHART, '--namespace', namespace, '--values', valuesFile], {
      env: { PATH: process.env.PATH, HOME: work },
      encoding: 'utf8',
    })
    api.release(release, namespace, running)
    api.requests.length = 0
    const logs: string[] = []
    const outcome = await createKubernetesExecutor({
      kinds: KUBERNETES_KINDS,
      helmPath: helm,
      kubectlPath: kubectlBinary(major),
      kubeconfig: async () => api.kubeconfig('kube-secret'),
      chartRepository: async () => {
        throw new Error('no helm repository here')
      },
      openSecret: (sealed) => secrets.open(Buffer.from(sealed, 'base64')),
      workRoot: work,
    }).run({ id: serviceId, name: s.name, type: 'DATABASE' } as ServiceProgress, 'DEPLOY_DRY_RUN', new AbortController().signal, {
      snapshot: s,
      plan: [],
      run: { id: randomUUID(), organizationId, environmentId },
      log: (step, message) => logs.push(`${step}: ${message}`),
    })
    const text = logs.join('\n')
    assert.deepEqual(outcome, { ok: true }, text)
    assert.ok(logs.includes(`diff: changed: StatefulSet/${release}`), text)
    assert.ok(logs.includes('diff: -            limits: {"cpu":"500m","memory":"512Mi"}'), text)
    assert.ok(logs.includes('diff: +            limits: {"cpu":"1000m","memory":"512Mi"}'), text)
    assert.ok(!text.includes(password), 'the database’s password is never shown')
    assert.deepEqual(writesOf(api.requests), [])
  })

  it('through the API: dry_run=true on a helm service records DEPLOY_DRY_RUN/SUCCESS whose logs hold the diff, and installs nothing', async () => {
    const t = await createDeploymentsApp(0, {
      BERTH_HELM_PATH: helm,
      BERTH_KUBECTL_PATH: kubectlBinary(major),
      BERTH_RUNNER_POLL_MS: '50',
      BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
    })
    try {
      const calls = deploymentCalls(t.app)
      const f = factories(t.db)
      const { organization, tokens } = await f.organizationWithTokens()
      const write = tokens.write.authorization
      const cluster = await calls.inject('POST', `/organization/${organization.id}/cluster`, write, {
        name: 'lab',
        region: 'lab',
        cloud_provider: 'ON_PREMISE',
        kubernetes: 'SELF_MANAGED',
      })
      const clusterId = cluster.json().id
      const put = await t.app.inject({
        method: 'PUT',
        url: `/organization/${organization.id}/cluster/${clusterId}/kubeconfig`,
        headers: { authorization: write, 'content-type': 'application/x-yaml' },
        payload: api.kubeconfig('kube-secret'),
      })
      assert.equal(put.statusCode, 204, put.body)
      const project = await f.project(organization.id)
      const environment = await calls.inject('POST', `/project/${project.id}/environment`, write, {
        name: 'k8s',
        mode: 'DEVELOPMENT',
        cluster: clusterId,
      })
      const environmentId = environment.json().id
      const repository = await f.helmRepository(organization.id, { url: repositoryUrl, skipTlsVerification: true })
      const service = await f.helmService(environmentId, {
        name: 'shop',
        source: { helm_repository: { repository: repository.id, chart_name: 'shop', chart_version: '1.0.0' } },
        values_override: { set: [['greeting', 'bonjour']] },
      } as never)
      const release = releaseName({ name: 'shop', serviceId: service.id })
      api.release(release, namespaceOf(environmentId), runningManifest(release))
      api.requests.length = 0

      const dry = await calls.trigger(`/helm/${service.id}/deploy?dry_run=true`, tokens.deploy.authorization)
      await calls.waitUntilIdle(environmentId, tokens.read.authorization)
      const entry = (await calls.entries(environmentId, tokens.read.authorization)).find(
        (candidate) => candidate.identifier.execution_id === dry.execution_id,
      )
      assert.ok(entry)
      const logs = await calls.inject('GET', `/environment/${environmentId}/logs?version=${dry.execution_id}`, tokens.read.authorization)
      assert.equal(entry.trigger_action, 'DEPLOY_DRY_RUN')
      assert.equal(entry.action_status, 'SUCCESS', logs.body)
      assert.match(logs.body, new RegExp(`changed: ConfigMap/${release}-settings`))
      assert.match(logs.body, /\+ {2}greeting: \\?"bonjour\\?"/)
      assert.match(logs.body, new RegExp(`removed: ConfigMap/${release}-legacy`))
      assert.deepEqual(writesOf(api.requests), [])
      const status = await calls.inject('GET', `/helm/${service.id}/status`, tokens.read.authorization)
      assert.notEqual(status.json().state, 'DEPLOYED', 'a dry run deploys nothing')
    } finally {
      await t.close()
    }
  })
})
