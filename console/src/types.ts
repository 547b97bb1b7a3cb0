// The API's shapes, by the operation that answers them: every type here is taken from the types
// openapi-typescript made of /openapi.json (generated/api.ts, scripts/console-generate.ts), so a
// change of the API shows as a type error here rather than as a wrong page.
import type { operations } from './generated/api.ts'

// The server's ordering of roles, so that the console hides exactly the buttons the API would refuse.
export { hasRole, type Role } from '../../src/platform/auth/roles.ts'

type Operation = keyof operations

/** The JSON an operation answers with `status` (200 unless told). */
export type Answer<Op extends Operation, Status extends number = 200> = operations[Op]['responses'] extends infer R
  ? Status extends keyof R
    ? R[Status] extends { content: { 'application/json': infer Body } }
      ? Body
      : never
    : never
  : never

/** The JSON body an operation takes. */
export type RequestOf<Op extends Operation> =
  NonNullable<operations[Op]['requestBody']> extends { content: { 'application/json': infer Body } } ? Body : never

/** One item of a list an operation answers (`results`). */
export type ItemOf<Op extends Operation, Status extends number = 200> = Answer<Op, Status> extends { results: (infer Item)[] } ? Item : never

type KeysOfUnion<U> = U extends unknown ? keyof U : never
/** Every member any variant of a union has, each optional: for reading a variant without telling which it is first. */
export type Merged<U> = { [K in KeysOfUnion<U>]?: U extends { [P in K]?: infer V } ? V : never }

export interface List<T> {
  results: T[]
}

export type Organization = Answer<'getOrganization'>
export type Project = Answer<'getProject'>
export type Environment = Answer<'getEnvironment'>
/** Berth extension: `GET /organization/{id}/currentRole`. */
export type CurrentRole = Answer<'getOrganizationCurrentRole'>

export type HistoryPage = Answer<'listEnvironmentDeploymentHistoryV2'>
export type DeploymentEntry = HistoryPage['results'][number]
export type Stage = DeploymentEntry['stages'][number]
/** A service's entry of a deployment, in an environment's history or a service's own. */
export type ServiceEntry = Stage['services'][number] | ItemOf<'listContainerDeploymentHistoryV2'>
export type ServiceDetails = Merged<ServiceEntry['details']>
export type Commit = NonNullable<ServiceDetails['commit']>
/** An entry's details, whichever kind's variant they are. */
export const detailsOf = (entry: ServiceEntry): ServiceDetails => entry.details as ServiceDetails

/** What the console reads of any kind's service in `GET /environment/{id}/services`. */
export type ServiceSummary = ItemOf<'listServicesByEnvironmentId'>
export type DeploymentStage = ItemOf<'ListEnvironmentDeploymentStage'>
export type StageService = DeploymentStage['services'][number]
export type StagesStatuses = Answer<'getEnvironmentStatusesWithStages'>
export type ServiceStatus = Answer<'getContainerStatus'>

/** A line of a deployment's logs: `GET /environment/{id}/logs` and each event of `…/logs/follow`. */
export type LogLine = Answer<'listEnvironmentLogs'>[number]

export type Variable = ItemOf<'listVariables'>
export type LinkedVariable = NonNullable<Variable['aliased_variable']>

export type HelmService = Answer<'getHelm'>
export type GitRepository = Extract<HelmService['source'], { git: unknown }>['git']['git_repository']
export type KeyValues = string[][]
export type RawValuesFile = NonNullable<NonNullable<HelmService['values_override']['file']>['raw']>['values'][number]

export type Link = ItemOf<'listContainerLinks'>
export type CustomDomain = ItemOf<'listContainerCustomDomain'>
export type Registry = ItemOf<'listContainerRegistry'>
export type HelmRepository = ItemOf<'listHelmRepository'>
export type GitToken = ItemOf<'listOrganizationGitTokens'>
export type Preview = ItemOf<'listEnvironmentPreviews'>
export type TerraformResource = ItemOf<'getTerraformResources'>
