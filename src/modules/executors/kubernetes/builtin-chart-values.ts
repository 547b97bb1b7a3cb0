import { fileURLToPath } from 'node:url'
import type { RegistryPullAccess } from '#src/modules/container-registries/registry-pull-access.ts'
import { serviceHosts } from '#src/modules/front-door/front-door-names.ts'
import type { ApplicationConfig } from '#src/modules/services/kinds/application/application.types.ts'
import { containerProbe } from '#src/modules/services/kinds/application/application-probes.ts'
import type { ContainerConfig, ContainerPort, Probe } from '#src/modules/services/kinds/container/container.types.ts'
import type { DatabaseConfig } from '#src/modules/services/kinds/database/database.types.ts'
import { DATABASE_ENGINES, type DatabaseType } from '#src/modules/services/kinds/database/database-engines.ts'
import { DATABASE_RUNTIME, databaseImage } from '#src/modules/services/kinds/database/database-runtime.ts'
import type { JobCommand, JobConfig } from '#src/modules/services/kinds/job/job.types.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { serviceLinks } from '#src/modules/services/service-links.ts'

// The values of the chart Berth ships (./chart, docs/kubernetes.md "Deploying to Kubernetes"), one kind at a
// time: what a container, a container database or a job becomes on Kubernetes. Values hold the
// variables in clear: the executor writes them to a file of mode 0600 in its private work
// directory, never to argv.

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

/** A variable in clear, as the executor opened it. */
export interface OpenVariable {
  key: string
  value: string
  mountPath: string | null
}

/** How long a stopping pod gets, when the service's settings do not say (the Docker executor's default too). */
const STOP_GRACE_SECONDS = 10

/** The values every kind starts from: its labels, its variables, one replica of nothing. */
export function baseValues(snapshot: ServiceSnapshot, owner: ChartOwner, variables: OpenVariable[]): ChartValues {
  const grace = snapshot.advancedSettings?.['deployment.termination_grace_period_seconds']
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
    terminationGracePeriodSeconds: typeof grace === 'number' ? grace : STOP_GRACE_SECONDS,
    job: {},
    schedule: {},
    steps: [],
    workingDir: '',
    scratch: null,
    stateAccess: false,
  }
}

const resources = (cpuMilli: number, memoryMb: number) => ({ cpu: `${cpuMilli}m`, memory: `${memoryMb}Mi` })

/** The image pull secret of a registry that has credentials. */
const pullSecret = (registry: RegistryPullAccess): ChartValues['imagePullSecret'] =>
  registry.auth ? { server: registry.auth.serveraddress, username: registry.auth.username, password: registry.auth.password } : null

/** A Berth probe as Kubernetes takes it; a probe naming no port checks the service's first one. */
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

const portName = (port: number) => `p${port}`

/** A name Kubernetes takes for a Secret, from a service's id. */
const dnsSafe = (serviceId: string) => `berth-${serviceId.toLowerCase()}`

/**
 * The workload's ports, an Ingress rule per host of a public HTTP or gRPC port (the front door's
 * names under the apps domain, docs/front-door.md; without one, the derived link hosts), and a
 * LoadBalancer port per public TCP or UDP one.
 */
function exposure(
  snapshot: ServiceSnapshot,
  ports: ContainerPort[],
  ingressSettings: IngressSettings | undefined,
): Pick<ChartValues, 'ports' | 'ingress' | 'loadBalancer'> {
  const appsDomain = ingressSettings?.appsDomain
  const hosts = appsDomain
    ? serviceHosts(snapshot.serviceId, ports, appsDomain).map((host) => ({ host: host.host, internalPort: host.internalPort }))
    : serviceLinks({ id: snapshot.serviceId, kind: snapshot.kind }, ports)
        .filter((link) => link.url.startsWith('https://'))
        .map((link) => ({ host: new URL(link.url).hostname, internalPort: link.internal_port }))
  const ingress: ChartValues['ingress'] = []
  const loadBalancer: ChartValues['loadBalancer'] = []
  for (const port of ports.filter((candidate) => candidate.publiclyAccessible)) {
    if (port.protocol === 'HTTP' || port.protocol === 'GRPC') {
      for (const host of hosts.filter((candidate) => candidate.internalPort === port.internalPort))
        ingress.push({ host: host.host, path: port.publicPath ?? '/', port: port.internalPort })
    } else {
      const protocol = port.protocol === 'UDP' ? 'UDP' : 'TCP'
      loadBalancer.push({
        name: portName(port.internalPort),
        port: port.externalPort ?? port.internalPort,
        targetPort: portName(port.internalPort),
        protocol,
      })
    }
  }
  return {
    ports: ports.map((port) => ({ name: portName(port.internalPort), port: port.internalPort, protocol: port.protocol === 'UDP' ? 'UDP' : 'TCP' })),
    ingress,
    loadBalancer,
  }
}

/**
 * A container: a Deployment (a StatefulSet with a volume claim per storage, when it has storage),
 * a Service for its ports, an Ingress for its public HTTP ports; `stopped`: no replica.
 */
export function containerValues(
  snapshot: ServiceSnapshot<ContainerConfig>,
  owner: ChartOwner,
  variables: OpenVariable[],
  image: { reference: string; registry: RegistryPullAccess },
  stopped: boolean,
  /** Where its Ingress hosts are and its certificate's issuer; absent: the derived hosts, no TLS section. */
  ingressSettings?: IngressSettings,
): ChartValues {
  const config = snapshot.configuration
  const firstPort = config.ports[0]?.internalPort
  return {
    ...baseValues(snapshot, owner, variables),
    workload: config.storage.length > 0 ? 'StatefulSet' : 'Deployment',
    image: image.reference,
    imagePullSecret: pullSecret(image.registry),
    command: config.entrypoint ? [config.entrypoint] : [],
    args: config.arguments,
    resources: resources(config.cpu, config.memory),
    replicas: stopped ? 0 : Math.max(config.minRunningInstances, 1),
    ...exposure(snapshot, config.ports, ingressSettings),
    // A certificate for every host of the Ingress, from the cluster's cert-manager issuer when it names one.
    ingressTls: ingressSettings?.appsDomain
      ? { secretName: `${dnsSafe(snapshot.serviceId)}-tls`, clusterIssuer: ingressSettings.clusterIssuer }
      : null,
    readinessProbe: kubernetesProbe(config.healthchecks.readinessProbe, firstPort),
    livenessProbe: kubernetesProbe(config.healthchecks.livenessProbe, firstPort),
    volumes: config.storage.map((volume) => ({ name: `storage-${volume.id.slice(0, 8)}`, mountPath: volume.mountPoint, size: `${volume.sizeGb}Gi` })),
  }
}

/**
 * An application, once its image is built and pushed: a container of that image (a Deployment, a
 * Service for its ports, an Ingress for its public HTTP ports; a StatefulSet with storage).
 */
export function applicationValues(
  snapshot: ServiceSnapshot<ApplicationConfig>,
  owner: ChartOwner,
  variables: OpenVariable[],
  image: { reference: string; registry: RegistryPullAccess },
  stopped: boolean,
  ingressSettings?: IngressSettings,
): ChartValues {
  const config = snapshot.configuration
  const { readiness_probe, liveness_probe } = config.healthchecks
  const container: ContainerConfig = {
    ...config,
    registryId: '',
    imageName: '',
    tag: '',
    ports: config.ports as ContainerPort[],
    healthchecks: { readinessProbe: containerProbe(readiness_probe), livenessProbe: containerProbe(liveness_probe) },
    storage: config.storage.map((volume) => ({ ...volume, sizeGb: volume.size })),
  } as ContainerConfig
  return containerValues({ ...snapshot, configuration: container }, owner, variables, image, stopped, ingressSettings)
}

/** The variable a database's password reaches its command through: Kubernetes expands `$(NAME)` in args from the container's environment. */
const PASSWORD_VARIABLE = 'BERTH_DATABASE_PASSWORD'

/**
 * A CONTAINER database: a StatefulSet of one replica running its type's official image, a volume
 * claim of its storage, and a Service named as its host (what the environment's services reach it
 * at); a LoadBalancer when it is PUBLIC. The password is only in the env Secret.
 */
export function databaseValues(
  snapshot: ServiceSnapshot<DatabaseConfig>,
  owner: ChartOwner,
  images: string,
  password: string,
  stopped: boolean,
): ChartValues {
  const config = snapshot.configuration
  const type = config.type as DatabaseType
  const engine = DATABASE_ENGINES[type]
  const runtime = DATABASE_RUNTIME[type]
  const { credentials } = config
  const port = { name: 'db', port: engine.port, protocol: 'TCP' as const }
  return {
    ...baseValues(snapshot, owner, []),
    workload: 'StatefulSet',
    serviceName: credentials.host,
    image: databaseImage(images, type, config.version),
    args: runtime.command?.(`$(${PASSWORD_VARIABLE})`) ?? [],
    env: { ...runtime.env(credentials.login, password, credentials.databaseName), ...(runtime.command ? { [PASSWORD_VARIABLE]: password } : {}) },
    resources: resources(config.cpu, config.memory),
    // One replica: the image is no cluster.
    replicas: stopped ? 0 : 1,
    ports: [port],
    loadBalancer: config.accessibility === 'PUBLIC' ? [{ name: 'db', port: engine.port, targetPort: 'db', protocol: 'TCP' }] : [],
    readinessProbe: { tcpSocket: { port: engine.port }, periodSeconds: 2, failureThreshold: 60 },
    // A sub-directory: a fresh volume's root holds lost+found, which the images' init refuses.
    volumes: [{ name: 'data', mountPath: runtime.dataDir, size: `${config.storage}Gi`, subPath: 'data' }],
  }
}

/** A cron expression as a CronJob takes it: five fields (a six-field one may only have 0 seconds). */
export function cronSchedule(expression: string): string {
  const fields = expression.trim().split(/\s+/)
  if (fields.length === 5) return fields.join(' ')
  if (fields.length === 6 && fields[0] === '0') return fields.slice(1).join(' ')
  throw new Error(`the schedule "${expression}" has a seconds field, which Kubernetes CronJobs do not take`)
}

/**
 * A job: a Job running `command` (one event of a lifecycle job), named for the execution so that
 * each run is a new one; or, with `cron`, the CronJob of its schedule (suspended when `stopped`),
 * with a Job beside it that runs the command at once when `runNow` (a forced run).
 */
export function jobValues(
  snapshot: ServiceSnapshot<JobConfig>,
  owner: ChartOwner,
  variables: OpenVariable[],
  image: { reference: string; registry: RegistryPullAccess },
  run: { command: JobCommand } | { cron: { scheduledAt: string; timezone: string; command: JobCommand }; stopped: boolean; runNow: boolean },
): ChartValues {
  const config = snapshot.configuration
  const command = 'cron' in run ? run.cron.command : run.command
  const limits = { backoffLimit: config.maxNbRestart, activeDeadlineSeconds: config.maxDurationSeconds }
  const named = { ...limits, name: `job-${owner.serviceId.slice(0, 8)}-${owner.executionId.slice(0, 8)}` }
  const values: ChartValues = {
    ...baseValues(snapshot, owner, variables),
    image: image.reference,
    imagePullSecret: pullSecret(image.registry),
    command: command.entrypoint ? [command.entrypoint] : [],
    args: command.arguments,
    resources: resources(config.cpu, config.memory),
  }
  if (!('cron' in run)) return { ...values, workload: 'Job', job: named }
  return {
    ...values,
    workload: 'CronJob',
    job: run.runNow ? named : limits,
    schedule: { cron: cronSchedule(run.cron.scheduledAt), timeZone: run.cron.timezone, suspend: run.stopped },
  }
}
