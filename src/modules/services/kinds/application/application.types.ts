import type { GitCommit } from '#src/modules/git-providers/git-provider-adapter.ts'
import type { GitRepositoryInput, GitRepositoryRef } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { PortProtocol } from '#src/modules/services/kind-schemas.ts'
import type { AttachedGroups } from '#src/modules/services/service-groups.ts'
import type { CoreRecord, GitTokenNames } from '#src/modules/services/service-records.ts'
import type { ServicePort } from '#src/modules/services/service-responses.ts'

// The application as the service layer and the database see it: camelCase records, stored as JSON
// in the service's configuration.

/**
 * Its id is kept across edits for a port named by its id, else by its name; `externalPort` is null
 * when none was given and none defaulted (a port that is not public, or a TCP or UDP one).
 */
export type ApplicationPort = ServicePort<PortProtocol>

/** A port as a request names it: `requestedId` is the id it gave, which may name no port. */
export type ApplicationPortInput = Omit<ApplicationPort, 'id'> & { requestedId: string | null }

export interface ApplicationStorage {
  /** Kept across edits for a storage named by its id, else by its mount point. */
  id: string
  type: 'FAST_SSD'
  size: number
  mountPoint: string
}

export type ApplicationStorageInput = Omit<ApplicationStorage, 'id'> & { requestedId: string | null }

/** A probe as the reference's `Probe` shapes it (snake_case: it is stored and answered as given, defaults filled in). */
export interface Probe {
  type: {
    tcp?: { port?: number; host?: string | null } | null
    http?: { path: string; scheme: string; port?: number } | null
    exec?: { command: string[] } | null
    grpc?: { service?: string | null; port?: number } | null
  }
  initial_delay_seconds: number
  period_seconds: number
  timeout_seconds: number
  success_threshold: number
  failure_threshold: number
}

export interface Healthchecks {
  readiness_probe: Probe | null
  liveness_probe: Probe | null
}

/** Everything a create or a full edit sets; on an edit, a null name or repository keeps the current one. */
export interface ApplicationInput<Repository = GitRepositoryInput | null, Port = ApplicationPortInput, Storage = ApplicationStorageInput> {
  name: string | null
  description: string | null
  gitRepository: Repository
  buildMode: 'DOCKER'
  dockerfilePath: string | null
  dockerTargetBuildStage: string | null
  cpu: number
  memory: number
  gpu: number
  ephemeralStorageInGib: number | null
  cpuArchitecture: 'AMD64' | 'ARM64' | null
  minRunningInstances: number
  maxRunningInstances: number
  healthchecks: Healthchecks
  /** Null: take the environment's value. */
  autoPreview: boolean | null
  autoDeploy: boolean
  arguments: string[]
  entrypoint: string | null
  iconUri: string
  ports: Port[]
  storage: Storage[]
}

/** An application's stored configuration: everything but its name, which the service core keeps. */
export interface ApplicationConfig extends Omit<ApplicationInput<GitRepositoryRef, ApplicationPort, ApplicationStorage>, 'name' | 'autoPreview'> {
  autoPreview: boolean
}

/** What an application deploy asks beyond the configuration, and (once the trigger resolved it) the commit it builds. */
export interface ApplicationDeployOverrides {
  /** The commit the request named; absent: the branch's head at the trigger. */
  gitCommitId?: string | undefined
  /** The commit as the provider described it when the deployment was queued. */
  commit?: GitCommit | undefined
}

/** A stored application with the names of what it references, as reads return it. */
export interface ApplicationRecord extends ApplicationConfig, CoreRecord, GitTokenNames {
  /** The labels and annotations groups attached to it, in response shapes. */
  groups: AttachedGroups
  version: number
  /** The commit its last successful deploy or redeploy built, when known. */
  deployedCommit: GitCommit | null
}
