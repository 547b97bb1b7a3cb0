import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, it } from 'node:test'
import { parse } from 'yaml'
import type { ServiceProgress } from '#src/modules/deployments/queue/deployment-progress.ts'
import {
  type ChartRepository,
  createKubernetesExecutor,
  namespaceOf,
  releaseName,
  valuesArguments,
} from '#src/modules/executors/kubernetes/helm-executor.ts'
import type { ChartWorkload } from '#src/modules/executors/workload.ts'
import type { HelmConfig } from '#src/modules/services/kinds/helm/helm.types.ts'
import { helmWorkload } from '#src/modules/services/kinds/helm/helm.workload.ts'
import { KUBERNETES_KINDS } from '#src/modules/services/kinds/registry.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { RunnableTrigger } from '#src/platform/deployment-states.ts'
import { testSecretBox } from './helpers/app.ts'
import { createDeploymentsApp } from './helpers/deployments.ts'
import { startRegistry } from './helpers/docker.ts'
import { factories } from './helpers/factories.ts'
import { startFakeKubeApi } from './helpers/fake-kube-api.ts'
import { applyFlags, describeWithEachHelm, helmBinary, kubectlBinary } from './helpers/helm-binary.ts'
import { helmSnapshot } from './helpers/helm-snapshots.ts'
import { writeRecordingHelm } from './helpers/recording-helm.ts'

// Helm services on Kubernetes with the real helm program (test/helpers/helm-binary.ts): a chart
// repository made here with `helm create`, `helm package` and `helm repo index`, served on loopback
// with basic auth; charts pulled and rendered by the real helm. No Kubernetes API server can run
// here: BERTH_HELM_PATH points at a wrapper that records each call's argv and the kubeconfig it was
// handed, runs the real helm for everything but `upgrade` and `uninstall`, and answers those two
// with success. What the tests cannot verify: that helm really installs or uninstalls on a cluster.

const KUBECONFIG =
  'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: { server: "https://127.0.0.1:1" }\nusers:\n- name: u\n  user: { token: kube-secret }\n'
const CREDENTIALS = { username: 'charts', password: `pw-${randomUUID()}` }

const CHART_VALUES = `berth:
  k1: chart
  k2: chart
  k3: chart
  k4: chart
  k5: chart
  k6: chart
clusterRole: false
otherNamespace: false
`
const CONFIGMAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-values
data:
{{- range $key, $value := .Values.berth }}
  {{ $key }}: {{ $value | toString | quote }}
{{- end }}
`
const CLUSTER_ROLE = `{{- if .Values.clusterRole }}
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ .Release.Name }}-reader
rules: []
{{- end }}
`
const OTHER_NAMESPACE = `{{- if .Values.otherNamespace }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: elsewhere
  namespace: kube-system
data: {}
{{- end }}
`

interface Call {
  argv: string[]
  kubeconfig?: string
  kubeconfigMode?: string
}

describeWithEachHelm('helm services on Kubernetes (real helm, no API server)', (major) => {
  let helm: string
  let work: string
  let server: Server
  let repositoryUrl: string
  /** The same repository over HTTPS, with a self-signed certificate (skip_tls_verification). */
  let httpsServer: Server
  let httpsUrl: string
  let wrapper: string
  let callsDir: string

  before(async () => {
    helm = helmBinary(major)
    work = mkdtempSync(path.join(os.tmpdir(), 'berth-helm-test-'))
    const home = path.join(work, 'home')
    mkdirSync(home)
    const run = (args: string[]) => execFileSync(helm, args, { cwd: work, env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8' })
    run(['create', 'webapp'])
    writeFileSync(path.join(work, 'webapp', 'values.yaml'), `${readFileSync(path.join(work, 'webapp', 'values.yaml'), 'utf8')}\n${CHART_VALUES}`)
    writeFileSync(path.join(work, 'webapp', 'templates', 'berth-values.yaml'), CONFIGMAP)
    writeFileSync(path.join(work, 'webapp', 'templates', 'cluster-role.yaml'), CLUSTER_ROLE)
    writeFileSync(path.join(work, 'webapp', 'templates', 'other-namespace.yaml'), OTHER_NAMESPACE)
    const repo = path.join(work, 'repo')
    mkdirSync(repo)
    run(['package', 'webapp', '--version', '1.2.3', '--destination', repo])

    const basic = `Basic ${Buffer.from(`${CREDENTIALS.username}:${CREDENTIALS.password}`).toString('base64')}`
    const serve = (req: IncomingMessage, res: ServerResponse) => {
      if (req.headers.authorization !== basic) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="charts"' })
        return res.end()
      }
      const file = path.join(repo, path.basename(new URL(req.url ?? '/', 'http://x').pathname))
      if (!existsSync(file)) {
        res.writeHead(404)
        return res.end()
      }
      res.writeHead(200)
      res.end(readFileSync(file))
    }
    server = createServer(serve)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    repositoryUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-days',
        '1',
        '-keyout',
        path.join(work, 'key.pem'),
        '-out',
        path.join(work, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    )
    httpsServer = createHttpsServer(
      { key: readFileSync(path.join(work, 'key.pem')), cert: readFileSync(path.join(work, 'cert.pem')) },
      serve,
    ) as unknown as Server
    await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve))
    httpsUrl = `https://127.0.0.1:${(httpsServer.address() as AddressInfo).port}`
    // Relative chart URLs: each server's index points at its own address.
    run(['repo', 'index', repo])

    ;({ wrapper, callsDir } = writeRecordingHelm(
      work,
      helm,
      '  if [ "$prev" = "--kubeconfig" ]; then cp "$a" "$call/kubeconfig"; stat -c %a "$a" > "$call/kubeconfig-mode"; fi',
      [
        '  upgrade|uninstall)',
        '    for a in "$@"; do if [ "$a" = "slow-install" ]; then exec sleep 30; fi; done',
        '    echo "Release \\"$3\\" has been upgraded. Happy Helming!"',
        '    exit 0;;',
      ].join('\n'),
    ))
  })
  after(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    await new Promise<void>((resolve) => (httpsServer ? httpsServer.close(() => resolve()) : resolve()))
    if (work) rmSync(work, { recursive: true, force: true })
  })

  const secrets = testSecretBox()
  const organizationId = randomUUID()
  const environmentId = randomUUID()

  function takeCalls(): Call[] {
    const calls = readdirSync(callsDir)
      .sort()
      .map((name) => {
        const dir = path.join(callsDir, name)
        const read = (file: string) => (existsSync(path.join(dir, file)) ? readFileSync(path.join(dir, file), 'utf8') : undefined)
        return {
          argv: (read('argv') ?? '').split('\n').slice(0, -1),
          kubeconfig: read('kubeconfig'),
          kubeconfigMode: read('kubeconfig-mode')?.trim(),
        }
      })
    for (const name of readdirSync(callsDir)) rmSync(path.join(callsDir, name), { recursive: true })
    return calls
  }

  const snapshot = (configuration: Partial<HelmConfig> = {}, variables: ServiceSnapshot['variables'] = []) =>
    helmSnapshot(configuration, { variables })

  function executor(repository: Partial<ChartRepository>, kubeconfig: string | undefined) {
    return createKubernetesExecutor({
      kinds: KUBERNETES_KINDS,
      helmPath: wrapper,
      kubeconfig: async (org, env) => (org === organizationId && env === environmentId ? kubeconfig : undefined),
      chartRepository: async () => ({ kind: 'HTTPS', url: repositoryUrl, skipTlsVerification: false, ...CREDENTIALS, ...repository }),
      openSecret: (sealed) => secrets.open(Buffer.from(sealed, 'base64')),
      workRoot: work,
      // The chart repository is a server on loopback.
      allowPrivateUrls: true,
    })
  }

  async function run(
    s: ServiceSnapshot<HelmConfig>,
    action: RunnableTrigger = 'DEPLOY',
    options: { signal?: AbortSignal; repository?: Partial<ChartRepository>; kubeconfig?: string | null } = {},
  ) {
    const logs: string[] = []
    const service = { id: s.serviceId, name: s.name, type: 'HELM' } as ServiceProgress
    const outcome = await executor(options.repository ?? {}, options.kubeconfig === null ? undefined : (options.kubeconfig ?? KUBECONFIG)).run(
      service,
      action,
      options.signal ?? new AbortController().signal,
      { snapshot: s, plan: [], run: { id: randomUUID(), organizationId, environmentId }, log: (step, message) => logs.push(`${step}: ${message}`) },
    )
    return { outcome, logs, calls: takeCalls() }
  }

  const workDirsLeft = () => readdirSync(work).filter((name) => name.startsWith('berth-helm-'))

  it('renders with values in helm’s precedence: chart < files in order < set_json < set < set_string, variables resolved', async () => {
    const dir = mkdtempSync(path.join(work, 'values-'))
    const service = snapshot({
      valuesOverride: {
        file: {
          raw: {
            values: [
              { name: 'one', content: 'berth:\n  k2: file1\n  k3: file1\n  k4: file1\n  k5: file1\n  k6: file1\n' },
              { name: 'two', content: 'berth:\n  k3: file2\n  k4: file2\n  k5: file2\n  k6: file2\n  k7: qovery.env.GREETING\n' },
            ],
          },
        },
        setJson: [
          ['berth.k4', '"json"'],
          ['berth.k5', '"json"'],
          ['berth.k6', '"json"'],
        ],
        set: [['berth.k5', 'set']],
        setString: [
          ['berth.k6', '0123'],
          ['berth.k8', 'qovery.env.TOKEN'],
        ],
      },
    })
    const workload = helmWorkload.describe(service, {
      action: 'DEPLOY',
      settings: { databaseImages: '', iacImages: '' },
      openSecret: () => '',
      namespace: 'ns',
    })
    assert.equal(workload.type, 'chart')
    const args = await valuesArguments(
      dir,
      (workload as ChartWorkload).values,
      new Map([
        ['GREETING', 'hello'],
        ['TOKEN', 's3cret'],
      ]),
    )
    const chart = path.join(work, 'webapp')
    const out = execFileSync(helm, ['template', 'r', chart, '--namespace', 'ns', ...args], {
      env: { PATH: process.env.PATH, HOME: dir },
      encoding: 'utf8',
    })
    const configMap = out
      .split(/^---$/m)
      .map((doc) => parse(doc))
      .find((doc) => doc?.kind === 'ConfigMap' && doc.metadata.name === 'r-values')
    assert.deepEqual(configMap.data, { k1: 'chart', k2: 'file1', k3: 'file2', k4: 'json', k5: 'set', k6: '0123', k7: 'hello', k8: 's3cret' })
    for (const file of readdirSync(dir)) assert.equal((await import('node:fs')).statSync(path.join(dir, file)).mode & 0o777, 0o600)
  })

  it('pulls the chart with the repository’s credentials, renders it, and installs it in the environment’s namespace with the cluster’s kubeconfig', async () => {
    const sealed = secrets.seal('from-a-secret').toString('base64')
    const s = snapshot(
      {
        valuesOverride: { set: [['berth.k1', 'qovery.env.PASSWORD']], setString: [], setJson: [], file: null },
        arguments: ['--atomic', '--history-max 3'],
      },
      [{ key: 'PASSWORD', sealed, isSecret: true, mountPath: null, variableId: randomUUID(), scope: 'ENVIRONMENT', variableType: 'VALUE' }],
    )
    const { outcome, logs, calls } = await run(s)
    assert.deepEqual(outcome, { ok: true }, logs.join('\n'))
    assert.deepEqual(
      calls.map((call) => call.argv[0]),
      ['repo', 'pull', 'template', 'upgrade'],
    )
    for (const call of calls) assert.ok(!call.argv.join(' ').includes(CREDENTIALS.password), 'the repository password is never in argv')
    const upgrade = calls[3]!
    const release = releaseName(s)
    assert.match(release, /^web-app-[0-9a-f]{8}$/)
    const namespace = namespaceOf(environmentId)
    const kubeconfigPath = upgrade.argv[upgrade.argv.indexOf('--kubeconfig') + 1]!
    const chartPath = upgrade.argv[3]!
    assert.match(chartPath, /webapp-1\.2\.3\.tgz$/)
    assert.deepEqual(upgrade.argv, [
      'upgrade',
      '--install',
      release,
      chartPath,
      '--namespace',
      namespace,
      '--kubeconfig',
      kubeconfigPath,
      '--create-namespace',
      '--timeout',
      '120s',
      '--set',
      'berth.k1=from-a-secret',
      // helm 4 calls --atomic --rollback-on-failure.
      major === 4 ? '--rollback-on-failure' : '--atomic',
      '--history-max',
      '3',
      ...applyFlags(major),
    ])
    assert.equal(upgrade.kubeconfig, KUBECONFIG)
    assert.equal(upgrade.kubeconfigMode, '600')
    assert.ok(
      logs.some((line) => line.startsWith('install: Release') && line.includes('Happy Helming')),
      'helm’s output is the log',
    )
    assert.ok(!logs.join('\n').includes('from-a-secret'), 'no value in the log')
    assert.deepEqual(workDirsLeft(), [], 'the work directory, kubeconfig included, is removed')
  })

  it('gives helm upgrade --install arguments the real helm takes: it reaches the cluster (a recording API server)', async () => {
    const api = await startFakeKubeApi()
    try {
      for (const extra of [['--atomic', '--history-max 3'], ['--rollback-on-failure'], ['--force']]) {
        const s = snapshot({ arguments: extra })
        const logs: string[] = []
        const outcome = await createKubernetesExecutor({
          kinds: KUBERNETES_KINDS,
          helmPath: helm,
          kubeconfig: async () => api.kubeconfig('kube-secret'),
          chartRepository: async () => ({ kind: 'HTTPS', url: repositoryUrl, skipTlsVerification: false, ...CREDENTIALS }),
          openSecret: () => '',
          workRoot: work,
          allowPrivateUrls: true,
        }).run({ id: s.serviceId, name: s.name, type: 'HELM' } as ServiceProgress, 'DEPLOY', new AbortController().signal, {
          snapshot: s,
          plan: [],
          run: { id: randomUUID(), organizationId, environmentId },
          log: (step, message) => logs.push(`${step}: ${message}`),
        })
        // The stand-in takes no object writes, and its Deployments belong to no release: helm stops there, past its arguments.
        assert.equal(outcome.ok, false)
        const message = (outcome as { message: string }).message
        assert.match(message, /^helm upgrade failed/, logs.join('\n'))
        assert.doesNotMatch(message, /unknown flag|flags in the group|cannot use/, extra.join(' '))
        const history = `/api/v1/namespaces/${namespaceOf(environmentId)}/secrets`
        assert.ok(
          api.requests.some((request) => request.url.startsWith(history) && request.url.includes(releaseName(s))),
          'helm looked up the release on the cluster',
        )
        api.requests.length = 0
      }
    } finally {
      await api.close()
    }
  })

  it('fails the deployment with helm’s own error when the repository refuses the credentials', async () => {
    const { outcome, calls } = await run(snapshot(), 'DEPLOY', { repository: { password: 'wrong' } })
    assert.equal(outcome.ok, false)
    assert.match((outcome as { message: string }).message, /^helm repo failed .*401 Unauthorized/s)
    assert.ok(!calls.some((call) => call.argv[0] === 'upgrade'))
  })

  it('verifies the repository’s certificate unless skip_tls_verification', async () => {
    const verified = await run(snapshot(), 'DEPLOY', { repository: { url: httpsUrl } })
    assert.equal(verified.outcome.ok, false)
    assert.match((verified.outcome as { message: string }).message, /certificate/)
    const skipped = await run(snapshot(), 'DEPLOY', { repository: { url: httpsUrl, skipTlsVerification: true } })
    assert.deepEqual(skipped.outcome, { ok: true }, skipped.logs.join('\n'))
  })

  it('pulls a chart from an OCI registry with the registry’s credentials', async () => {
    const registry = await startRegistry()
    try {
      const home = mkdtempSync(path.join(work, 'oci-'))
      const registryConfig = path.join(home, 'registry.json')
      const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64')
      writeFileSync(registryConfig, JSON.stringify({ auths: { [registry.host]: { auth } } }))
      execFileSync(
        helm,
        ['push', path.join(work, 'repo', 'webapp-1.2.3.tgz'), `oci://${registry.host}/charts`, '--plain-http', '--registry-config', registryConfig],
        { env: { PATH: process.env.PATH, HOME: home }, stdio: 'ignore' },
      )
      const oci = { kind: 'OCI_GENERIC_CR', url: `http://${registry.host}/charts`, username: registry.username, password: registry.password }
      const pulled = await run(snapshot(), 'DEPLOY', { repository: oci })
      assert.deepEqual(pulled.outcome, { ok: true }, pulled.logs.join('\n'))
      const pull = pulled.calls.find((call) => call.argv[0] === 'pull')!
      assert.equal(pull.argv[1], `oci://${registry.host}/charts/webapp`)
      assert.ok(!pull.argv.join(' ').includes(registry.password), 'the password is never in argv')
      const refused = await run(snapshot(), 'DEPLOY', { repository: { ...oci, password: 'wrong' } })
      assert.equal(refused.outcome.ok, false)
      assert.match((refused.outcome as { message: string }).message, /^helm pull failed .*(401|unauthorized)/is)
    } finally {
      await registry.close()
    }
  })

  it('refuses cluster-scoped objects and objects of another namespace unless allow_cluster_wide_resources', async () => {
    const clusterRole = await run(snapshot({ valuesOverride: { set: [['clusterRole', 'true']], setString: [], setJson: [], file: null } }))
    assert.equal(clusterRole.outcome.ok, false)
    assert.match((clusterRole.outcome as { message: string }).message, /ClusterRole\/web-app-[0-9a-f]{8}-reader.* is cluster-scoped/)
    assert.ok(!clusterRole.calls.some((call) => call.argv[0] === 'upgrade'), 'nothing installed')

    const elsewhere = await run(snapshot({ valuesOverride: { set: [['otherNamespace', 'true']], setString: [], setJson: [], file: null } }))
    assert.equal(elsewhere.outcome.ok, false)
    assert.match((elsewhere.outcome as { message: string }).message, /ConfigMap\/elsewhere in namespace kube-system .*is outside the namespace/)
    assert.ok(!elsewhere.calls.some((call) => call.argv[0] === 'upgrade'))

    const allowed = await run(
      snapshot({
        allowClusterWideResources: true,
        valuesOverride: {
          set: [
            ['clusterRole', 'true'],
            ['otherNamespace', 'true'],
          ],
          setString: [],
          setJson: [],
          file: null,
        },
      }),
    )
    assert.deepEqual(allowed.outcome, { ok: true }, allowed.logs.join('\n'))
    assert.ok(allowed.calls.some((call) => call.argv[0] === 'upgrade'))
  })

  it('uninstalls with helm uninstall in the namespace, with the kubeconfig', async () => {
    const s = snapshot()
    const { outcome, calls } = await run(s, 'UNINSTALL')
    assert.deepEqual(outcome, { ok: true })
    assert.equal(calls.length, 1)
    const argv = calls[0]!.argv
    assert.deepEqual(argv.slice(0, 6), ['uninstall', releaseName(s), '--namespace', namespaceOf(environmentId), '--kubeconfig', argv[5]])
    assert.equal(calls[0]!.kubeconfig, KUBECONFIG)
  })

  it('fails without a kubeconfig, and a cancel kills helm', async () => {
    const none = await run(snapshot(), 'DEPLOY', { kubeconfig: null })
    assert.deepEqual(none.outcome, { ok: false, message: 'the cluster has no kubeconfig: store one with editClusterKubeconfig' })

    const controller = new AbortController()
    const started = Date.now()
    const running = run(snapshot({ arguments: ['--description', 'slow-install'] }), 'DEPLOY', { signal: controller.signal })
    // Abort once helm upgrade runs (the wrapper sleeps 30 s for it).
    for (let i = 0; i < 200; i++) {
      if (readdirSync(callsDir).length >= 4) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    controller.abort(new Error('canceled'))
    await assert.rejects(running, /canceled/)
    assert.ok(Date.now() - started < 20_000, 'helm was killed, not waited for')
    takeCalls()
  })
  it('names its work directory after the run, so that the runner ending a run whose runner was killed removes it, kubeconfig and all', async () => {
    const lost = randomUUID()
    const other = randomUUID()
    // What a runner killed mid-install leaves: its work directory with the cluster's kubeconfig.
    for (const runId of [lost, other]) {
      const dir = mkdtempSync(path.join(work, `berth-helm-${runId}-`))
      writeFileSync(path.join(dir, 'kubeconfig'), KUBECONFIG, { mode: 0o600 })
    }
    const said: string[] = []
    await executor({}, KUBECONFIG).abandoned!({ id: lost, environmentId }, (message) => said.push(message))
    assert.deepEqual(
      workDirsLeft().map((name) => name.slice('berth-helm-'.length, 'berth-helm-'.length + 36)),
      [other],
    )
    assert.match(said.join('\n'), new RegExp(`removed the work directory berth-helm-${lost}-`))
    for (const name of workDirsLeft()) rmSync(path.join(work, name), { recursive: true, force: true })
    // A deployment names its directory so (helm is handed the kubeconfig there); one that finished leaves none.
    const done = await run(snapshot())
    assert.equal(done.outcome.ok, true, JSON.stringify(done.outcome))
    const install = done.calls.find((call) => call.argv[0] === 'upgrade')!
    assert.match(install.argv[install.argv.indexOf('--kubeconfig') + 1]!, /\/berth-helm-[0-9a-f-]{36}-[^/]+\/kubeconfig$/)
    assert.deepEqual(workDirsLeft(), [])
  })

  it('deploys a helm service of an environment on a KUBERNETES cluster through the API and the runner, with what the database holds', async () => {
    // The cluster is the recording API server: kubectl asks it its version, which the cluster's status reports.
    const api = await startFakeKubeApi()
    const kubeconfig = api.kubeconfig('kube-secret')
    const t = await createDeploymentsApp(0, {
      BERTH_HELM_PATH: wrapper,
      BERTH_KUBECTL_PATH: kubectlBinary(major),
      BERTH_RUNNER_POLL_MS: '50',
      BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
    })
    try {
      takeCalls()
      const f = factories(t.db)
      const { organization, tokens } = await f.organizationWithTokens()
      const write = { authorization: tokens.write.authorization }
      const cluster = await t.app.inject({
        method: 'POST',
        url: `/organization/${organization.id}/cluster`,
        headers: write,
        payload: { name: 'lab', region: 'lab', cloud_provider: 'ON_PREMISE', kubernetes: 'SELF_MANAGED' },
      })
      const clusterId = cluster.json().id
      const put = await t.app.inject({
        method: 'PUT',
        url: `/organization/${organization.id}/cluster/${clusterId}/kubeconfig`,
        headers: { ...write, 'content-type': 'application/x-yaml' },
        payload: kubeconfig,
      })
      const clusterStatus = async () =>
        (await t.app.inject({ method: 'GET', url: `/organization/${organization.id}/cluster/${clusterId}/status`, headers: write })).json()
      const before = await clusterStatus()
      assert.deepEqual(
        [before.kubernetes_version, before.kubectl_version, before.kubectl_version_skew],
        [null, null, null],
        'no runner saw the cluster yet',
      )
      assert.equal(put.statusCode, 204)
      const project = await f.project(organization.id)
      const environment = await t.app.inject({
        method: 'POST',
        url: `/project/${project.id}/environment`,
        headers: write,
        payload: { name: 'k8s', mode: 'DEVELOPMENT', cluster: clusterId },
      })
      const environmentId = environment.json().id
      const repository = await f.helmRepository(organization.id, {
        url: httpsUrl,
        skipTlsVerification: true,
        config: { username: CREDENTIALS.username },
        secrets: { password: CREDENTIALS.password },
      })
      const helmService = await f.helmService(environmentId, {
        name: 'web',
        source: { helm_repository: { repository: repository.id, chart_name: 'webapp', chart_version: '1.2.3' } },
        values_override: { set: [['berth.k1', 'from-api']] },
      } as never)
      const deploy = await t.app.inject({ method: 'POST', url: `/helm/${helmService.id}/deploy`, headers: write, payload: {} })
      assert.ok(deploy.statusCode < 300, deploy.body)
      let state = ''
      for (let i = 0; i < 200 && !['DEPLOYED', 'DEPLOYMENT_ERROR'].includes(state); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        state = (await t.app.inject({ method: 'GET', url: `/helm/${helmService.id}/status`, headers: write })).json().state
      }
      const calls = takeCalls()
      assert.equal(state, 'DEPLOYED', JSON.stringify(calls.map((call) => call.argv[0])))
      const upgrade = calls.find((call) => call.argv[0] === 'upgrade')!
      assert.equal(upgrade.kubeconfig, kubeconfig, 'the kubeconfig stored sealed reaches helm')
      assert.ok(upgrade.argv.includes(namespaceOf(environmentId)))
      assert.ok(upgrade.argv.includes('berth.k1=from-api'))
      // The stand-in says Kubernetes v1.31.0; helm 3's layer ships kubectl 1.31, helm 4's 1.33.
      const after = await clusterStatus()
      assert.equal(after.kubernetes_version, 'v1.31.0')
      assert.match(after.kubectl_version, major === 3 ? /^v1\.31\./ : /^v1\.33\./)
      if (major === 3) assert.equal(after.kubectl_version_skew, null)
      else assert.match(after.kubectl_version_skew, /kubectl v1\.33\.\d+ is 2 minor versions newer than the cluster's Kubernetes 1\.31/)
    } finally {
      await t.close()
      await api.close()
    }
  })
})
