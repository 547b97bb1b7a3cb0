import { fileURLToPath } from 'node:url'
import type { ExecutorAction, ServiceOutcome, ServiceSnapshot } from '../executor.ts'
import { isWebPort, SIMULATED_LINK_DOMAIN, serviceHosts } from '../public-hosts.ts'
import type { OpenVariable } from '../snapshot-secrets.ts'
import {
  type Command,
  type InstancesWorkload,
  type Probe,
  type Resources,
  type RunWorkload,
  type ScheduleWorkload,
  type Step,
  type StepsWorkload,
  stopGraceSeconds,
  type TimeLimit,
  type WorkloadPort,
} from '../workload.ts'

// The values of the chart Berth ships (./chart, docs/kubernetes.md "Deploying to Kubernetes"), one
// kind of workload at a time: instances, a run, a schedule, steps. Values hold the variables in
// clear: the executor writes them to a file of mode 0600 in its private work directory, never to argv.

/** The chart's directory, beside this module wherever the package is installed. */
export const BUILTIN_CHART = fileURLToPath(new URL('./chart', import.meta.url))

/** What the chart's templates read (its values.yaml documents each field). */
export interface ChartValues {
  workload: 'Deployment' | 'StatefulSet' | 'Job' | 'CronJob' | 'None'
  labels: Record<string, string>
  /** The Service's name: the release's, unless the service is reached by another (a database's host). */
  serviceName?: string
  image: string
  imagePullSecret: { server: string; username: string; password: string } | null
  command: string[]
  args: string[]
  env: Record<string, string>
  files: { key: string; path: string; content: string }[]
  resources: { cpu: string; memory: string }
  replicas: number
  ports: { name: string; port: number; protocol: 'TCP' | 'UDP' }[]
  ingress: { host: string; path: string; port: number }[]
  /** The Ingress's TLS section (a certificate for every host, in the Secret `secretName`), and the cert-manager ClusterIssuer it comes from; null: none. */
  ingressTls: { secretName: string; clusterIssuer: string | null } | null
  loadBalancer: { name: string; port: number; targetPort: string; protocol: 'TCP' | 'UDP' }[]
  readinessProbe: Record<string, unknown> | null
  livenessProbe: Record<string, unknown> | null
  volumes: { name: string; mountPath: string; size: string; subPath?: string }[]
  terminationGracePeriodSeconds: number
  job: { name?: string; backoffLimit?: number; activeDeadlineSeconds?: number }
  schedule: { cron?: string; timeZone?: string; suspend?: boolean }
  /** Commands of the same image run in order before the main container (an IAC run's init and plan). */
  steps: { name: string; args: string[] }[]
  /** The containers' working directory; '': the image's. */
  workingDir: string
  /** An emptyDir the steps and the main container share. */
  scratch: { mountPath: string } | null
  /** A ServiceAccount that may write Secrets and Leases of the namespace (the engine's kubernetes backend). */
  stateAccess: boolean
  /** The alert rules that watch the service, for the cluster's prometheus-operator (alertingValues); null: none. */
  alerting: AlertingValues | null
}

/**
 * The alert rules that watch a service and the receivers they name, as the alerting module reads
 * them at a deployment (docs/alerting.md, "On Kubernetes"): the executor imports no other module.
 */
export interface ServiceAlerting {
  /** The labels Berth gives the service's series: service_id, service_name, environment_id, project_id, organization_id. */
  seriesLabels: Record<string, string>
  /** Each rule as Berth's own Prometheus runs it (alert, expr, for, labels, annotations), and the ids of its receivers. */
  rules: { id: string; rule: Record<string, unknown>; receiverIds: string[] }[]
  receivers: {
    id: string
    type: 'SLACK' | 'EMAIL'
    sendResolved: boolean
    email: { to: string; from: string; smarthost: string; requireTls: boolean; authUsername: string | null } | null
    /** The webhook URL (SLACK) or the SMTP password (EMAIL), in clear; null: an e-mail receiver without one. */
    secret: string | null
  }[]
  /** Alertmanager's group wait and interval, as durations ("30s"). */
  groupWait: string
  groupInterval: string
  /** The notifications' title and text (Alertmanager templates), the same as on Docker. */
  title: string
  text: string
}

/** What the chart's PrometheusRule, AlertmanagerConfig and receivers' Secret are made of (values.yaml). */
export interface AlertingValues {
  /** Recording rules: the cluster's cAdvisor and kube-state-metrics series of the service's pods, under Berth's names and labels. */
  series: { record: string; expr: string; labels: Record<string, string> }[]
  rules: Record<string, unknown>[]
  route: { groupWait: string; groupInterval: string; repeatInterval: string }
  /** A route per rule, to the receiver named for it. */
  routes: { ruleId: string; receiver: string }[]
  receivers: {
    name: string
    /** `key`: the receivers' Secret's key holding the webhook URL. */
    slack: { key: string; sendResolved: boolean }[]
    /** `passwordKey`: the Secret's key holding the SMTP password. */
    email: { to: string; from: string; smarthost: string; requireTLS: boolean; sendResolved: boolean; authUsername?: string; passwordKey?: string }[]
  }[]
  /** The receivers' Secret's data: their webhook URLs and passwords, by receiver id. */
  secrets: Record<string, string>
  title: string
  text: string
}

/** The series a rule reads on Docker (docs/metrics.md) and what they are made from on the cluster. */
function seriesRules(pods: string, labels: Record<string, string>): AlertingValues['series'] {
  // `service_id=""`: not the recorded series themselves, which keep the source's labels and add Berth's.
  const own = (name: string, extra = '') => `${name}{${pods}, service_id=""${extra}}`
  const replica = (expr: string) => `label_replace(${expr}, "replica", "$1", "pod", "(.+)")`
  const perPod = (name: string) => replica(`sum by (namespace, pod) (max by (namespace, pod, interface) (${own(name)}))`)
  const main = (name: string) => replica(own(name, ', container="main"'))
  return [
    { record: 'container_cpu_usage_seconds_total', expr: main('container_cpu_usage_seconds_total') },
    { record: 'container_memory_working_set_bytes', expr: main('container_memory_working_set_bytes') },
    { record: 'container_memory_usage_bytes', expr: main('container_memory_usage_bytes') },
    { record: 'container_start_time_seconds', expr: main('container_start_time_seconds') },
    // Networks are the pod's, counted once per interface (the pod's cgroup and its sandbox both report them).
    { record: 'container_network_receive_bytes_total', expr: perPod('container_network_receive_bytes_total') },
    { record: 'container_network_transmit_bytes_total', expr: perPod('container_network_transmit_bytes_total') },
    // kube-state-metrics' count of the main container's restarts.
    {
      record: 'container_restarts_total',
      expr: replica(`max by (namespace, pod) (${own('kube_pod_container_status_restarts_total', ', container="main"')})`),
    },
  ].map((rule) => ({ ...rule, labels }))
}

/**
 * The chart's alerting values of a release in `namespace`: the service's series under Berth's
 * labels, its rules, and a route and a receiver per rule; null when no rule watches it. `jobPrefix`:
 * what the names of the Jobs of its runs start with (their pods are named after the Job, not the release).
 */
export function alertingValues(
  alerting: ServiceAlerting | null,
  where: { namespace: string; release: string; jobPrefix: string },
): AlertingValues | null {
  if (!alerting || alerting.rules.length === 0) return null
  const pods = `namespace="${where.namespace}", pod=~"(${where.release}|${where.jobPrefix}-[0-9a-f]{8})-.+"`
  const receivers = new Map(alerting.receivers.map((receiver) => [receiver.id, receiver]))
  const secrets: Record<string, string> = {}
  for (const receiver of alerting.receivers) if (receiver.secret !== null) secrets[receiver.id] = receiver.secret
  return {
    series: seriesRules(pods, alerting.seriesLabels),
    rules: alerting.rules.map((rule) => rule.rule),
    route: { groupWait: alerting.groupWait, groupInterval: alerting.groupInterval, repeatInterval: '4h' },
    routes: alerting.rules.map((rule) => ({ ruleId: rule.id, receiver: `rule-${rule.id}` })),
    receivers: alerting.rules.map((rule) => {
      const mine = rule.receiverIds.flatMap((id) => receivers.get(id) ?? [])
      return {
        name: `rule-${rule.id}`,
        slack: mine.filter((r) => r.type === 'SLACK' && r.secret !== null).map((r) => ({ key: r.id, sendResolved: r.sendResolved })),
        email: mine.flatMap((r) =>
          r.type === 'EMAIL' && r.email
            ? [
                {
                  to: r.email.to,
                  from: r.email.from,
                  smarthost: r.email.smarthost,
                  requireTLS: r.email.requireTls,
                  sendResolved: r.sendResolved,
                  ...(r.secret !== null ? { authUsername: r.email.authUsername ?? r.email.from, passwordKey: r.id } : {}),
                },
              ]
            : [],
        ),
      }
    }),
    secrets,
    title: alerting.title,
    text: alerting.text,
  }
}

/** Where a release's Ingress hosts are (the cluster's `berth.ingress.apps_domain`; absent: the derived names), and the cert-manager ClusterIssuer its TLS certificate comes from. */
export interface IngressSettings {
  appsDomain: string | undefined
  clusterIssuer: string | null
}

/** Whose deployment the objects are: their berth.* labels. */
export interface ChartOwner {
  serviceId: string
  environmentId: string
  executionId: string
}

/** An image a release pulls: its reference, and the registry's host and credentials for its pull secret. */
export interface PulledImage {
  reference: string
  registry: { auth: { username: string; password: string; serveraddress: string } | undefined }
}

/** What one release of the chart is made for. */
export interface ChartRelease {
  snapshot: ServiceSnapshot
  owner: ChartOwner
  /** The service's variables in clear. */
  variables: OpenVariable[]
  image: PulledImage
}

/** The values every workload starts from: its labels, its variables, one replica of nothing. */
export function baseValues({ snapshot, owner, variables }: Omit<ChartRelease, 'image'>): ChartValues {
  return {
    workload: 'None',
    labels: {
      'berth.service-id': owner.serviceId,
      'berth.environment-id': owner.environmentId,
      'berth.execution-id': owner.executionId,
      'berth.kind': snapshot.kind,
    },
    image: '',
    imagePullSecret: null,
    command: [],
    args: [],
    env: Object.fromEntries(variables.filter((variable) => !variable.mountPath).map((variable) => [variable.key, variable.value])),
    files: variables.flatMap((variable, index) =>
      variable.mountPath ? [{ key: `file-${index}`, path: variable.mountPath, content: variable.value }] : [],
    ),
    resources: { cpu: '250m', memory: '256Mi' },
    replicas: 1,
    ports: [],
    ingress: [],
    ingressTls: null,
    loadBalancer: [],
    readinessProbe: null,
    livenessProbe: null,
    volumes: [],
    terminationGracePeriodSeconds: stopGraceSeconds(snapshot),
    job: {},
    schedule: {},
    steps: [],
    workingDir: '',
    scratch: null,
    stateAccess: false,
    alerting: null,
  }
}

const resources = ({ cpuMilli, memoryMb }: Resources) => ({ cpu: `${cpuMilli}m`, memory: `${memoryMb}Mi` })

/** The values of an image: its reference, and the pull secret of a registry that has credentials. */
function imageValues({ image }: ChartRelease): Pick<ChartValues, 'image' | 'imagePullSecret'> {
  const { auth } = image.registry
  return { image: image.reference, imagePullSecret: auth ? { server: auth.serveraddress, username: auth.username, password: auth.password } : null }
}

/** A Berth probe as Kubernetes takes it; a probe naming no port checks the workload's first one. */
export function kubernetesProbe(probe: Probe | null, defaultPort: number | undefined): Record<string, unknown> | null {
  if (!probe) return null
  const timing = {
    initialDelaySeconds: probe.initialDelaySeconds,
    periodSeconds: probe.periodSeconds,
    timeoutSeconds: probe.timeoutSeconds,
    successThreshold: probe.successThreshold,
    failureThreshold: probe.failureThreshold,
  }
  const { type } = probe
  if ('exec' in type) return { exec: { command: type.exec.command }, ...timing }
  const port = ('tcp' in type ? type.tcp.port : 'http' in type ? type.http.port : type.grpc.port) ?? defaultPort
  if (port === undefined) return null
  if ('tcp' in type) return { tcpSocket: { port, ...(type.tcp.host ? { host: type.tcp.host } : {}) }, ...timing }
  if ('http' in type) return { httpGet: { path: type.http.path, port, scheme: type.http.scheme.toUpperCase() }, ...timing }
  return { grpc: { port, ...(type.grpc.service ? { service: type.grpc.service } : {}) }, ...timing }
}

const portName = (port: WorkloadPort) => port.name ?? `p${port.internalPort}`

/** A name Kubernetes takes for a Secret, from a service's id. */
const dnsSafe = (serviceId: string) => `berth-${serviceId.toLowerCase()}`

/**
 * The Ingress hosts of the service's public web ports: the front door's names under the apps
 * domain; without one, the names its links derive under `berth.localhost`, where the default name
 * is the default public port's only when that port is a web one.
 */
function ingressHosts(serviceId: string, ports: readonly WorkloadPort[], appsDomain: string | undefined) {
  const hosts = serviceHosts(serviceId, ports, appsDomain ?? SIMULATED_LINK_DOMAIN)
  if (appsDomain) return hosts
  const publicPorts = ports.filter((port) => port.publiclyAccessible)
  const linkDefault = publicPorts.find((port) => port.isDefault) ?? publicPorts[0]
  return linkDefault && isWebPort(linkDefault) ? hosts : hosts.filter((host) => !host.isDefault)
}

/**
 * The workload's ports, an Ingress rule per host of a public HTTP or gRPC port (docs/front-door.md),
 * with a TLS section when the cluster names an apps domain, and a LoadBalancer port per public TCP or UDP one.
 */
function exposure(
  serviceId: string,
  ports: readonly WorkloadPort[],
  ingress: IngressSettings | undefined,
): Pick<ChartValues, 'ports' | 'ingress' | 'ingressTls' | 'loadBalancer'> {
  const hosts = ingressHosts(serviceId, ports, ingress?.appsDomain)
  const rules: ChartValues['ingress'] = []
  const loadBalancer: ChartValues['loadBalancer'] = []
  for (const port of ports.filter((candidate) => candidate.publiclyAccessible)) {
    if (port.protocol === 'HTTP' || port.protocol === 'GRPC') {
      for (const host of hosts.filter((candidate) => candidate.internalPort === port.internalPort))
        rules.push({ host: host.host, path: port.publicPath ?? '/', port: port.internalPort })
    } else {
      const protocol = port.protocol === 'UDP' ? 'UDP' : 'TCP'
      loadBalancer.push({ name: portName(port), port: port.externalPort ?? port.internalPort, targetPort: portName(port), protocol })
    }
  }
  return {
    ports: ports.map((port) => ({ name: portName(port), port: port.internalPort, protocol: port.protocol === 'UDP' ? 'UDP' : 'TCP' })),
    ingress: rules,
    // A certificate for every host of the Ingress, from the cluster's cert-manager issuer when it names one.
    ingressTls: ingress?.appsDomain ? { secretName: `${dnsSafe(serviceId)}-tls`, clusterIssuer: ingress.clusterIssuer } : null,
    loadBalancer,
  }
}

/**
 * Instances: a Deployment (a StatefulSet with a volume claim per volume, when it has volumes), a
 * Service for its ports, an Ingress for its public HTTP ports; `stopped`: no replica.
 */
export function instanceValues(
  release: ChartRelease,
  workload: InstancesWorkload,
  options: { stopped: boolean; ingress: IngressSettings | undefined },
): ChartValues {
  const base = baseValues({ ...release, variables: workload.variables ? release.variables : [] })
  const firstPort = workload.ports[0]?.internalPort
  return {
    ...base,
    workload: workload.volumes.length > 0 ? 'StatefulSet' : 'Deployment',
    ...(workload.hostname ? { serviceName: workload.hostname } : {}),
    ...imageValues(release),
    command: workload.entrypoint ?? [],
    args: workload.args,
    env: { ...base.env, ...workload.env },
    resources: resources(workload.resources),
    replicas: options.stopped ? 0 : workload.instances,
    ...exposure(release.snapshot.serviceId, workload.ports, options.ingress),
    readinessProbe: kubernetesProbe(workload.readiness, firstPort),
    livenessProbe: kubernetesProbe(workload.liveness, firstPort),
    volumes: workload.volumes.map((volume) => ({
      name: volume.names?.kubernetes ?? `storage-${volume.id.slice(0, 8)}`,
      mountPath: volume.mountPath,
      size: `${volume.sizeGb}Gi`,
      ...(volume.subPath ? { subPath: volume.subPath } : {}),
    })),
  }
}

/** A cron expression as a CronJob takes it: five fields (a six-field one may only have 0 seconds). */
export function cronSchedule(expression: string): string {
  const fields = expression.trim().split(/\s+/)
  if (fields.length === 5) return fields.join(' ')
  if (fields.length === 6 && fields[0] === '0') return fields.slice(1).join(' ')
  throw new Error(`the schedule "${expression}" has a seconds field, which Kubernetes CronJobs do not take`)
}

/** The Job of a run, named for the execution so that each run is a new one. */
const jobName = ({ snapshot, owner }: ChartRelease) =>
  `${snapshot.kind.toLowerCase()}-${owner.serviceId.slice(0, 8)}-${owner.executionId.slice(0, 8)}`

/**
 * A command run to its end: a Job running it; or, with `schedule`, the CronJob of its schedule
 * (suspended when `stopped`), with a Job beside it that runs the command at once when `runNow`.
 */
export function runValues(
  release: ChartRelease,
  run: { command: Command; resources: Resources; timeout: TimeLimit; retries: number },
  schedule?: { cron: string; timezone: string; stopped: boolean; runNow: boolean },
): ChartValues {
  const limits = { backoffLimit: run.retries, activeDeadlineSeconds: run.timeout.seconds }
  const named = { ...limits, name: jobName(release) }
  const values: ChartValues = {
    ...baseValues(release),
    ...imageValues(release),
    command: run.command.entrypoint ?? [],
    args: run.command.args,
    resources: resources(run.resources),
  }
  if (!schedule) return { ...values, workload: 'Job', job: named }
  return {
    ...values,
    workload: 'CronJob',
    job: schedule.runNow ? named : limits,
    schedule: { cron: cronSchedule(schedule.cron), timeZone: schedule.timezone, suspend: schedule.stopped },
  }
}

/** Steps: one Job, the steps before the last as init containers, the last as the main container, sharing the scratch directory. */
export function stepsValues(release: ChartRelease, workload: StepsWorkload, steps: Step[]): ChartValues {
  const base = baseValues(release)
  const last = steps.at(-1)
  return {
    ...base,
    workload: 'Job',
    ...imageValues(release),
    command: [workload.program],
    args: last?.args ?? [],
    steps: steps.slice(0, -1).map((step, index) => ({ name: `${step.args[0]}-${index}`, args: step.args })),
    workingDir: workload.workingDir,
    scratch: workload.scratch,
    stateAccess: workload.stateAccess ?? false,
    env: { ...base.env, ...workload.env },
    files: [...base.files, ...workload.files],
    resources: resources(workload.resources),
    job: { name: jobName(release), backoffLimit: 0, ...(workload.timeout.seconds > 0 ? { activeDeadlineSeconds: workload.timeout.seconds } : {}) },
  }
}

/** The steps of a Job, in order: `next` asked as if each succeeded; how the run ends instead when no step runs. */
export function layOut(
  workload: StepsWorkload,
): { ok: true; steps: Step[] } | { ok: false; done: ServiceOutcome; say: StepsWorkload['first']['say'] } {
  const steps: Step[] = []
  let next = workload.first
  while ('run' in next) {
    steps.push(next.run)
    next = workload.next(next.run, { code: 0, lines: [], stdout: '' })
  }
  if (steps.length > 0) return { ok: true, steps }
  return { ok: false, done: 'done' in next ? next.done : { ok: false, message: 'the run has no step' }, say: next.say }
}

/** The values of a workload's release for `action`: a stop scales instances to none and suspends a schedule. */
export function workloadValues(
  release: ChartRelease,
  workload: InstancesWorkload | RunWorkload | ScheduleWorkload | StepsWorkload,
  options: { action: ExecutorAction; ingress?: IngressSettings | undefined },
): ChartValues {
  const stopped = options.action === 'STOP'
  switch (workload.type) {
    case 'instances':
      return instanceValues(release, workload, { stopped, ingress: options.ingress })
    case 'run':
      return runValues(release, workload)
    case 'schedule':
      return runValues(release, workload, { cron: workload.cron, timezone: workload.timezone, stopped, runNow: workload.runNow })
    case 'steps': {
      const laid = layOut(workload)
      return stepsValues(release, workload, laid.ok ? laid.steps : [])
    }
  }
}
