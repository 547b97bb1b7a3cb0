import type { RunnableTrigger, ServiceType } from '#src/modules/deployments/deployment-states.ts'
import type { SnapshotVariable } from '#src/modules/variables/resolved-variables.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import type { FieldError } from '#src/platform/http/errors.ts'

// How a kind of service plugs into the one service core (docs/architecture.md, "Adding a kind").
// The core owns names, access, organization scoping, stages, versions, references, triggers,
// statuses and history; a kind owns its configuration and what deploying it means.

/** Something a configuration points at, kept as a foreign key so that it is counted and cannot vanish under the service. */
export type ServiceReference = { field: string } & ({ gitTokenId: string } | { helmRepositoryId: string })

/** A reference as reads return it, with the name (and address) of what it points at. */
export interface ResolvedReference {
  field: string
  gitTokenId: string | null
  helmRepositoryId: string | null
  name: string
  url: string | null
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
  name: string
  configuration: Config
  references: ServiceReference[]
}

/** What a kind may look up in other modules while it checks a write. */
export interface ServiceLookups {
  findGitToken(organizationId: string, gitTokenId: string): Promise<{ type: string } | undefined>
  findHelmRepository(organizationId: string, helmRepositoryId: string): Promise<object | undefined>
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

/** A service as a deployment deploys it: fixed at the trigger, whatever is edited after. */
export interface ServiceSnapshot<Config = unknown> {
  serviceId: string
  kind: ServiceType
  name: string
  version: number
  configuration: Config
  /** What the trigger asked for beyond the configuration (a chart version, a commit). */
  overrides: Record<string, unknown>
  /** The variables it deploys with, resolved as of the trigger; secrets still sealed. */
  variables: SnapshotVariable[]
  /** Names the variable rows they came from (berth_service_variables_fingerprint). */
  variablesFingerprint: string
}

/** A step of what an executor does to a service, with the lines it reports. */
export interface PlannedStep {
  step: string
  lines: string[]
  /** Why the service cannot be deployed, found while planning: the executor reports the lines, then fails with this. */
  failure?: string
}

/**
 * One kind of service. `Input` is what its routes hand the core after validation; `Config` what is
 * stored; `Overrides` what a deploy request may add (a chart version, a commit).
 */
export interface ServiceKind<Input = unknown, Config = unknown, Overrides extends object = Record<string, unknown>> {
  type: ServiceType
  /** How errors name one: "helm not found". */
  noun: string
  /** The request field that holds each reference `field`, for errors about it. */
  referencePaths: Record<string, string>
  /** Throws `forbidden` for what the caller's role may not set; checked before anything else of a write. */
  authorize(context: PrepareContext<Config>, input: Input): void
  /**
   * Checks a write beyond its schema, with every error at once (a 400 naming each field), and
   * returns what to store.
   */
  prepare(context: PrepareContext<Config>, input: Input): Promise<PreparedService<Config>>
  /** What a deploy request asks that this configuration cannot give. */
  overrideErrors(configuration: Config, overrides: Overrides): FieldError[]
  /** The history entry's `details` (contract 2.7) of a deployment of this configuration. */
  details(configuration: Config, overrides: Overrides): Record<string, unknown>
  iconUri(configuration: Config): string
  /** Whether the simulated executor fails this action (README, "Simulated deployments"). */
  simulatesFailure(configuration: Config, trigger: RunnableTrigger): boolean
  /** What an executor does for `action`, step by step, as it reports it; never a secret value. */
  plan(snapshot: ServiceSnapshot<Config>, action: RunnableTrigger): PlannedStep[]
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds kinds of every configuration type
export type AnyServiceKind = ServiceKind<any, any, any>

/** The kinds Berth serves, by type. */
export type ServiceKinds = ReadonlyMap<ServiceType, AnyServiceKind>

export function serviceKinds(...kinds: AnyServiceKind[]): ServiceKinds {
  return new Map(kinds.map((kind) => [kind.type, kind]))
}
