import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { ExecutorAction, ServiceOutcome, ServiceSnapshot } from './executor.ts'

// What a service's action runs, in words that name no kind (docs/executors.md). Each kind maps its
// snapshot to one `Workload`, a pure function in its folder (`<kind>.workload.ts`); the executors
// do the rest: pulling or building images, networks, readiness, rollouts, releases.

/** A git repository an executor fetches: what a build or a chart reads. */
export interface GitRepository {
  url: string
  /** Null: the repository's default branch. */
  branch: string | null
  /** The repository's directory the build or chart starts from (`/`: its root). */
  rootPath: string
  /** The git token it is read with; null: the organization's only token of its provider, if any. */
  gitTokenId: string | null
  /** GITHUB, GITLAB or BITBUCKET. */
  provider: string
}

/** What an image is built from: a repository at a commit (or a branch's head), a Dockerfile in it. */
export interface BuildSource {
  repository: GitRepository
  ref: { commit: string } | { branch: string | null }
  dockerfilePath: string | null
  dockerfileRaw: string | null
  target: string | null
  /** Whether an image already built for the commit is used as it is (a restart, a job's later event) rather than built again. */
  reuse: boolean
}

/**
 * Where a workload's image comes from: a container registry of the organization (pulled with its
 * credentials), a public reference (pulled without), or a build from git (on Kubernetes, built by
 * the runner's Docker engine and pushed to the cluster's image registry).
 */
export type ImageSource = { registry: { registryId: string; imageName: string; tag: string } } | { public: string } | { build: BuildSource }

/** How an instance is checked: a port opened, an HTTP answer, a command's exit code (gRPC is checked as tcp on Docker). */
export interface Probe {
  /** A port of null: the workload's first port. */
  type:
    | { tcp: { port: number | null; host: string | null } }
    | { http: { path: string; scheme: string; port: number | null } }
    | { exec: { command: string[] } }
    | { grpc: { service: string | null; port: number | null } }
  initialDelaySeconds: number
  periodSeconds: number
  timeoutSeconds: number
  successThreshold: number
  failureThreshold: number
}

export interface WorkloadPort {
  internalPort: number
  /** Where a public TCP or UDP port is reached (a load balancer's port); null: its internal port. */
  externalPort: number | null
  protocol: 'HTTP' | 'GRPC' | 'TCP' | 'UDP'
  publiclyAccessible: boolean
  /** The port the service's default address leads to (else its first public one). */
  isDefault: boolean
  /** The path a public HTTP port is served under; null: `/`. */
  publicPath: string | null
  /** Its name in the workload's Service on Kubernetes; absent: `p{internal port}`. */
  name?: string
}

/** A volume of an instance, kept across deploys. */
export interface WorkloadVolume {
  /** Unique in the service and stable: the engines name the volume after it. */
  id: string
  mountPath: string
  sizeGb: number
  /** On Kubernetes, the directory of the volume mounted instead of its root (a fresh volume's root holds lost+found). */
  subPath?: string
  /** `service`: its data goes when the service is deleted; `environment`: only with its environment (a container's storage). */
  lifetime: 'service' | 'environment'
  /** Where its data already is when that is not where `id` leads (a database's: `berth-db-{service id}` on Docker, `data` on Kubernetes). */
  names?: { docker: string; kubernetes: string }
}

export interface Resources {
  cpuMilli: number
  memoryMb: number
}

/** Instances of one image kept running: a container, an application, a database. */
export interface InstancesWorkload {
  type: 'instances'
  image: ImageSource
  /** Null: the image's own. */
  entrypoint: string[] | null
  /** Empty: the image's own command. */
  args: string[]
  /** Its args name variables of `env` as `$(NAME)`: Kubernetes expands them (as in every container's), the Docker executor too for these. */
  expandsArgs?: boolean
  /** Its environment beyond the service's variables (a database's credentials), in clear. */
  env: Record<string, string>
  /** Whether it gets the service's variables and files (a database does not). */
  variables: boolean
  /** The name the environment's other services reach it by; null: one made from the service's name. */
  hostname: string | null
  ports: WorkloadPort[]
  readiness: Probe | null
  liveness: Probe | null
  volumes: WorkloadVolume[]
  resources: Resources
  instances: number
}

/** A command of an image (a job's event). */
export interface Command {
  /** What it is, in the logs: `the START event`. */
  what: string
  entrypoint: string[] | null
  args: string[]
}

/** A limit of time; `setting` names it in the failure's message (`max_duration_seconds`). */
export interface TimeLimit {
  seconds: number
  setting: string
}

/** One command run to its end (a job's event): tried again up to `retries` times when it fails. */
export interface RunWorkload {
  type: 'run'
  image: ImageSource
  command: Command
  resources: Resources
  timeout: TimeLimit
  retries: number
  /** A tick of a schedule the cluster fires itself: Kubernetes' CronJob runs it, not the executor. */
  tick?: boolean
}

/**
 * A command run at each tick of a schedule (a cron job): Berth's cron fires the ticks on Docker
 * (each a `run` of its own), a CronJob on Kubernetes. A stop suspends it; `runNow` runs it once now besides.
 */
export interface ScheduleWorkload {
  type: 'schedule'
  image: ImageSource
  command: Command
  resources: Resources
  timeout: TimeLimit
  retries: number
  cron: string
  timezone: string
  runNow: boolean
}

/** One command of a `steps` workload: the program's arguments. */
export interface Step {
  /** The step of the logs its lines go under. */
  name: string
  args: string[]
  /** Its standard output is read whole for `next`, not logged (it may hold every secret of a state). */
  capture?: boolean
}

/** How a step ended. */
export interface StepResult {
  code: number
  /** Its last lines (standard error too). */
  lines: string[]
  /** Its standard output, when captured. */
  stdout: string
}

/** A line said between steps. */
export interface StepLine {
  step: string
  message: string
}

/** What comes after a step (or first): another step, the end, or a failure of the step that ended (its last lines in the message). */
export type NextStep = ({ run: Step } | { done: ServiceOutcome } | { failed: true }) & { say?: StepLine }

/**
 * Commands of one program run in turn in one image, sharing a scratch directory (an IAC run). On
 * Docker each step is a container and `next` reads how it ended; on Kubernetes the steps are one
 * Job (init containers, then the last as the main one), laid out by asking `next` as if each succeeded.
 */
export interface StepsWorkload {
  type: 'steps'
  /** Null when no step runs (`first` is the end). */
  image: ImageSource | null
  /** The program every step runs (the containers' entrypoint). */
  program: string
  workingDir: string
  /** Shared by the steps: on Docker a volume kept across runs (removed with the service's install), on Kubernetes the Job's own. */
  scratch: { mountPath: string }
  /** The environment beyond the service's variables, in clear. */
  env: Record<string, string>
  /** Files beyond the service's file variables; `key` names each in the Kubernetes Secret. */
  files: { key: string; path: string; content: string }[]
  resources: Resources
  /** Past it the run is killed and fails; 0 seconds: none. */
  timeout: TimeLimit
  /** Values the logs must never show besides the service's secrets (a state store's password). */
  masked: string[]
  /**
   * Docker only: the run keeps its state in Berth (the engine's http backend): the executor serves it
   * to the run alone, on the run's own network, with a credential of the run (docs/iac.md, "State").
   */
  stateEndpoint?: boolean
  /** Kubernetes only: a ServiceAccount that may write the namespace's Secrets and Leases (the engine's kubernetes backend). */
  stateAccess?: boolean
  first: NextStep
  next(step: Step, result: StepResult): NextStep
}

/** A helm chart of the service's own, released on a Kubernetes cluster. */
export interface ChartWorkload {
  type: 'chart'
  source:
    | { repository: { repositoryId: string; chartName: string; version: string } }
    | { git: { repository: GitRepository; commit: string | undefined } }
  values: {
    files: { raw: { content: string }[] } | { git: { repository: GitRepository; paths: string[]; commit: string | undefined } } | null
    set: [string, string][]
    setString: [string, string][]
    setJson: [string, string][]
    /** A value's text as helm gets it, given the service's variables in clear (the kind's placeholders resolved). */
    resolve(text: string, variables: ReadonlyMap<string, string>): string
  }
  allowClusterWide: boolean
  timeoutSeconds: number
  /** More words of `helm upgrade --install`. */
  extraArguments: string[]
}

/** Nothing runs: a line says why; an uninstall or delete still removes what the service left. */
export interface NothingWorkload {
  type: 'nothing'
  say: StepLine
}

/** The action cannot be done: the service's part fails with `message`, changing nothing. */
export interface RefusedWorkload {
  type: 'refused'
  message: string
}

/** What an external kind's action gets (an Argo CD asked to sync): the run, its logs, and what it reads its own credentials with. */
export interface ExternalContext {
  action: ExecutorAction
  run: { id: string; organizationId: string; environmentId: string }
  log(step: string, message: string, level?: 'INFO' | 'WARNING' | 'ERROR'): void
  signal: AbortSignal
  db: Db
  secrets: SecretBox
}

/** A system outside Berth does the action (an Argo CD); the kind calls it, not the engines. */
export interface ExternalWorkload {
  type: 'external'
  perform(context: ExternalContext): Promise<ServiceOutcome>
}

export type Workload =
  | InstancesWorkload
  | RunWorkload
  | ScheduleWorkload
  | StepsWorkload
  | ChartWorkload
  | NothingWorkload
  | RefusedWorkload
  | ExternalWorkload

/** The operator's settings a kind's mapping reads. */
export interface WorkloadSettings {
  /** BERTH_DOCKER_DATABASE_IMAGES: where databases' official images are. */
  databaseImages: string
  /** BERTH_IAC_IMAGES; '': the IAC engines' official images. */
  iacImages: string
}

/** What a kind's mapping is given beside the snapshot. */
export interface WorkloadContext {
  action: ExecutorAction
  settings: WorkloadSettings
  /** Opens a sealed (base64) value of the configuration (a database's password). */
  openSecret(sealed: string): string
  /** The Kubernetes namespace the service is released in; undefined on Docker. */
  namespace: string | undefined
}

/** How the executors run a kind's services: its workload for an action, and the values of its configuration the logs must never show. */
export interface KindWorkload<Config = unknown> {
  /** Pure: no I/O. */
  describe(snapshot: ServiceSnapshot<Config>, context: WorkloadContext): Workload
  /** Besides the secret variables (a database's password). */
  secretValues?(snapshot: ServiceSnapshot<Config>, openSecret: (sealed: string) => string): string[]
}

/** An executor's table: the workload of each kind it runs, by kind; a kind without one is refused. */
export type KindWorkloads = Readonly<Partial<Record<string, KindWorkload>>>

/** Whether an action takes the service away (then what it left goes too). */
export const removes = (action: ExecutorAction) => action === 'UNINSTALL' || action === 'DELETE'

/** How long a stopping instance gets: the service's `deployment.termination_grace_period_seconds`, else 10 s. */
export function stopGraceSeconds(snapshot: Pick<ServiceSnapshot, 'advancedSettings'>): number {
  const seconds = snapshot.advancedSettings?.['deployment.termination_grace_period_seconds']
  return typeof seconds === 'number' ? seconds : 10
}
