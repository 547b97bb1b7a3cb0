import type { PlannedStep, ServiceSnapshot as SnapshotOf } from '#src/modules/executors/executor.ts'
import type { CommitSource } from '#src/modules/git-providers/git-commits.service.ts'
import type { GitCommit } from '#src/modules/git-providers/git-provider-adapter.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import type { RunnableTrigger, ServiceSubAction, ServiceType } from '#src/platform/deployment-states.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { SnapshotVariable } from '#src/platform/snapshot-variable.ts'
import type { Settings } from './advanced-settings/advanced-settings.schemas.ts'

export type { PlannedStep }

// How a kind of service plugs into the one service core (docs/architecture.md, "Adding a kind").
// The core owns names, access, organization scoping, stages, versions, references, triggers,
// statuses and history; a kind owns its configuration and what deploying it means.

/** Something a configuration points at, kept as a foreign key so that it is counted and cannot vanish under the service. */
export type ServiceReference = { field: string } & (
  | { gitTokenId: string }
  | { helmRepositoryId: string }
  | { containerRegistryId: string }
  | { organizationGroupId: string }
)

/** A reference as reads return it, with the name (and address) of what it points at. */
export interface ResolvedReference {
  field: string
  gitTokenId: string | null
  helmRepositoryId: string | null
  containerRegistryId: string | null
  name: string
  url: string | null
  /** A container registry's kind (ContainerRegistryKindEnum); null for other references. */
  registryKind?: string | null
  /** A labels or annotations group (service-groups.ts); absent or null for other references. */
  organizationGroupId?: string | null
  group?: {
    kind: 'LABELS' | 'ANNOTATIONS'
    entries: unknown
    scopes: string[]
    created_at: string
    updated_at: string | null
  } | null
}

/** A stored service: the core columns and its kind's configuration. */
export interface ServiceRecord<Config = unknown> {
  id: string
  organizationId: string
  environmentId: string
  kind: ServiceType
  name: string
  deploymentStageId: string
  /** Left out of environment-level deployments (a stage's `is_skipped`). */
  deploymentSkipped: boolean
  configuration: Config
  version: number
  createdAt: Date
  updatedAt: Date
  references: ResolvedReference[]
}

/** A service without its configuration and references: what statuses need, whatever a configuration weighs. */
export type ServiceSummary = Omit<ServiceRecord, 'configuration' | 'references'>

/** What a create or an edit stores, as the kind made it from the request. */
export interface PreparedService<Config> {
  /** The id a create gives the service, when the kind needs to know it beforehand (a database's host names it). */
  id?: string
  name: string
  configuration: Config
  references: ServiceReference[]
}

/** What a kind may look up in other modules while it checks a write. */
export interface ServiceLookups {
  findGitToken(organizationId: string, gitTokenId: string): Promise<{ type: string } | undefined>
  findHelmRepository(organizationId: string, helmRepositoryId: string): Promise<object | undefined>
  findContainerRegistry(organizationId: string, containerRegistryId: string): Promise<{ kind: string; url: string } | undefined>
  /** The organization's labels or annotations groups among `ids`. */
  findGroups(organizationId: string, kind: 'LABELS' | 'ANNOTATIONS', ids: string[]): Promise<{ id: string }[]>
}

/** What a kind may use to make a clone's create input (docs/cloning.md, "Cloning"). */
export interface CloneInputContext {
  /** Seals what a clone makes afresh (a database's new master password). */
  secrets: SecretBox
}

/** What a kind may look at while it checks a write. */
export interface PrepareContext<Config> {
  organizationId: string
  lookups: ServiceLookups
  /** The caller's role in the organization. */
  role: Role
  environment: { id: string; autoPreview: boolean }
  /** The service as it is, for an edit. */
  previous?: ServiceRecord<Config>
}

/** A service as a deployment deploys it (executors/executor.ts): one of Berth's kinds, its variables as resolved. */
export type ServiceSnapshot<Config = unknown> = SnapshotOf<Config, ServiceType, SnapshotVariable>

/** A git branch a service deploys from: a push to it deploys the service when the service has `auto_deploy` on. */
export interface FollowedBranch {
  provider: 'GITHUB' | 'GITLAB' | 'BITBUCKET'
  /** The repository's owner (a GitLab group path may hold slashes) and name, as its URL gives them. */
  owner: string
  name: string
  /** Null: the repository's default branch, as the push event names it (docs/git-push.md, "Deploying on git push"). */
  branch: string | null
  /** Whether pushes deploy the service (the configuration's `auto_deploy`). */
  autoDeploy: boolean
}

/** What a kind may consult while it resolves what a deployment builds (`resolveOverrides`). */
export interface DeploymentLookups {
  /** The commit `ref` names at the repository's provider (a commit id or a branch; null: the default branch). */
  gitCommit(source: CommitSource, ref: string | null): Promise<GitCommit>
  /** What the service's last successful deploy or redeploy added to its configuration (its snapshot's overrides), if any. */
  deployedOverrides(serviceId: string): Promise<Record<string, unknown> | undefined>
}

/** The deployment a kind resolves overrides for. */
export interface ResolveContext {
  organizationId: string
  serviceId: string
  trigger: RunnableTrigger
  lookups: DeploymentLookups
}

/** The deployment a history entry's `details` describe. */
export interface DetailsContext {
  /** The deployment's id (`execution_id`), fixed before the services are planned. */
  executionId: string
}

/** When a scheduled service fires: its cron expression, and the timezone it is read in. */
export interface ServiceTiming {
  scheduledAt: string
  timezone: string
}

/**
 * What cron needs of a kind whose services run on a schedule (a cron job), so that the runner, cron
 * and the queue's schedules name no kind (docs/adding-a-kind.md).
 */
export interface KindSchedule<Config = unknown, Overrides extends object = Record<string, unknown>> {
  /** The configuration's schedule; undefined when it runs on none (a lifecycle job). */
  timingOf(configuration: Config): ServiceTiming | undefined
  /** The first time `timing` fires after `after`; null when it never fires again. */
  nextFireAfter(timing: ServiceTiming, after: Date): Date | null
  /** What a run queued for the tick `scheduledFor` adds to the configuration; `catchUp` when it stands for missed ticks too. */
  tickOverrides(scheduledFor: string, catchUp: boolean): Overrides
  /** Whether a run with these overrides forced an event (a tick, a force-run): such a run changes no schedule. */
  forced(overrides: Overrides): boolean
}

/**
 * One kind of service. `Input` is what its routes hand the core after validation; `Config` what is
 * stored; `Overrides` what a deploy request may add (a chart version, a commit).
 */
export interface ServiceKind<Input = unknown, Config = unknown, Overrides extends object = Record<string, unknown>> {
  type: ServiceType
  /** How errors name one: "helm not found". */
  noun: string
  /** Its instances keep running once deployed (jobs run to completion): only these kinds' statuses ask the engine whether they still run. */
  longRunning?: true
  /** The request field that holds each reference `field`, for errors about it. */
  referencePaths: Record<string, string>
  /** Throws `forbidden` for what the caller's role may not set; checked before anything else of a write. Absent: every role that may write may set everything. */
  authorize?(context: PrepareContext<Config>, input: Input): void
  /**
   * Checks a write beyond its schema, with every error at once (a 400 naming each field), and
   * returns what to store.
   */
  prepare(context: PrepareContext<Config>, input: Input): Promise<PreparedService<Config>>
  /**
   * The create input of a copy of `source` named `name`: its stored configuration as a request
   * would give it, which `authorize` and `prepare` then check again as a create in the target
   * environment. What identifies the source (port and storage ids, a database's id and
   * credentials) is left out or made anew.
   */
  cloneInput(source: ServiceRecord<Config>, name: string, context: CloneInputContext): Input
  /** What a deploy request asks that this configuration cannot give. */
  overrideErrors(configuration: Config, overrides: Overrides): FieldError[]
  /**
   * Resolves what a trigger asked (a commit id, nothing for a branch's head) into what the
   * deployment builds (the commit as the provider describes it), before the snapshot and the
   * history entry are written: they keep what this returns. Runs outside any lock, and may call
   * out (a git provider); what it throws is the trigger's answer, and nothing is queued.
   */
  resolveOverrides?(configuration: Config, overrides: Overrides, context: ResolveContext): Promise<Overrides>
  /** The history entry's `details` (contract 2.7) of a deployment of this configuration. */
  details(configuration: Config, overrides: Overrides, deployment?: DetailsContext): Record<string, unknown>
  iconUri(configuration: Config): string
  /** What its part of a deployment runs, for the history's `sub_action` (an IAC service's plan, apply, destroy); absent: NONE. */
  subAction?(configuration: Config, overrides: Overrides, trigger: RunnableTrigger): ServiceSubAction
  /** Whether the simulated executor fails this action (docs/deployments.md, "Simulated deployments"). */
  simulatesFailure(configuration: Config, trigger: RunnableTrigger): boolean
  /** What a git push's deploy asks beyond its commit (an IAC service's `auto_deploy_config.terraform_action` PLAN: plan only). */
  pushOverrides?(configuration: Config): Overrides
  /** The git branch this configuration builds or takes its chart from; undefined when none (an image, a chart repository). */
  followedBranch?(configuration: Config): FollowedBranch | undefined
  /** The configuration building `branch` of the same repository instead (a pull request's preview, docs/previews.md); with followedBranch. */
  onBranch?(configuration: Config, branch: string): Config
  /** What an executor does for `action`, step by step, as it reports it; never a secret value. */
  plan(snapshot: ServiceSnapshot<Config>, action: RunnableTrigger): PlannedStep[]
  /** Its table of advanced settings, which the registry takes from its descriptor (`features.advancedSettings`); absent: it has none. */
  advancedSettings?: Settings
  /** How its services run on a schedule, when they may (cron firing); absent: never scheduled. */
  schedule?: KindSchedule<Config, Overrides>
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds kinds of every configuration type
export type AnyServiceKind = ServiceKind<any, any, any>

/** The kinds Berth serves, by type. */
export type ServiceKinds = ReadonlyMap<ServiceType, AnyServiceKind>

export function serviceKinds(...kinds: AnyServiceKind[]): ServiceKinds {
  return new Map(kinds.map((kind) => [kind.type, kind]))
}
