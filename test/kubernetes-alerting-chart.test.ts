import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, it } from 'node:test'
import { parseAllDocuments } from 'yaml'
import { serviceAlerting } from '#src/modules/alerting/service-alerting.ts'
import type { ServiceProgress } from '#src/modules/deployments/queue/deployment-progress.ts'
import { BUILTIN_CHART } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import { createKubernetesExecutor, namespaceOf, releaseName } from '#src/modules/executors/kubernetes/helm-executor.ts'
import { KUBERNETES_KINDS } from '#src/modules/services/kinds/registry.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { createTestApp, type TestApp, testSecretBox } from './helpers/app.ts'
import { call } from './helpers/berth-processes.ts'
import { factories } from './helpers/factories.ts'
import { describeWithEachHelm, helmBinary } from './helpers/helm-binary.ts'
import { writeRecordingHelm } from './helpers/recording-helm.ts'

// Alert rules on Kubernetes (docs/alerting.md, "On Kubernetes"): a container service deployed by the
// Kubernetes executor with the chart Berth ships carries the enabled rules that target it, as a
// prometheus-operator PrometheusRule and AlertmanagerConfig, the receivers' webhook URL and password in
// a Secret. Rules and receivers are made through the API (promtool checks the PromQL); the deployment
// runs the executor against a recording helm (test/helpers/recording-helm.ts: no API server here), and
// the values file it hands helm is rendered by the real helm, with and without the operator's kinds
// among the cluster's API versions. Then Prometheus' own promtool runs the rendered groups on made-up
// cAdvisor series of the release's pods: the rule, written as on Docker (`service_id="…"`), fires with
// the service's labels. Not verified: a real operator loading them.

// biome-ignore lint/suspicious/noExplicitAny: rendered objects are read field by field
type K8sObject = Record<string, any>

const secrets = testSecretBox()
const KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: { server: "https://127.0.0.1:1" }\n'
const HOOK_URL = `https://hooks.slack.com/services/T000/B000/${randomUUID()}`
const SMTP_PASSWORD = `smtp-${randomUUID()}`
const OPERATOR_KINDS = [
  '--api-versions',
  'monitoring.coreos.com/v1/PrometheusRule',
  '--api-versions',
  'monitoring.coreos.com/v1alpha1/AlertmanagerConfig',
]

let t: TestApp
let baseUrl: string
let w: Awaited<ReturnType<ReturnType<typeof factories>['environmentWithTokens']>>
let service: { id: string; name: string }
const receivers: Record<'slack' | 'email', string> = { slack: '', email: '' }
let ruleId: string
let disabledRuleId: string

before(async () => {
  t = await createTestApp({ BERTH_RATE_LIMIT_PER_CREDENTIAL: '0', BERTH_RATE_LIMIT_PER_ADDRESS: '0' })
  baseUrl = await t.listen()
  const f = factories(t.db)
  w = await f.environmentWithTokens()
  service = await f.containerService(w.environment.id, { name: 'memory-hog' })
  const api = (url: string, body: object) => call(baseUrl, 'POST', url, w.tokens.write.authorization, { body })
  const clusters = await call(baseUrl, 'GET', `/organization/${w.organization.id}/cluster`, w.tokens.admin.authorization)
  const clusterId = clusters.body.results[0].id
  const slack = await api('/alert-receivers', {
    organization_id: w.organization.id,
    name: 'team-slack',
    description: '',
    type: 'SLACK',
    send_resolved: true,
    webhook_url: HOOK_URL,
  })
  assert.equal(slack.status, 201, slack.text)
  const email = await api('/alert-receivers', {
    organization_id: w.organization.id,
    name: 'on-call mail',
    description: '',
    type: 'EMAIL',
    send_resolved: false,
    to: 'oncall@example.com',
    from: 'berth@example.com',
    smarthost: 'smtp.example.com:587',
    auth_username: 'berth',
    auth_password: SMTP_PASSWORD,
    require_tls: true,
  })
  assert.equal(email.status, 201, email.text)
  receivers.slack = slack.body.id
  receivers.email = email.body.id
  const rule = (name: string, enabled: boolean) =>
    api('/alert-rules', {
      organization_id: w.organization.id,
      cluster_id: clusterId,
      name,
      description: 'the working set is over 50 MB',
      tag: 'memory',
      condition: { kind: 'CUSTOM', promql: `container_memory_working_set_bytes{service_id="${service.id}"} > 50e6` },
      for_duration: 'PT10S',
      severity: 'HIGH',
      presentation: { summary: null },
      enabled,
      alert_receiver_ids: [receivers.slack, receivers.email],
      target: { target_type: 'CONTAINER', target_id: service.id },
    })
  const made = await rule('MemoryHigh', true)
  assert.equal(made.status, 201, made.text)
  ruleId = made.body.id
  const disabled = await rule('MemoryHigher', false)
  assert.equal(disabled.status, 201, disabled.text)
  disabledRuleId = disabled.body.id
})

after(async () => {
  await t?.close()
})

describeWithEachHelm('alert rules of a service on Kubernetes (the chart Berth ships, real helm and promtool, no API server)', (major) => {
  let helm: string
  let work: string
  let wrapper: string
  let callsDir: string

  before(() => {
    helm = helmBinary(major)
    work = mkdtempSync(path.join(os.tmpdir(), 'berth-alerting-chart-'))
    ;({ wrapper, callsDir } = writeRecordingHelm(work, helm, '  if [ "$prev" = "--values" ]; then cp "$a" "$call/values"; fi'))
  })
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true })
  })

  /** Deploys the service by the executor; the values file it handed `helm upgrade`. */
  async function deploy(): Promise<{ values: string; logs: string[]; snapshot: ServiceSnapshot }> {
    const snapshot: ServiceSnapshot = {
      serviceId: service.id,
      kind: 'CONTAINER',
      name: service.name,
      version: 1,
      configuration: {
        description: null,
        registryId: randomUUID(),
        imageName: 'acme/hog',
        tag: '1',
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
      },
      overrides: {},
      variables: [],
      variablesFingerprint: '',
      advancedSettings: {},
    }
    const logs: string[] = []
    const executor = createKubernetesExecutor({
      kinds: KUBERNETES_KINDS,
      helmPath: wrapper,
      kubeconfig: async () => KUBECONFIG,
      chartRepository: async () => {
        throw new Error('no helm repository here')
      },
      registry: async () => ({ host: 'registry.example.com', auth: undefined }),
      databaseImages: 'docker.io/library',
      openSecret: (sealed) => secrets.open(Buffer.from(sealed, 'base64')),
      alerting: serviceAlerting(t.db, secrets, { groupWaitMs: 30_000 }),
      workRoot: work,
    })
    const outcome = await executor.run(
      { id: service.id, name: service.name, type: 'CONTAINER' } as ServiceProgress,
      'DEPLOY',
      new AbortController().signal,
      {
        snapshot,
        plan: [],
        run: { id: randomUUID(), organizationId: w.organization.id, environmentId: w.environment.id },
        log: (step, message) => logs.push(`${step}: ${message}`),
      },
    )
    assert.deepEqual(outcome, { ok: true }, logs.join('\n'))
    const calls = readdirSync(callsDir).sort()
    const upgrade = calls.map((name) => path.join(callsDir, name)).find((dir) => readFileSync(path.join(dir, 'argv'), 'utf8').startsWith('upgrade\n'))
    assert.ok(upgrade && existsSync(path.join(upgrade, 'values')), 'helm upgrade was handed a values file')
    const values = readFileSync(path.join(upgrade, 'values'), 'utf8')
    for (const name of calls) rmSync(path.join(callsDir, name), { recursive: true })
    return { values, logs, snapshot }
  }

  function render(values: string, release: string, extra: string[]): K8sObject[] {
    const file = path.join(work, `${randomUUID()}.json`)
    writeFileSync(file, values)
    const manifest = execFileSync(
      helm,
      ['template', release, BUILTIN_CHART, '--namespace', namespaceOf(w.environment.id), '--values', file, ...extra],
      {
        env: { PATH: process.env.PATH, HOME: work },
        encoding: 'utf8',
      },
    )
    return parseAllDocuments(manifest)
      .map((doc) => doc.toJS() as K8sObject | null)
      .filter((doc): doc is K8sObject => doc !== null)
  }

  it('renders the enabled rules as a PrometheusRule and the receivers as an AlertmanagerConfig, their secrets in a Secret', async () => {
    const { values, logs, snapshot } = await deploy()
    assert.ok(
      logs.some((line) => line.includes('1 alert rule watches the service')),
      logs.join('\n'),
    )
    const release = releaseName(snapshot)
    const namespace = namespaceOf(w.environment.id)
    const objects = render(values, release, OPERATOR_KINDS)
    const byKind = (kind: string) => objects.filter((o) => o.kind === kind)
    for (const object of objects) {
      assert.equal(object.metadata.namespace, namespace)
      assert.equal(object.metadata.labels['berth.service-id'], service.id, `${object.kind} carries Berth's labels`)
      assert.equal(object.metadata.labels['berth.environment-id'], w.environment.id)
    }

    const prometheusRule = byKind('PrometheusRule')[0]!
    assert.equal(prometheusRule.apiVersion, 'monitoring.coreos.com/v1')
    const [series, alerts] = prometheusRule.spec.groups
    assert.equal(alerts.rules.length, 1, 'the disabled rule is not rendered')
    const [alert] = alerts.rules
    assert.equal(alert.alert, 'MemoryHigh')
    assert.equal(alert.for, '10s')
    // The rule's expression as on Docker, limited to the organization's series.
    assert.match(alert.expr, new RegExp(`service_id="${service.id}"`))
    assert.match(alert.expr, new RegExp(`organization_id="${w.organization.id}"`))
    assert.match(alert.expr, /> 50e6$/)
    assert.deepEqual(alert.labels, {
      berth_rule_id: ruleId,
      berth_rule_version: '1',
      severity: 'HIGH',
      berth_organization_id: w.organization.id,
      berth_target_type: 'CONTAINER',
      berth_target_id: service.id,
      berth_target_name: 'memory-hog',
    })
    assert.equal(alert.annotations.summary, 'MemoryHigh on memory-hog')
    assert.ok(!JSON.stringify(prometheusRule).includes(disabledRuleId))
    // Berth's labels on the cluster's series of the release's pods.
    assert.deepEqual(
      series.rules.map((r: K8sObject) => r.record),
      [
        'container_cpu_usage_seconds_total',
        'container_memory_working_set_bytes',
        'container_memory_usage_bytes',
        'container_start_time_seconds',
        'container_network_receive_bytes_total',
        'container_network_transmit_bytes_total',
        'container_restarts_total',
      ],
    )
    for (const record of series.rules)
      assert.deepEqual(record.labels, {
        service_id: service.id,
        service_name: 'memory-hog',
        environment_id: w.environment.id,
        project_id: w.project.id,
        organization_id: w.organization.id,
      })

    const config = byKind('AlertmanagerConfig')[0]!
    assert.equal(config.apiVersion, 'monitoring.coreos.com/v1alpha1')
    assert.equal(config.spec.route.receiver, 'berth-none')
    assert.deepEqual(config.spec.route.groupBy, ['berth_rule_id'])
    assert.equal(config.spec.route.groupWait, '30s')
    assert.equal(config.spec.route.groupInterval, '60s')
    assert.deepEqual(config.spec.route.routes, [{ receiver: `rule-${ruleId}`, matchers: [{ name: 'berth_rule_id', value: ruleId, matchType: '=' }] }])
    const receiver = config.spec.receivers.find((r: K8sObject) => r.name === `rule-${ruleId}`)
    const secretName = `${release}-alert-receivers`
    assert.deepEqual(receiver.slackConfigs.length, 1)
    assert.deepEqual(receiver.slackConfigs[0].apiURL, { name: secretName, key: receivers.slack })
    assert.equal(receiver.slackConfigs[0].sendResolved, true)
    assert.match(receiver.slackConfigs[0].title, /berth_target_name/)
    assert.deepEqual(
      { ...receiver.emailConfigs[0], headers: undefined, text: undefined },
      {
        to: 'oncall@example.com',
        from: 'berth@example.com',
        smarthost: 'smtp.example.com:587',
        requireTLS: true,
        sendResolved: false,
        authUsername: 'berth',
        authPassword: { name: secretName, key: receivers.email },
        headers: undefined,
        text: undefined,
      },
    )
    assert.ok(!JSON.stringify(config).includes(HOOK_URL) && !JSON.stringify(config).includes(SMTP_PASSWORD), 'no secret inline')
    const secret = byKind('Secret').find((s) => s.metadata.name === secretName)!
    assert.deepEqual(secret.stringData, { [receivers.slack]: HOOK_URL, [receivers.email]: SMTP_PASSWORD })

    // A cluster without the operator's kinds gets none of it (the workload still deploys).
    const plain = render(values, release, [])
    assert.deepEqual(
      plain.filter((o) => ['PrometheusRule', 'AlertmanagerConfig'].includes(o.kind) || o.metadata.name === secretName),
      [],
    )
    assert.ok(plain.some((o) => o.kind === 'Deployment'))

    // Prometheus' own rule tests: cAdvisor's series of a pod of the release, 80 MB then 10 MB; the
    // rule written as on Docker fires for the service, then resolves.
    const pod = `${release}-7d9f8b6c5-x2x4q`
    const rulesFile = path.join(work, 'rules.yml')
    writeFileSync(rulesFile, JSON.stringify({ groups: prometheusRule.spec.groups }))
    const firing = {
      alertname: 'MemoryHigh',
      ...alert.labels,
      namespace,
      pod,
      container: 'main',
      replica: pod,
      service_id: service.id,
      service_name: 'memory-hog',
      environment_id: w.environment.id,
      project_id: w.project.id,
      organization_id: w.organization.id,
    }
    const unitTests = path.join(work, 'rules.test.yml')
    writeFileSync(
      unitTests,
      JSON.stringify({
        rule_files: [rulesFile],
        evaluation_interval: '15s',
        tests: [
          {
            interval: '15s',
            input_series: [
              { series: `container_memory_working_set_bytes{namespace="${namespace}",pod="${pod}",container="main"}`, values: '80e6x8 10e6x8' },
              // Another namespace's pod of the same name is not the service's.
              { series: `container_memory_working_set_bytes{namespace="elsewhere",pod="${pod}",container="main"}`, values: '90e6x16' },
            ],
            alert_rule_test: [
              { eval_time: '1m', alertname: 'MemoryHigh', exp_alerts: [{ exp_labels: firing, exp_annotations: alert.annotations }] },
              { eval_time: '4m', alertname: 'MemoryHigh', exp_alerts: [] },
            ],
          },
        ],
      }),
    )
    execFileSync('promtool', ['test', 'rules', unitTests], { encoding: 'utf8' })
  })
})
