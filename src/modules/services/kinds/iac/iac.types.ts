import type { GitRepositoryInput, GitRepositoryRef } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { CoreRecord, GitTokenNames } from '#src/modules/services/service-records.ts'
import type { AutoDeployAction, IacEngine } from './iac.schemas.ts'

// The IAC service (the reference's "terraform") as the service layer and the database see it:
// camelCase records, stored as the service's JSON configuration.

/** A Terraform input variable: a secret's value is sealed (base64 of the SecretBox's bytes), never stored in clear. */
export type IacVariable = { key: string; secret: false; value: string } | { key: string; secret: true; sealed: string }

/** An input variable as the request gives it: a secret's value may be left out to keep the one stored. */
export interface IacVariableInput {
  key: string
  secret: boolean
  value: string | undefined
}

/** Where the engine keeps its state: the cluster's (Berth's) store, the repository's own backend, or a blueprint's. */
export type IacBackend =
  | { kubernetes: Record<string, never> }
  | { userProvided: Record<string, never> }
  | { blueprint: { type: string; config: Record<string, string> } }

export type DockerfileFragment = { type: 'file'; path: string } | { type: 'inline'; content: string }

export interface IacJobResources {
  cpuMilli: number
  ramMib: number
  gpu: number
  storageGib: number
}

/** Everything a create or a full edit sets; the git repository as the request named it. */
export interface IacServiceInput<Repository = GitRepositoryInput, Variable = IacVariableInput> {
  name: string
  description: string | null
  autoDeploy: boolean
  autoDeployAction: AutoDeployAction
  git: Repository
  tfVarFilePaths: string[]
  tfVars: Variable[]
  backend: IacBackend
  engine: IacEngine
  engineVersion: string
  readFromTerraformBlock: boolean
  timeoutSec: number
  iconUri: string
  jobResources: IacJobResources
  useClusterCredentials: boolean
  actionExtraArguments: Record<string, string[]>
  dockerfileFragment: DockerfileFragment | null
  blueprintId: string | null
}

/** An IAC service's stored configuration: everything but its name, which the service core keeps. */
export type IacConfig = Omit<IacServiceInput<GitRepositoryRef, IacVariable>, 'name'>

/** A stored IAC service with the names of what it references, as reads return it. */
export interface IacServiceRecord extends IacConfig, CoreRecord, GitTokenNames {
  version: number
}
