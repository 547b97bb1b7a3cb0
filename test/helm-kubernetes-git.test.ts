import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, it } from 'node:test'
import { parse } from 'yaml'
import type { ServiceProgress } from '#src/modules/deployments/queue/deployment-progress.ts'
import type { GitCredentials } from '#src/modules/executors/git-checkout.ts'
import { createKubernetesExecutor, namespaceOf, releaseName } from '#src/modules/executors/kubernetes/helm-executor.ts'
import type { GitRepository } from '#src/modules/executors/workload.ts'
import type { GitRepositoryRef } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { HelmConfig } from '#src/modules/services/kinds/helm/helm.types.ts'
import { KUBERNETES_KINDS } from '#src/modules/services/kinds/registry.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { RunnableTrigger } from '#src/platform/deployment-states.ts'
import { createDeploymentsApp } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { startFakeKubeApi } from './helpers/fake-kube-api.ts'
import { type LoopbackGitServer, startGitServer } from './helpers/git-server.ts'
import { describeWithEachHelm, helmBinary, kubectlBinary } from './helpers/helm-binary.ts'
import { helmSnapshot } from './helpers/helm-snapshots.ts'
import { UNREACHABLE_KUBECONFIG } from './helpers/kubeconfig.ts'

// Helm charts and values files kept in git, and STOP and RESTART of a release, on Kubernetes: a
// repository served on loopback by git's own http-backend over HTTPS (test/helpers/git-server.ts,
// its certificate trusted through GIT_SSL_CAINFO, the token asked for as GitHub does), fetched by
// the executor's git and rendered by the real helm. No Kubernetes API server can run here:
// BERTH_HELM_PATH and BERTH_KUBECTL_PATH point at wrappers that record each call's argv and
// kubeconfig; the helm wrapper runs the real helm but for `upgrade` and `uninstall` (answered with
// success) and `get manifest` (answered with a manifest written here, as helm would read it from
// the cluster); the kubectl wrapper answers success. One test runs the real helm and kubectl against
// a recording stand-in for the API server (test/helpers/fake-kube-api.ts).

const TOKEN = `ghp_${randomUUID().replaceAll('-', '')}`
const KUBECONFIG = UNREACHABLE_KUBECONFIG

const CHART = {
  'charts/webapp/Chart.yaml': 'apiVersion: v2\nname: webapp\nversion: 0.1.0\n',
  'charts/webapp/values.yaml': 'berth:\n  k1: chart\n  k2: chart\n  k3: chart\n  k4: chart\n  k5: chart\n',
  'charts/webapp/templates/values.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-values
data:
{{- range $key, $value := .Values.berth }}
  {{ $key }}: {{ $value | toString | quote }}
{{- end }}
`,
  'values/one.yaml': 'berth:\n  k2: file1\n  k3: file1\n  k4: file1\n  k5: file1\n',
  'values/two.yaml': 'berth:\n  k3: file2\n  k4: file2\n  k5: file2\n  k6: qovery.env.GREETING\n',
}

/** What `helm get manifest` answers for the release: workloads of every kind, one in another namespace. */
const manifest = (namespace: string) => `---
# Source: app/templates/web.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: ${namespace}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: elsewhere
  namespace: other
`

interface Call {
  program: string
  argv: string[]
  kubeconfig?: string
  kubeconfigMode?: string
  stdout?: string
}

describeWithEachHelm('helm charts and values from git, stop and restart, on Kubernetes (real git, helm and kubectl; no API server)', (major) => {
  let work: string
  let git: LoopbackGitServer
  let callsDir: string
  let helmWrapper: string
  let kubectlWrapper: string
  let repositoryUrl: string
  let first: string
  let head: string
  const organizationId = randomUUID()
  const environmentId = randomUUID()
  const namespace = namespaceOf(environmentId)

  before(async () => {
    const helm = helmBinary(major)
    work = mkdtempSync(path.join(os.tmpdir(), 'berth-helm-git-test-'))
    git = await startGitServer('x-access-token', TOKEN)
    // The executor's git trusts the loopback server's certificate as an operator's would (docs/docker.md).
    process.env.GIT_SSL_CAINFO = git.certificateFile
    const repository = await git.repository('acme/deploy')
    repositoryUrl = `${git.url}/acme/deploy.git`
    first = await repository.commit(CHART, 'the chart and its values')
    head = await repository.commit(
      {
        'charts/webapp/values.yaml': 'berth:\n  k1: chart2\n  k2: chart2\n  k3: chart2\n  k4: chart2\n  k5: chart2\n',
        'values/one.yaml': 'berth:\n  k2: file1b\n  k3: file1b\n  k4: file1b\n  k5: file1b\n',
      },
      'second\n\nwith a body',
    )

    callsDir = path.join(work, 'calls')
    mkdirSync(callsDir)
    const record = `call="${callsDir}/$(date +%s%N)-$$"
mkdir "$call"
echo "$0" > "$call/program"
for a in "$@"; do printf '%s\\n' "$a" >> "$call/argv"; done
prev=""
for a in "$@"; do
  if [ "$prev" = "--kubeconfig" ]; then cp "$a" "$call/kubeconfig"; stat -c %a "$a" > "$call/kubeconfig-mode"; fi
  prev="$a"
done`
    helmWrapper = path.join(work, 'helm')
    writeFileSync(
      helmWrapper,
      `#!/bin/sh
# The version the executor asks first is no call of the deployment.
if [ "$1" = "version" ]; then exec "${helm}" "$@"; fi
${record}
case "$1" in
  upgrade|uninstall) echo "Release \\"$3\\" has been upgraded. Happy Helming!"; exit 0;;
  get)
    if [ -f "${work}/manifest.yaml" ]; then cat "${work}/manifest.yaml"; exit 0; fi
    echo "Error: release: not found" >&2; exit 1;;
  template)
    "${helm}" "$@" > "$call/stdout"; rc=$?; cat "$call/stdout"; exit $rc;;
esac
exec "${helm}" "$@"
`,
    )
    kubectlWrapper = path.join(work, 'kubectl')
    writeFileSync(
      kubectlWrapper,
      `#!/bin/sh
# No cluster answers the version the executor asks first: it goes on without.
if [ "$1" = "version" ]; then exit 1; fi
${record}
echo "done"
`,
    )
    chmodSync(helmWrapper, 0o755)
    chmodSync(kubectlWrapper, 0o755)
  })

  after(async () => {
    delete process.env.GIT_SSL_CAINFO
    await git?.close()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  function takeCalls(): Call[] {
    const names = readdirSync(callsDir).sort()
    const calls = names.map((name) => {
      const dir = path.join(callsDir, name)
      const read = (file: string) => (existsSync(path.join(dir, file)) ? readFileSync(path.join(dir, file), 'utf8') : undefined)
      return {
        program: path.basename((read('program') ?? '').trim()),
        argv: (read('argv') ?? '').split('\n').slice(0, -1),
        kubeconfig: read('kubeconfig'),
        kubeconfigMode: read('kubeconfig-mode')?.trim(),
        stdout: read('stdout'),
      }
    })
    for (const name of names) rmSync(path.join(callsDir, name), { recursive: true })
    return calls
  }

  const repository = (rootPath = '/charts/webapp'): GitRepositoryRef => ({
    url: repositoryUrl,
    branch: 'main',
    rootPath,
    gitTokenId: 'token-1',
    provider: 'GITHUB',
    owner: 'acme',
    name: 'deploy',
  })

  const snapshot = (configuration: Partial<HelmConfig> = {}, overrides: Record<string, string> = {}) =>
    helmSnapshot(
      {
        source: { git: repository() },
        valuesOverride: {
          set: [['berth.k4', 'set']],
          setString: [['berth.k5', 'set-string']],
          setJson: [],
          file: { git: { repository: repository('/'), paths: ['/values/one.yaml', 'values/two.yaml'] } },
        },
        ...configuration,
      },
      {
        overrides,
        variables: [
          {
            key: 'GREETING',
            value: 'hello',
            isSecret: false,
            mountPath: null,
            variableId: randomUUID(),
            scope: 'ENVIRONMENT',
            variableType: 'VALUE',
          },
        ],
      },
    )

  async function run(s: ServiceSnapshot<HelmConfig>, action: RunnableTrigger = 'DEPLOY', token = TOKEN) {
    const logs: string[] = []
    const credentials: GitRepository[] = []
    const executor = createKubernetesExecutor({
      kinds: KUBERNETES_KINDS,
      helmPath: helmWrapper,
      kubectlPath: kubectlWrapper,
      allowPrivateUrls: true,
      kubeconfig: async () => KUBECONFIG,
      chartRepository: async () => {
        throw new Error('no helm repository is used')
      },
      async gitCredentials(org, repo): Promise<GitCredentials> {
        assert.equal(org, organizationId)
        credentials.push(repo)
        return { username: 'x-access-token', token }
      },
      openSecret: () => '',
      workRoot: work,
    })
    const service = { id: s.serviceId, name: s.name, type: 'HELM' } as ServiceProgress
    const outcome = await executor.run(service, action, new AbortController().signal, {
      snapshot: s,
      plan: [],
      run: { id: randomUUID(), organizationId, environmentId },
      log: (step, message, level) => logs.push(`${step}: ${level ?? 'INFO'} ${message}`),
    })
    return { outcome, logs, calls: takeCalls(), credentials }
  }

  /** The values the chart rendered with, from `helm template`'s real output. */
  function renderedValues(calls: Call[]) {
    const template = calls.find((call) => call.argv[0] === 'template')
    assert.ok(template?.stdout, 'helm template ran')
    return template.stdout
      .split(/^---$/m)
      .map((doc) => parse(doc))
      .find((doc) => doc?.kind === 'ConfigMap')?.data
  }

  it('renders the chart at root_path of the branch’s head with the git values files in helm’s precedence, and reports the commit', async () => {
    const s = snapshot()
    const { outcome, logs, calls, credentials } = await run(s)
    assert.equal(outcome.ok, true, logs.join('\n'))
    assert.equal(credentials.length, 2, 'the chart and the values files are each fetched with the repository’s credentials')
    // chart < values files in order < set < set_string; qovery.env.NAME resolved in a values file.
    assert.deepEqual(renderedValues(calls), { k1: 'chart2', k2: 'file1b', k3: 'file2', k4: 'set', k5: 'set-string', k6: 'hello' })
    const commit = (outcome.details as { commit: Record<string, string> }).commit
    assert.equal(commit.git_commit_id, head)
    assert.equal(commit.author_name, 'Ada')
    assert.equal(commit.message, 'second\n\nwith a body')
    assert.equal(commit.tag, '')
    assert.ok(!Number.isNaN(Date.parse(commit.created_at!)))
    const upgrade = calls.find((call) => call.argv[0] === 'upgrade')!
    assert.deepEqual(upgrade.argv.slice(0, 3), ['upgrade', '--install', releaseName(s)])
    assert.ok(upgrade.argv.includes(namespace))
    assert.equal(upgrade.argv.filter((word) => word === '--values').length, 2)
    for (const call of calls) assert.ok(!call.argv.join(' ').includes(TOKEN), 'the git token is never in argv')
    assert.ok(!logs.join('\n').includes(TOKEN), 'nor in the log')
    assert.ok(logs.some((line) => line.includes(`checked out commit ${head}`)))
    assert.deepEqual(
      readdirSync(work).filter((name) => name.startsWith('berth-helm-')),
      [],
      'the work directory is removed',
    )
  })

  it('fetches the commits the deploy request names, for the chart and for the values files', async () => {
    const { outcome, logs, calls } = await run(snapshot({}, { gitCommitId: first, valuesOverrideGitCommitId: first }))
    assert.equal(outcome.ok, true, logs.join('\n'))
    assert.deepEqual(renderedValues(calls), { k1: 'chart', k2: 'file1', k3: 'file2', k4: 'set', k5: 'set-string', k6: 'hello' })
    assert.equal((outcome.details as { commit: { git_commit_id: string } }).commit.git_commit_id, first)
  })

  it('fails with git’s reason when the repository refuses the token, and installs nothing', async () => {
    const { outcome, calls } = await run(snapshot(), 'DEPLOY', 'wrong-token')
    assert.equal(outcome.ok, false)
    const message = (outcome as { message: string }).message
    assert.match(message, /^cannot fetch https:\/\/127\.0\.0\.1:\d+\/acme\/deploy\.git: git fetch failed/)
    assert.ok(!message.includes('wrong-token'))
    assert.deepEqual(calls, [], 'neither helm nor kubectl ran')
  })

  it('refuses a root_path without a chart, and a values file that is not in the repository', async () => {
    const noChart = await run(snapshot({ source: { git: repository('/values') } }))
    assert.equal(noChart.outcome.ok, false)
    assert.match((noChart.outcome as { message: string }).message, /no Chart\.yaml at the root_path \/values/)
    const values = snapshot()
    values.configuration.valuesOverride.file = { git: { repository: repository('/'), paths: ['/values/../../etc/passwd'] } }
    const outside = await run(values)
    assert.equal(outside.outcome.ok, false)
    assert.match((outside.outcome as { message: string }).message, /values file \/values\/\.\.\/\.\.\/etc\/passwd is not a file of the repository/)
    assert.ok(!outside.calls.some((call) => call.argv[0] === 'upgrade'))
    assert.equal((outside.outcome.details as { commit: { git_commit_id: string } }).commit.git_commit_id, head, 'the chart’s commit is reported')
  })

  it('stops a release by scaling its Deployments and StatefulSets to zero with kubectl, per namespace', async () => {
    writeFileSync(path.join(work, 'manifest.yaml'), manifest(namespace))
    try {
      const s = snapshot()
      const { outcome, logs, calls } = await run(s, 'STOP')
      assert.deepEqual(outcome, { ok: true }, logs.join('\n'))
      assert.deepEqual(
        calls.map((call) => [call.program, call.argv[0]]),
        [
          ['helm', 'get'],
          ['kubectl', 'scale'],
          ['kubectl', 'scale'],
        ],
      )
      const kubeconfigPath = calls[0]!.argv.at(-1)!
      assert.deepEqual(calls[0]!.argv, ['get', 'manifest', releaseName(s), '--namespace', namespace, '--kubeconfig', kubeconfigPath])
      assert.deepEqual(calls[1]!.argv, [
        'scale',
        '--replicas=0',
        'deployment.apps/web',
        'statefulset.apps/db',
        '--namespace',
        namespace,
        '--kubeconfig',
        kubeconfigPath,
      ])
      assert.deepEqual(calls[2]!.argv, ['scale', '--replicas=0', 'deployment.apps/elsewhere', '--namespace', 'other', '--kubeconfig', kubeconfigPath])
      for (const call of calls) {
        assert.equal(call.kubeconfig, KUBECONFIG)
        assert.equal(call.kubeconfigMode, '600')
      }
      assert.ok(logs.some((line) => line.includes('DaemonSet/agent cannot be scaled to zero')))
      assert.ok(!logs.some((line) => line.includes('kind: ConfigMap')), 'the manifest is not logged')
    } finally {
      rmSync(path.join(work, 'manifest.yaml'))
    }
  })

  it('restarts a release’s Deployments, StatefulSets and DaemonSets with kubectl rollout restart', async () => {
    writeFileSync(path.join(work, 'manifest.yaml'), manifest(namespace))
    try {
      const { outcome, logs, calls } = await run(snapshot(), 'RESTART')
      assert.deepEqual(outcome, { ok: true }, logs.join('\n'))
      const kubeconfigPath = calls[0]!.argv.at(-1)!
      assert.deepEqual(
        calls.slice(1).map((call) => call.argv),
        [
          [
            'rollout',
            'restart',
            'deployment.apps/web',
            'statefulset.apps/db',
            'daemonset.apps/agent',
            '--namespace',
            namespace,
            '--kubeconfig',
            kubeconfigPath,
          ],
          ['rollout', 'restart', 'deployment.apps/elsewhere', '--namespace', 'other', '--kubeconfig', kubeconfigPath],
        ],
      )
      assert.equal(calls[1]!.kubeconfig, KUBECONFIG)
    } finally {
      rmSync(path.join(work, 'manifest.yaml'))
    }
  })

  it('stops and restarts nothing when the release is not installed', async () => {
    for (const action of ['STOP', 'RESTART'] as const) {
      const { outcome, logs, calls } = await run(snapshot(), action)
      assert.deepEqual(outcome, { ok: true })
      assert.deepEqual(
        calls.map((call) => call.program),
        ['helm'],
      )
      assert.ok(logs.some((line) => line.includes('is not installed')))
    }
  })

  it('stops and restarts with the real helm and kubectl, against a recording API server on loopback', async () => {
    const api = await startFakeKubeApi()
    const seen: string[][] = []
    const warnings: string[] = []
    try {
      const executor = createKubernetesExecutor({
        kinds: KUBERNETES_KINDS,
        helmPath: helmBinary(major),
        kubectlPath: kubectlBinary(major),
        recordClusterVersions: async (org, env, versions) => {
          seen.push([org, env, versions.kubernetes.text, `${versions.kubectl.major}.${versions.kubectl.minor}`])
        },
        kubeconfig: async () => api.kubeconfig('kube-secret'),
        chartRepository: async () => {
          throw new Error('no helm repository is used')
        },
        openSecret: () => '',
        workRoot: work,
      })
      const s = snapshot()
      api.release(releaseName(s), namespace, manifest(namespace))
      const service = { id: s.serviceId, name: s.name, type: 'HELM' } as ServiceProgress
      const act = async (action: 'STOP' | 'RESTART', target = s) => {
        api.requests.length = 0
        const logs: string[] = []
        const outcome = await executor.run(service, action, new AbortController().signal, {
          snapshot: target,
          plan: [],
          run: { id: randomUUID(), organizationId, environmentId },
          log: (step, message, level) => {
            logs.push(`${step}: ${message}`)
            if (level === 'WARNING') warnings.push(message)
          },
        })
        assert.deepEqual(outcome, { ok: true }, logs.join('\n'))
        for (const request of api.requests) assert.equal(request.authorization, 'Bearer kube-secret', 'the cluster’s kubeconfig is used')
        return api.requests
          .filter((request) => request.method !== 'GET')
          .map((request) => [request.method, request.url.split('?')[0], request.contentType, request.body])
      }
      const replicasZero = JSON.stringify({ spec: { replicas: 0 } })
      assert.deepEqual(await act('STOP'), [
        ['PATCH', `/apis/apps/v1/namespaces/${namespace}/deployments/web/scale`, 'application/merge-patch+json', replicasZero],
        ['PATCH', `/apis/apps/v1/namespaces/${namespace}/statefulsets/db/scale`, 'application/merge-patch+json', replicasZero],
        ['PATCH', '/apis/apps/v1/namespaces/other/deployments/elsewhere/scale', 'application/merge-patch+json', replicasZero],
      ])
      const restarted = await act('RESTART')
      assert.deepEqual(
        restarted.map(([method, url, contentType]) => [method, url, contentType]),
        [
          ['PATCH', `/apis/apps/v1/namespaces/${namespace}/deployments/web`, 'application/strategic-merge-patch+json'],
          ['PATCH', `/apis/apps/v1/namespaces/${namespace}/statefulsets/db`, 'application/strategic-merge-patch+json'],
          ['PATCH', `/apis/apps/v1/namespaces/${namespace}/daemonsets/agent`, 'application/strategic-merge-patch+json'],
          ['PATCH', '/apis/apps/v1/namespaces/other/deployments/elsewhere', 'application/strategic-merge-patch+json'],
        ],
      )
      for (const [, , , body] of restarted) {
        assert.ok(
          JSON.parse(body!).spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'],
          'a rollout restart patches the pod template',
        )
      }
      assert.deepEqual(await act('STOP', snapshot()), [], 'a release that is not installed: nothing is changed')
      // kubectl asked the cluster its version (the stand-in says v1.31.0) each time: helm 3's layer ships kubectl 1.31, helm 4's 1.33.
      const kubectl = major === 3 ? '1.31' : '1.33'
      assert.deepEqual(seen, Array(3).fill([organizationId, environmentId, 'v1.31.0', kubectl]))
      const skew = warnings.filter((warning) => warning.includes('minor versions'))
      if (major === 3) assert.deepEqual(skew, [])
      else
        assert.match(
          skew[0] ?? '',
          /kubectl v1\.33\.\d+ is 2 minor versions newer than the cluster's Kubernetes 1\.31: Kubernetes supports kubectl within one minor version/,
        )
    } finally {
      await api.close()
    }
  })

  it('records the commit fetched in the history entry of a deploy through the API and the runner', async () => {
    const t = await createDeploymentsApp(0, {
      BERTH_HELM_PATH: helmWrapper,
      BERTH_KUBECTL_PATH: kubectlWrapper,
      BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
      BERTH_RUNNER_POLL_MS: '50',
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
      const put = await t.app.inject({
        method: 'PUT',
        url: `/organization/${organization.id}/cluster/${cluster.json().id}/kubeconfig`,
        headers: { ...write, 'content-type': 'application/x-yaml' },
        payload: KUBECONFIG,
      })
      assert.equal(put.statusCode, 204)
      const project = await f.project(organization.id)
      const environment = await t.app.inject({
        method: 'POST',
        url: `/project/${project.id}/environment`,
        headers: write,
        payload: { name: 'k8s', mode: 'DEVELOPMENT', cluster: cluster.json().id },
      })
      const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token: TOKEN, gitApiUrl: new URL(repositoryUrl).origin })
      const git_repository = { url: repositoryUrl, branch: 'main', root_path: '/charts/webapp', git_token_id: gitToken.id, provider: 'GITHUB' }
      const helmService = await f.helmService(environment.json().id, {
        name: 'web',
        source: { git_repository },
        values_override: { file: { git: { git_repository: { ...git_repository, root_path: '/' }, paths: ['/values/one.yaml'] } } },
      } as never)
      const deploy = await t.app.inject({ method: 'POST', url: `/helm/${helmService.id}/deploy`, headers: write, payload: { git_commit_id: first } })
      assert.ok(deploy.statusCode < 300, deploy.body)
      let state = ''
      for (let i = 0; i < 200 && !['DEPLOYED', 'DEPLOYMENT_ERROR'].includes(state); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        state = (await t.app.inject({ method: 'GET', url: `/helm/${helmService.id}/status`, headers: write })).json().state
      }
      const calls = takeCalls()
      if (state !== 'DEPLOYED') {
        const failed = await t.app.inject({ method: 'GET', url: `/helm/${helmService.id}/deploymentHistoryV2`, headers: write })
        assert.fail(`${state}: ${failed.body.slice(0, 3000)}; helm calls: ${JSON.stringify(calls.map((call) => call.argv[0]))}`)
      }
      // The values files at the branch's head: the request named no values_override_git_commit_id.
      assert.deepEqual(renderedValues(calls), { k1: 'chart', k2: 'file1b', k3: 'file1b', k4: 'file1b', k5: 'file1b' })
      const history = await t.app.inject({ method: 'GET', url: `/helm/${helmService.id}/deploymentHistoryV2`, headers: write })
      const [entry] = history.json().results
      assert.equal(entry.details.commit.git_commit_id, first)
      assert.equal(entry.details.commit.message, 'the chart and its values')
      assert.equal(entry.details.commit.author_name, 'Ada')
      assert.equal(entry.details.git_commit_id, first)
    } finally {
      await t.close()
    }
  })
})
