import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, it } from 'node:test'
import { parseAllDocuments } from 'yaml'
import type { ServiceProgress } from '#src/modules/deployments/queue/deployment-progress.ts'
import { BUILTIN_CHART, type ChartValues, cronSchedule } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import { createKubernetesExecutor, namespaceOf, releaseName } from '#src/modules/executors/kubernetes/helm-executor.ts'
import { clusterWideObjects, renderedObjects } from '#src/modules/executors/kubernetes/rendered-objects.ts'
import type { ContainerConfig } from '#src/modules/services/kinds/container/container.types.ts'
import type { DatabaseConfig } from '#src/modules/services/kinds/database/database.types.ts'
import { newDatabaseCredentials } from '#src/modules/services/kinds/database/database-credentials.ts'
import type { DatabaseType } from '#src/modules/services/kinds/database/database-engines.ts'
import type { IacConfig } from '#src/modules/services/kinds/iac/iac.types.ts'
import type { JobConfig } from '#src/modules/services/kinds/job/job.types.ts'
import { KUBERNETES_KINDS } from '#src/modules/services/kinds/registry.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { RunnableTrigger } from '#src/platform/deployment-states.ts'
import type { SnapshotVariable } from '#src/platform/snapshot-variable.ts'
import { testSecretBox } from './helpers/app.ts'
import { chartValuesOf } from './helpers/chart-values.ts'
import { createDeploymentsApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { applyFlags, describeWithEachHelm, helmBinary } from './helpers/helm-binary.ts'
import { writeRecordingHelm } from './helpers/recording-helm.ts'

// The chart Berth ships for containers, container databases and jobs on Kubernetes
// (src/modules/executors/kubernetes/chart), rendered by the real helm (test/helpers/helm-binary.ts)
// from services' snapshots, and the objects it makes checked field by field. No Kubernetes API
// server can run here: as in test/helm-kubernetes.test.ts, BERTH_HELM_PATH points at a wrapper that
// records each call's argv (and the mode of the values file it is handed), runs the real helm for
// `template`, and answers `upgrade` and `uninstall` with success. Not verified: that the objects
// really start on a cluster (images pulled, probes passing, claims bound).

const secrets = testSecretBox()
const SECRET_VALUE = `s3cret-${randomUUID()}`
const REGISTRY_PASSWORD = `registry-${randomUUID()}`
const NAMESPACE = 'berth-ns'
const KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: { server: "https://127.0.0.1:1" }\n'

// biome-ignore lint/suspicious/noExplicitAny: rendered objects are read field by field
type K8sObject = Record<string, any>

const owner = { serviceId: randomUUID(), environmentId: randomUUID(), executionId: randomUUID() }
const registry = { host: 'registry.example.com', auth: { username: 'puller', password: REGISTRY_PASSWORD, serveraddress: 'registry.example.com' } }

function variable(key: string, value: string, options: { secret?: boolean; mountPath?: string } = {}): SnapshotVariable {
  return {
    key,
    ...(options.secret ? { sealed: secrets.seal(value).toString('base64') } : { value }),
    isSecret: options.secret === true,
    mountPath: options.mountPath ?? null,
    variableId: randomUUID(),
    scope: 'ENVIRONMENT',
    variableType: options.mountPath ? 'FILE' : 'VALUE',
  }
}

const VARIABLES = [
  variable('GREETING', 'hello'),
  variable('API_KEY', SECRET_VALUE, { secret: true }),
  variable('CONFIG', 'a: 1\n', { mountPath: '/etc/app/config.yaml' }),
]

const openSecret = (sealed: string) => secrets.open(Buffer.from(sealed, 'base64'))

const open = (variables: SnapshotVariable[]) =>
  variables.map((v) => ({
    key: v.key,
    value: v.isSecret ? secrets.open(Buffer.from(v.sealed ?? '', 'base64')) : (v.value ?? ''),
    mountPath: v.mountPath,
  }))

function snapshotOf<Config>(
  kind: ServiceSnapshot['kind'],
  configuration: Config,
  extra: Partial<Omit<ServiceSnapshot, 'configuration'>> = {},
): ServiceSnapshot<Config> {
  return {
    serviceId: owner.serviceId,
    kind,
    name: 'Web Front',
    version: 1,
    configuration,
    overrides: {},
    variables: VARIABLES,
    variablesFingerprint: '',
    advancedSettings: { 'deployment.termination_grace_period_seconds': 45 },
    ...extra,
  }
}

function containerConfig(extra: Partial<ContainerConfig> = {}): ContainerConfig {
  return {
    description: null,
    registryId: randomUUID(),
    imageName: 'acme/web',
    tag: '1.4.2',
    arguments: ['--port', '8080'],
    entrypoint: '/app/server',
    cpu: 500,
    memory: 768,
    gpu: 0,
    ephemeralStorageInGib: null,
    cpuArchitecture: null,
    minRunningInstances: 3,
    maxRunningInstances: 3,
    healthchecks: {
      readinessProbe: {
        type: { http: { path: '/ready', scheme: 'HTTP', port: null } },
        initialDelaySeconds: 5,
        periodSeconds: 10,
        timeoutSeconds: 2,
        successThreshold: 1,
        failureThreshold: 3,
      },
      livenessProbe: {
        type: { tcp: { port: 8080, host: null } },
        initialDelaySeconds: 30,
        periodSeconds: 20,
        timeoutSeconds: 5,
        successThreshold: 1,
        failureThreshold: 6,
      },
    },
    autoPreview: false,
    autoDeploy: false,
    ports: [
      {
        id: randomUUID(),
        name: 'http',
        internalPort: 8080,
        externalPort: 443,
        publiclyAccessible: true,
        isDefault: true,
        protocol: 'HTTP',
        publicPath: '/',
        publicPathRewrite: null,
      },
      {
        id: randomUUID(),
        name: 'metrics',
        internalPort: 9090,
        externalPort: null,
        publiclyAccessible: false,
        isDefault: false,
        protocol: 'TCP',
        publicPath: null,
        publicPathRewrite: null,
      },
    ],
    storage: [],
    iconUri: '',
    ...extra,
  }
}

function jobConfig(schedule: JobConfig['schedule']): JobConfig {
  return {
    description: null,
    cpu: 250,
    memory: 128,
    gpu: 0,
    ephemeralStorageInGib: null,
    maxNbRestart: 2,
    maxDurationSeconds: 900,
    autoPreview: false,
    port: null,
    source: { image: { imageName: 'acme/migrate', tag: '7', registryId: randomUUID() } },
    cpuArchitecture: null,
    healthchecks: {},
    autoDeploy: false,
    iconUri: '',
    schedule,
  }
}

function databaseConfig(type: DatabaseType, version: string, extra: Partial<DatabaseConfig> = {}): DatabaseConfig {
  return {
    description: null,
    type,
    version,
    mode: 'CONTAINER',
    accessibility: 'PRIVATE',
    cpu: 500,
    memory: 512,
    storage: 20,
    instanceType: null,
    diskType: null,
    iconUri: '',
    credentials: newDatabaseCredentials(owner.serviceId, type, secrets),
    ...extra,
  }
}

describeWithEachHelm('the chart Berth ships, rendered by the real helm', (major) => {
  let helm: string
  let work: string

  before(() => {
    helm = helmBinary(major)
    work = mkdtempSync(path.join(os.tmpdir(), 'berth-chart-test-'))
  })
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true })
  })

  /** `helm template` of the built-in chart with `values`; the objects, and the guard's verdict on them. */
  function render(values: ChartValues): { objects: K8sObject[]; byKind: (kind: string) => K8sObject[] } {
    const file = path.join(work, `${randomUUID()}.json`)
    writeFileSync(file, JSON.stringify(values))
    const manifest = execFileSync(helm, ['template', 'web-front-1234abcd', BUILTIN_CHART, '--namespace', NAMESPACE, '--values', file], {
      env: { PATH: process.env.PATH, HOME: work },
      encoding: 'utf8',
    })
    assert.deepEqual(clusterWideObjects(renderedObjects(manifest), NAMESPACE), [], 'the cluster-wide guard passes')
    const objects = parseAllDocuments(manifest)
      .map((doc) => doc.toJS() as K8sObject | null)
      .filter((doc): doc is K8sObject => doc !== null)
    for (const object of objects) {
      assert.equal(object.metadata.namespace, NAMESPACE, `${object.kind} is in the namespace`)
      assert.equal(object.metadata.labels['berth.service-id'], owner.serviceId, `${object.kind} is labelled`)
      assert.equal(object.metadata.labels['berth.environment-id'], owner.environmentId)
      assert.equal(object.metadata.labels['berth.execution-id'], owner.executionId)
    }
    return { objects, byKind: (kind) => objects.filter((object) => object.kind === kind) }
  }

  const secretData = (object: K8sObject): Record<string, string> => object.stringData

  it('renders a container as a Deployment, a Service, an Ingress and its Secrets', () => {
    const snapshot = snapshotOf('CONTAINER', containerConfig())
    const { objects, byKind } = render(
      chartValuesOf(snapshot, { owner, variables: open(VARIABLES), image: { reference: 'registry.example.com/acme/web:1.4.2', registry } }),
    )
    assert.deepEqual(objects.map((o) => o.kind).sort(), ['Deployment', 'Ingress', 'Secret', 'Secret', 'Secret', 'Service'])
    const deployment = byKind('Deployment')[0]!
    assert.equal(deployment.spec.replicas, 3)
    const pod = deployment.spec.template
    assert.equal(pod.metadata.labels['berth.execution-id'], owner.executionId, 'each deployment rolls the pods')
    assert.deepEqual(deployment.spec.selector.matchLabels, { 'berth.service-id': owner.serviceId })
    assert.equal(pod.spec.terminationGracePeriodSeconds, 45)
    const container = pod.spec.containers[0]
    assert.equal(container.image, 'registry.example.com/acme/web:1.4.2')
    assert.deepEqual(container.command, ['/app/server'])
    assert.deepEqual(container.args, ['--port', '8080'])
    assert.deepEqual(container.resources, { requests: { cpu: '500m', memory: '768Mi' }, limits: { cpu: '500m', memory: '768Mi' } })
    assert.deepEqual(container.ports, [
      { name: 'p8080', containerPort: 8080, protocol: 'TCP' },
      { name: 'p9090', containerPort: 9090, protocol: 'TCP' },
    ])
    assert.deepEqual(container.readinessProbe, {
      httpGet: { path: '/ready', port: 8080, scheme: 'HTTP' },
      initialDelaySeconds: 5,
      periodSeconds: 10,
      timeoutSeconds: 2,
      successThreshold: 1,
      failureThreshold: 3,
    })
    assert.deepEqual(container.livenessProbe.tcpSocket, { port: 8080 })
    assert.equal(container.livenessProbe.failureThreshold, 6)
    // Variables: every value in a Secret the container takes its environment from; a file variable mounted from another.
    const secretsByName = new Map(byKind('Secret').map((s) => [s.metadata.name, s]))
    assert.deepEqual(container.envFrom, [{ secretRef: { name: 'web-front-1234abcd-env' } }])
    assert.deepEqual(secretData(secretsByName.get('web-front-1234abcd-env')!), { GREETING: 'hello', API_KEY: SECRET_VALUE })
    assert.ok(!JSON.stringify(container).includes(SECRET_VALUE), 'no value in the pod spec')
    const files = secretsByName.get('web-front-1234abcd-files')!
    const [fileKey] = Object.keys(secretData(files))
    assert.equal(secretData(files)[fileKey!], 'a: 1\n')
    assert.deepEqual(container.volumeMounts, [{ name: 'files', mountPath: '/etc/app/config.yaml', subPath: fileKey, readOnly: true }])
    assert.deepEqual(pod.spec.volumes, [{ name: 'files', secret: { secretName: 'web-front-1234abcd-files' } }])
    // The registry's credentials: a dockerconfigjson Secret the pod pulls with.
    const pull = secretsByName.get('web-front-1234abcd-pull')!
    assert.equal(pull.type, 'kubernetes.io/dockerconfigjson')
    const config = JSON.parse(Buffer.from(pull.data['.dockerconfigjson'], 'base64').toString('utf8'))
    assert.deepEqual(config.auths['registry.example.com'], {
      username: 'puller',
      password: REGISTRY_PASSWORD,
      auth: Buffer.from(`puller:${REGISTRY_PASSWORD}`).toString('base64'),
    })
    assert.deepEqual(pod.spec.imagePullSecrets, [{ name: 'web-front-1234abcd-pull' }])
    // The Service has every port; the Ingress the public HTTP one, at the service's link hosts.
    const service = byKind('Service')[0]!
    assert.equal(service.spec.type, 'ClusterIP')
    assert.deepEqual(service.spec.selector, { 'berth.service-id': owner.serviceId })
    assert.deepEqual(
      service.spec.ports.map((p: K8sObject) => [p.name, p.port, p.targetPort]),
      [
        ['p8080', 8080, 'p8080'],
        ['p9090', 9090, 'p9090'],
      ],
    )
    const label = `z${owner.serviceId.replaceAll('-', '').slice(0, 8)}`
    const rules = byKind('Ingress')[0]!.spec.rules
    assert.deepEqual(
      rules.map((rule: K8sObject) => rule.host),
      [`${label}.berth.localhost`, `p8080-${label}.berth.localhost`],
    )
    assert.deepEqual(rules[0].http.paths[0].backend, { service: { name: 'web-front-1234abcd', port: { number: 8080 } } })
  })

  it("names the Ingress hosts under the cluster's apps domain as the front door does, with a TLS section from its cert-manager issuer (issue 34)", () => {
    const snapshot = snapshotOf('CONTAINER', containerConfig())
    const image = { reference: 'registry.example.com/acme/web:1.4.2', registry }
    const label = `z${owner.serviceId.replaceAll('-', '').slice(0, 8)}`
    const issued = render(
      chartValuesOf(snapshot, {
        owner,
        variables: open(VARIABLES),
        image,
        ingress: { appsDomain: 'apps.example.com', clusterIssuer: 'letsencrypt-prod' },
      }),
    ).byKind('Ingress')[0]!
    const hosts = [`${label}.apps.example.com`, `p8080-${label}.apps.example.com`]
    assert.deepEqual(
      issued.spec.rules.map((rule: K8sObject) => rule.host),
      hosts,
    )
    assert.deepEqual(issued.spec.tls, [{ hosts, secretName: `berth-${owner.serviceId}-tls` }])
    assert.deepEqual(issued.metadata.annotations, { 'cert-manager.io/cluster-issuer': 'letsencrypt-prod' })
    // Without an issuer: the TLS section alone (a certificate put in the Secret otherwise); without an apps domain: neither.
    const bare = render(
      chartValuesOf(snapshot, { owner, variables: open(VARIABLES), image, ingress: { appsDomain: 'apps.example.com', clusterIssuer: null } }),
    ).byKind('Ingress')[0]!
    assert.equal(bare.metadata.annotations, undefined)
    assert.equal(bare.spec.tls.length, 1)
    const derived = render(
      chartValuesOf(snapshot, { owner, variables: open(VARIABLES), image, ingress: { appsDomain: undefined, clusterIssuer: 'x' } }),
    ).byKind('Ingress')[0]!
    assert.equal(derived.spec.tls, undefined)
    assert.equal(derived.spec.rules[0].host, `${label}.berth.localhost`)
  })

  it('renders a container with storage as a StatefulSet with a claim per volume, a stopped one with no replica, and a public TCP port on a LoadBalancer', () => {
    const config = containerConfig({
      storage: [{ id: randomUUID(), type: 'FAST_SSD', sizeGb: 12, mountPoint: '/var/data' }],
      ports: [
        {
          id: randomUUID(),
          name: 'game',
          internalPort: 7777,
          externalPort: 27777,
          publiclyAccessible: true,
          isDefault: true,
          protocol: 'UDP',
          publicPath: null,
          publicPathRewrite: null,
        },
      ],
      healthchecks: { readinessProbe: null, livenessProbe: null },
    })
    const { byKind } = render(
      chartValuesOf(snapshotOf('CONTAINER', config), {
        owner,
        variables: [],
        image: { reference: 'acme/web:1', registry: { auth: undefined } },
        action: 'STOP',
      }),
    )
    assert.equal(byKind('Deployment').length, 0)
    const set = byKind('StatefulSet')[0]!
    assert.equal(set.spec.replicas, 0, 'stopped')
    assert.equal(set.spec.volumeClaimTemplates[0].spec.resources.requests.storage, '12Gi')
    const name = set.spec.volumeClaimTemplates[0].metadata.name
    assert.deepEqual(set.spec.template.spec.containers[0].volumeMounts, [{ name, mountPath: '/var/data' }])
    assert.equal(set.spec.template.spec.imagePullSecrets, undefined, 'a registry without credentials has no pull secret')
    assert.equal(set.spec.template.spec.containers[0].readinessProbe, undefined)
    const publicService = byKind('Service').find((s) => s.spec.type === 'LoadBalancer')!
    assert.deepEqual(publicService.spec.ports, [{ name: 'p7777', port: 27777, targetPort: 'p7777', protocol: 'UDP' }])
    assert.equal(byKind('Ingress').length, 0)
  })

  it('renders a CONTAINER database as a StatefulSet of its official image with a volume claim, its password only in a Secret', () => {
    const config = databaseConfig('POSTGRESQL', '16')
    const password = secrets.open(Buffer.from(config.credentials.passwordSealed, 'base64'))
    const { objects, byKind } = render(
      chartValuesOf(snapshotOf('DATABASE', config, { variables: [] }), {
        owner,
        variables: [],
        settings: { databaseImages: 'mirror.example/library' },
        openSecret,
      }),
    )
    assert.deepEqual(objects.map((o) => o.kind).sort(), ['Secret', 'Service', 'StatefulSet'])
    const set = byKind('StatefulSet')[0]!
    assert.equal(set.spec.replicas, 1)
    const container = set.spec.template.spec.containers[0]
    assert.equal(container.image, 'mirror.example/library/postgres:16')
    assert.deepEqual(container.resources.limits, { cpu: '500m', memory: '512Mi' })
    assert.deepEqual(container.ports, [{ name: 'db', containerPort: 5432, protocol: 'TCP' }])
    assert.deepEqual(container.readinessProbe.tcpSocket, { port: 5432 })
    assert.deepEqual(container.volumeMounts, [{ name: 'data', mountPath: '/var/lib/postgresql/data', subPath: 'data' }])
    assert.equal(set.spec.volumeClaimTemplates[0].metadata.name, 'data')
    assert.deepEqual(set.spec.volumeClaimTemplates[0].spec.accessModes, ['ReadWriteOnce'])
    assert.equal(set.spec.volumeClaimTemplates[0].spec.resources.requests.storage, '20Gi')
    assert.deepEqual(secretData(byKind('Secret')[0]!), { POSTGRES_USER: 'superuser', POSTGRES_PASSWORD: password, POSTGRES_DB: 'postgres' })
    assert.ok(!JSON.stringify(set).includes(password))
    // The environment's services reach it at its host.
    const service = byKind('Service')[0]!
    assert.equal(service.metadata.name, config.credentials.host)
    assert.equal(set.spec.serviceName, config.credentials.host)
  })

  it('gives redis its password through the environment, never as an argument, and a PUBLIC database a LoadBalancer', () => {
    const config = databaseConfig('REDIS', '7.2', { accessibility: 'PUBLIC' })
    const password = secrets.open(Buffer.from(config.credentials.passwordSealed, 'base64'))
    const { byKind } = render(chartValuesOf(snapshotOf('DATABASE', config, { variables: [] }), { owner, variables: [], openSecret }))
    const container = byKind('StatefulSet')[0]!.spec.template.spec.containers[0]
    assert.equal(container.image, 'docker.io/library/redis:7.2')
    assert.deepEqual(container.args, ['redis-server', '--requirepass', '$(BERTH_DATABASE_PASSWORD)', '--appendonly', 'yes'])
    assert.deepEqual(secretData(byKind('Secret')[0]!), { BERTH_DATABASE_PASSWORD: password })
    assert.ok(byKind('Service').some((s) => s.spec.type === 'LoadBalancer' && s.spec.ports[0].port === 6379))
  })

  it('renders a lifecycle job’s event as a Job named for the execution', () => {
    const config = jobConfig({
      lifecycle: { onStart: { arguments: ['migrate', 'up'], entrypoint: '/bin/tool' }, onStop: null, onDelete: null, lifecycleType: 'GENERIC' },
    })
    const snapshot = snapshotOf('JOB', config)
    const { objects, byKind } = render(
      chartValuesOf(snapshot, { owner, variables: open(VARIABLES), image: { reference: 'registry.example.com/acme/migrate:7', registry } }),
    )
    assert.deepEqual(objects.map((o) => o.kind).sort(), ['Job', 'Secret', 'Secret', 'Secret'])
    const job = byKind('Job')[0]!
    assert.match(job.metadata.name, new RegExp(`^job-${owner.serviceId.slice(0, 8)}-${owner.executionId.slice(0, 8)}$`))
    assert.equal(job.spec.backoffLimit, 2)
    assert.equal(job.spec.activeDeadlineSeconds, 900)
    const pod = job.spec.template.spec
    assert.equal(pod.restartPolicy, 'Never')
    assert.equal(pod.containers[0].image, 'registry.example.com/acme/migrate:7')
    assert.deepEqual(pod.containers[0].command, ['/bin/tool'])
    assert.deepEqual(pod.containers[0].args, ['migrate', 'up'])
    assert.deepEqual(pod.containers[0].resources.requests, { cpu: '250m', memory: '128Mi' })
    assert.equal(job.spec.template.metadata.labels['berth.service-id'], owner.serviceId)
  })

  it('renders an IAC run as a Job: init and plan as init containers, apply as the main container, a scratch data directory, the kubernetes backend with its ServiceAccount', () => {
    const config: IacConfig = {
      description: null,
      autoDeploy: false,
      autoDeployAction: 'DEFAULT',
      git: {
        url: 'https://github.com/acme/infra',
        branch: 'main',
        rootPath: '/envs/prod',
        gitTokenId: null,
        provider: 'GITHUB',
        owner: 'acme',
        name: 'infra',
      },
      tfVarFilePaths: ['prod.tfvars'],
      tfVars: [
        { key: 'region', secret: false, value: 'eu-west-3' },
        { key: 'token', secret: true, sealed: secrets.seal(SECRET_VALUE).toString('base64') },
      ],
      backend: { kubernetes: {} },
      engine: 'OPEN_TOFU',
      engineVersion: '1.9.4',
      readFromTerraformBlock: false,
      timeoutSec: 900,
      iconUri: 'app://berth/terraform',
      jobResources: { cpuMilli: 500, ramMib: 512, gpu: 0, storageGib: 1 },
      useClusterCredentials: false,
      actionExtraArguments: { apply: ['-parallelism=2'] },
      dockerfileFragment: null,
      blueprintId: null,
    }
    const snapshot = snapshotOf('IAC', config)
    const image = { reference: 'registry.example.com/berth/infra:abc', registry }
    const { objects, byKind } = render(chartValuesOf(snapshot, { owner, variables: open(VARIABLES), image, openSecret, namespace: NAMESPACE }))
    assert.deepEqual(objects.map((o) => o.kind).sort(), ['Job', 'Role', 'RoleBinding', 'Secret', 'Secret', 'Secret', 'ServiceAccount'])
    const job = byKind('Job')[0]!
    assert.match(job.metadata.name, new RegExp(`^iac-${owner.serviceId.slice(0, 8)}-${owner.executionId.slice(0, 8)}$`))
    assert.equal(job.spec.backoffLimit, 0)
    assert.equal(job.spec.activeDeadlineSeconds, 900)
    const pod = job.spec.template.spec
    assert.equal(pod.serviceAccountName, 'web-front-1234abcd')
    assert.deepEqual(
      pod.initContainers.map((c: K8sObject) => [c.name, c.command, c.args]),
      [
        [
          'init-0',
          ['tofu'],
          [
            'init',
            '-input=false',
            '-no-color',
            `-backend-config=secret_suffix=${owner.serviceId}`,
            '-backend-config=in_cluster_config=true',
            `-backend-config=namespace=${NAMESPACE}`,
          ],
        ],
        ['plan-1', ['tofu'], ['plan', '-input=false', '-no-color', '-out=/berth/data/plan.tfplan', '-var-file=prod.tfvars']],
      ],
    )
    const main = pod.containers[0]
    assert.deepEqual(main.args, ['apply', '-parallelism=2', '-input=false', '-no-color', '/berth/data/plan.tfplan'])
    for (const container of [...pod.initContainers, main]) {
      assert.equal(container.image, image.reference)
      assert.equal(container.workingDir, '/berth/iac')
      assert.deepEqual(container.resources.limits, { cpu: '500m', memory: '512Mi' })
      assert.ok(container.volumeMounts.some((m: K8sObject) => m.name === 'scratch' && m.mountPath === '/berth/data'))
      assert.ok(container.volumeMounts.some((m: K8sObject) => m.mountPath === '/berth/iac/berth_backend_override.tf'))
    }
    assert.deepEqual(
      pod.volumes.find((v: K8sObject) => v.name === 'scratch'),
      { name: 'scratch', emptyDir: {} },
    )
    const env = secretData(byKind('Secret').find((secret) => secret.metadata.name.endsWith('-env'))!)
    assert.equal(env.TF_VAR_region, 'eu-west-3')
    assert.equal(env.TF_VAR_token, SECRET_VALUE)
    assert.equal(env.TF_DATA_DIR, '/berth/data/.terraform')
    assert.equal(env.GREETING, 'hello', "the service's variables are its environment")
    const files = secretData(byKind('Secret').find((secret) => secret.metadata.name.endsWith('-files'))!)
    assert.equal(files['iac-backend'], 'terraform {\n  backend "kubernetes" {}\n}\n')
    const role = byKind('Role')[0]!
    assert.deepEqual(
      role.rules.map((rule: K8sObject) => rule.resources[0]),
      ['secrets', 'leases'],
    )

    // A destroy: init, then destroy; a user_provided backend: no ServiceAccount, no override.
    const destroyed = render(
      chartValuesOf(snapshotOf('IAC', { ...config, backend: { userProvided: {} } }), {
        owner,
        variables: [],
        image,
        action: 'UNINSTALL',
        openSecret,
      }),
    )
    assert.deepEqual(destroyed.objects.map((o) => o.kind).sort(), ['Job', 'Secret', 'Secret'])
    const destroyPod = destroyed.byKind('Job')[0]!.spec.template.spec
    assert.equal(destroyPod.serviceAccountName, undefined)
    assert.deepEqual(
      destroyPod.initContainers.map((c: K8sObject) => c.args[0]),
      ['init'],
    )
    assert.deepEqual(destroyPod.containers[0].args, ['destroy', '-input=false', '-no-color', '-auto-approve', '-var-file=prod.tfvars'])
  })

  it('renders a cron job as a CronJob of its schedule; stopped: suspended; forced: a Job beside it', () => {
    const cron = { scheduledAt: '0 */15 * * * *', timezone: 'Europe/Paris', arguments: ['report'], entrypoint: null }
    const snapshot = snapshotOf('JOB', jobConfig({ cronjob: cron }))
    const image = { reference: 'registry.example.com/acme/migrate:7', registry }
    const scheduled = render(chartValuesOf(snapshot, { owner, variables: [], image }))
    assert.deepEqual(scheduled.objects.map((o) => o.kind).sort(), ['CronJob', 'Secret', 'Secret'])
    const cronJob = scheduled.byKind('CronJob')[0]!
    assert.equal(cronJob.spec.schedule, '*/15 * * * *', 'a six-field expression with 0 seconds loses its seconds')
    assert.equal(cronJob.spec.timeZone, 'Europe/Paris')
    assert.equal(cronJob.spec.suspend, false)
    assert.equal(cronJob.spec.concurrencyPolicy, 'Forbid')
    assert.deepEqual(cronJob.spec.jobTemplate.spec.template.spec.containers[0].args, ['report'])
    assert.equal(cronJob.spec.jobTemplate.spec.template.spec.containers[0].command, undefined)
    assert.equal(cronJob.spec.jobTemplate.spec.template.metadata.labels['berth.service-id'], owner.serviceId)

    const stopped = render(chartValuesOf(snapshot, { owner, variables: [], image, action: 'STOP' }))
    assert.equal(stopped.byKind('CronJob')[0]!.spec.suspend, true)
    const forced = render(chartValuesOf({ ...snapshot, overrides: { forceEvent: 'CRON' } }, { owner, variables: [], image }))
    assert.equal(forced.byKind('CronJob').length, 1)
    assert.deepEqual(forced.byKind('Job')[0]!.spec.template.spec.containers[0].args, ['report'])

    assert.equal(cronSchedule('5 4 * * sun'), '5 4 * * sun')
    assert.throws(() => cronSchedule('30 */5 * * * *'), /seconds field/)
  })
})

interface Call {
  argv: string[]
  valuesMode?: string
  /** The values file helm was handed, as it read it. */
  values?: string
  kubeconfig?: string
}

describeWithEachHelm('containers, databases and jobs on a Kubernetes cluster (the chart Berth ships, real helm, no API server)', (major) => {
  let work: string
  let wrapper: string
  let callsDir: string

  before(() => {
    const helm = helmBinary(major)
    work = mkdtempSync(path.join(os.tmpdir(), 'berth-chart-exec-'))
    ;({ wrapper, callsDir } = writeRecordingHelm(
      work,
      helm,
      [
        '  if [ "$prev" = "--values" ]; then stat -c %a "$a" > "$call/values-mode"; cp "$a" "$call/values"; fi',
        '  if [ "$prev" = "--kubeconfig" ]; then cp "$a" "$call/kubeconfig"; fi',
      ].join('\n'),
    ))
  })
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true })
  })

  function takeCalls(): Call[] {
    const calls = readdirSync(callsDir)
      .sort()
      .map((name) => {
        const read = (file: string) =>
          existsSync(path.join(callsDir, name, file)) ? readFileSync(path.join(callsDir, name, file), 'utf8') : undefined
        return {
          argv: (read('argv') ?? '').split('\n').slice(0, -1),
          valuesMode: read('values-mode')?.trim(),
          values: read('values'),
          kubeconfig: read('kubeconfig'),
        }
      })
    for (const name of readdirSync(callsDir)) rmSync(path.join(callsDir, name), { recursive: true })
    return calls
  }

  async function run(snapshot: ServiceSnapshot, action: RunnableTrigger = 'DEPLOY') {
    const logs: string[] = []
    const executor = createKubernetesExecutor({
      kinds: KUBERNETES_KINDS,
      helmPath: wrapper,
      kubeconfig: async () => KUBECONFIG,
      chartRepository: async () => {
        throw new Error('no helm repository here')
      },
      registry: async () => registry,
      databaseImages: 'docker.io/library',
      openSecret: (sealed) => secrets.open(Buffer.from(sealed, 'base64')),
      workRoot: work,
    })
    const outcome = await executor.run(
      { id: snapshot.serviceId, name: snapshot.name, type: snapshot.kind } as ServiceProgress,
      action,
      new AbortController().signal,
      {
        snapshot,
        plan: [],
        run: { id: owner.executionId, organizationId: randomUUID(), environmentId: owner.environmentId },
        log: (step, message) => logs.push(`${step}: ${message}`),
      },
    )
    return { outcome, logs, calls: takeCalls() }
  }

  it('deploys a container through render, the guard and helm upgrade --install, the values in a private file and never in argv', async () => {
    const snapshot = snapshotOf('CONTAINER', containerConfig())
    const { outcome, logs, calls } = await run(snapshot)
    assert.deepEqual(outcome, { ok: true }, logs.join('\n'))
    assert.deepEqual(
      calls.map((call) => call.argv[0]),
      ['template', 'upgrade'],
    )
    const upgrade = calls[1]!
    const release = releaseName(snapshot)
    const valuesFile = upgrade.argv[upgrade.argv.indexOf('--values') + 1]!
    assert.deepEqual(upgrade.argv, [
      'upgrade',
      '--install',
      release,
      BUILTIN_CHART,
      '--namespace',
      namespaceOf(owner.environmentId),
      '--kubeconfig',
      upgrade.argv[7],
      '--create-namespace',
      '--timeout',
      '600s',
      '--values',
      valuesFile,
      '--wait',
      ...applyFlags(major),
    ])
    assert.equal(upgrade.valuesMode, '600')
    assert.equal(upgrade.kubeconfig, KUBECONFIG)
    for (const call of calls) {
      assert.ok(!call.argv.join(' ').includes(SECRET_VALUE), 'no variable value in argv')
      assert.ok(!call.argv.join(' ').includes(REGISTRY_PASSWORD), 'no registry password in argv')
    }
    assert.ok(!logs.join('\n').includes(SECRET_VALUE), 'no variable value in the log')
    assert.deepEqual(
      readdirSync(work).filter((name) => name.startsWith('berth-helm-')),
      [],
      'the values file goes with the work directory',
    )
  })

  it('uninstalls on UNINSTALL and DELETE', async () => {
    const snapshot = snapshotOf('CONTAINER', containerConfig())
    for (const action of ['UNINSTALL', 'DELETE'] as const) {
      const { outcome, calls } = await run(snapshot, action)
      assert.deepEqual(outcome, { ok: true })
      assert.deepEqual(
        calls.map((call) => call.argv.slice(0, 2)),
        [['uninstall', releaseName(snapshot)]],
      )
    }
  })

  it('runs a lifecycle job’s on_delete as a Job, waited for, then uninstalls; a scheduler tick of a cron job is the CronJob’s own', async () => {
    const lifecycle = snapshotOf(
      'JOB',
      jobConfig({ lifecycle: { onStart: null, onStop: null, onDelete: { arguments: ['drop'], entrypoint: null }, lifecycleType: null } }),
    )
    const deleted = await run(lifecycle, 'DELETE')
    assert.deepEqual(deleted.outcome, { ok: true }, deleted.logs.join('\n'))
    assert.deepEqual(
      deleted.calls.map((call) => call.argv[0]),
      ['template', 'upgrade', 'uninstall'],
    )
    assert.deepEqual(deleted.calls[1]!.argv.slice(-2 - applyFlags(major).length), ['--wait', '--wait-for-jobs', ...applyFlags(major)])
    assert.ok(deleted.calls[1]!.argv.includes(`${900 + 300}s`))
    const started = await run(lifecycle, 'DEPLOY')
    assert.deepEqual(started.outcome, { ok: true })
    assert.deepEqual(started.calls, [], 'no on_start: nothing to run')

    const cron = { scheduledAt: '*/5 * * * *', timezone: 'UTC', arguments: ['tick'], entrypoint: null }
    const tick = await run(
      snapshotOf('JOB', jobConfig({ cronjob: cron }), { overrides: { forceEvent: 'CRON', scheduledFor: new Date().toISOString() } }),
    )
    assert.deepEqual(tick.outcome, { ok: true })
    assert.deepEqual(tick.calls, [])
    const scheduled = await run(snapshotOf('JOB', jobConfig({ cronjob: cron })))
    assert.deepEqual(
      scheduled.calls.map((call) => call.argv[0]),
      ['template', 'upgrade'],
    )
  })

  it('fails clearly, calling no helm, for what it cannot build or run: applications and jobs built from git on a cluster without an image registry, MANAGED databases', async () => {
    const application = await run(
      snapshotOf('APPLICATION', {
        ...containerConfig(),
        healthchecks: { readiness_probe: null, liveness_probe: null },
        gitRepository: { url: 'https://git.example.com/acme/site.git', branch: 'main' },
        dockerfilePath: 'Dockerfile',
      }),
    )
    assert.equal(application.outcome.ok, false)
    assert.match((application.outcome as { message: string }).message, /an application built from git .* needs the cluster's image_registry_id/)
    assert.deepEqual(application.calls, [])
    const fromGit = jobConfig({ lifecycle: { onStart: { arguments: ['x'], entrypoint: null }, onStop: null, onDelete: null, lifecycleType: null } })
    const gitJob = await run(
      snapshotOf('JOB', {
        ...fromGit,
        source: { docker: { git: {} as never, dockerfilePath: 'Dockerfile', dockerfileRaw: null, dockerTargetBuildStage: null } },
      }),
    )
    assert.match((gitJob.outcome as { message: string }).message, /a job built from git .* needs the cluster's image_registry_id/)
    assert.deepEqual(gitJob.calls, [])
    const managed = await run(snapshotOf('DATABASE', databaseConfig('POSTGRESQL', '16', { mode: 'MANAGED' })))
    assert.match((managed.outcome as { message: string }).message, /MANAGED database needs a cloud provider/)
    assert.deepEqual(managed.calls, [])
  })

  it('deploys a container of an environment on a KUBERNETES cluster through the API and the runner, no secret in argv or in the deployment’s logs', async () => {
    const t = await createDeploymentsApp(0, { BERTH_HELM_PATH: wrapper, BERTH_RUNNER_POLL_MS: '50' })
    try {
      takeCalls()
      const f = factories(t.db)
      const calls = deploymentCalls(t.app)
      const { organization, tokens } = await f.organizationWithTokens()
      const cluster = await f.cluster(organization.id, { executor: 'KUBERNETES', kubernetes: 'SELF_MANAGED' }, KUBECONFIG)
      const project = await f.project(organization.id)
      const environment = await f.environment(project.id, { clusterId: cluster.id })
      const privateRegistry = await f.containerRegistry(organization.id, {
        url: 'https://registry.example.com',
        config: { username: 'puller' },
        secrets: { password: REGISTRY_PASSWORD },
      })
      const container = await f.containerService(environment.id, {
        name: 'api',
        registry_id: privateRegistry.id,
        image_name: 'acme/api',
        tag: '2.0.0',
        ports: [{ name: 'http', internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP' }],
      } as never)
      const created = await calls.inject('POST', '/variable', tokens.write.authorization, {
        key: 'DB_PASSWORD',
        value: SECRET_VALUE,
        is_secret: true,
        variable_scope: 'CONTAINER',
        variable_parent_id: container.id,
      })
      assert.equal(created.statusCode, 201, created.body)
      const queued = await calls.trigger(`/container/${container.id}/deploy`, tokens.deploy.authorization, {})
      const entries = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
      const recorded = takeCalls()
      const entry = entries.find((e) => e.identifier.execution_id === queued.execution_id)!
      assert.equal(entry.status, 'DEPLOYED', JSON.stringify(recorded.map((call) => call.argv[0])))
      const upgrade = recorded.find((call) => call.argv[0] === 'upgrade')!
      assert.deepEqual(upgrade.argv.slice(0, 6), [
        'upgrade',
        '--install',
        releaseName({ name: 'api', serviceId: container.id }),
        BUILTIN_CHART,
        '--namespace',
        namespaceOf(environment.id),
      ])
      assert.equal(upgrade.kubeconfig, KUBECONFIG, 'the kubeconfig stored sealed reaches helm')
      assert.equal(upgrade.valuesMode, '600')
      // The secret and the registry's credentials reach the chart through the values file alone.
      const values = JSON.parse(upgrade.values!) as ChartValues
      assert.equal(values.image, 'registry.example.com/acme/api:2.0.0')
      assert.equal(values.env.DB_PASSWORD, SECRET_VALUE)
      assert.deepEqual(values.imagePullSecret, { server: 'registry.example.com', username: 'puller', password: REGISTRY_PASSWORD })
      assert.equal(values.labels['berth.execution-id'], queued.execution_id)
      for (const call of recorded) {
        assert.ok(!call.argv.join(' ').includes(SECRET_VALUE), 'no secret in argv')
        assert.ok(!call.argv.join(' ').includes(REGISTRY_PASSWORD), 'no registry password in argv')
      }
      const logs = await calls.inject('GET', `/environment/${environment.id}/logs?version=${queued.execution_id}`, tokens.read.authorization)
      assert.equal(logs.statusCode, 200, logs.body)
      assert.match(logs.body, /helm upgrade --install/)
      assert.ok(!logs.body.includes(SECRET_VALUE), 'no secret in the deployment’s logs')
      assert.ok(!logs.body.includes(REGISTRY_PASSWORD))
    } finally {
      await t.close()
    }
  })
})
