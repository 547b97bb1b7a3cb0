import type { GitRepositoryInput, GitRepositoryRef } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { CoreRecord, GitTokenNames } from '#src/modules/services/service-records.ts'
import type { PortProtocol } from './helm.schemas.ts'

// The helm service as the service layer and the database see it: camelCase records, stored as
// JSON in the columns of the same names.

/** A git repository as a request names it. */

export type HelmSource<Repository = GitRepositoryRef> =
  | { git: Repository }
  | { helmRepository: { repositoryId: string; chartName: string; chartVersion: string } }

export type KeyValue = [string, string]

export interface ValuesOverride<Repository = GitRepositoryRef> {
  set: KeyValue[]
  setString: KeyValue[]
  setJson: KeyValue[]
  file: null | { git: { repository: Repository; paths: string[] } } | { raw: { values: { name: string; content: string }[] } }
}

export interface HelmPort {
  /** Kept across edits for a port of the same name. */
  id: string
  name: string
  internalPort: number
  externalPort: number
  namespace: string | null
  protocol: PortProtocol
  isDefault: boolean
  /** Exactly one of serviceName and serviceSelectors is set. */
  serviceName: string | null
  serviceSelectors: { key: string; value: string }[] | null
}

export type HelmPortInput = Omit<HelmPort, 'id'>

/** Everything a create or a full edit sets; git repositories as the request named them. */
export interface HelmServiceInput<Repository = GitRepositoryInput, Port = HelmPortInput> {
  name: string
  description: string | null
  timeoutSec: number
  /** Null: take the environment's value. */
  autoPreview: boolean | null
  autoDeploy: boolean
  source: HelmSource<Repository>
  arguments: string[]
  allowClusterWideResources: boolean
  valuesOverride: ValuesOverride<Repository>
  ports: Port[]
  iconUri: string
  blueprintId: string | null
}

/** A helm service's stored configuration: everything but its name, which the service core keeps. */
export interface HelmConfig extends Omit<HelmServiceInput<GitRepositoryRef, HelmPort>, 'autoPreview' | 'name'> {
  autoPreview: boolean
}

/** A stored helm service with the names of what it references, as reads return it. */
export interface HelmServiceRecord extends Omit<HelmServiceInput<GitRepositoryRef, HelmPort>, 'autoPreview'>, CoreRecord, GitTokenNames {
  autoPreview: boolean
  version: number
  helmRepository: { id: string; name: string; url: string | null } | null
}
