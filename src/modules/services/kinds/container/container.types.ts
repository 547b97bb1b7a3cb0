import type { Probe } from '#src/modules/executors/workload.ts'
import type { PortProtocol } from '#src/modules/services/kind-schemas.ts'
import type { AttachedGroups } from '#src/modules/services/service-groups.ts'
import type { CoreRecord } from '#src/modules/services/service-records.ts'
import type { ServicePort } from '#src/modules/services/service-responses.ts'
import type { CpuArchitecture } from './container.schemas.ts'

// The container service as the service layer and the database see it: camelCase records, stored as
// JSON in the service core's configuration column.

/** A probe as executors check it (executors/workload.ts). */
export type { Probe }

/**
 * Its id is kept across edits: the id the request names when it is one of the service's, else the
 * id of the port of the same name; `externalPort` is null for a port that is not public and names none.
 */
export type ContainerPort = ServicePort<PortProtocol>

export type ContainerPortInput = Omit<ContainerPort, 'id'> & { id: string | null }

export interface ContainerStorage {
  id: string
  type: 'FAST_SSD'
  sizeGb: number
  mountPoint: string
}

export type ContainerStorageInput = Omit<ContainerStorage, 'id'> & { id: string | null }

export interface Healthchecks {
  readinessProbe: Probe | null
  livenessProbe: Probe | null
}

/** Everything a create or a full edit sets. */
export interface ContainerServiceInput<Port = ContainerPortInput, Storage = ContainerStorageInput> {
  name: string
  description: string | null
  registryId: string
  imageName: string
  tag: string
  arguments: string[]
  entrypoint: string | null
  cpu: number
  memory: number
  gpu: number
  ephemeralStorageInGib: number | null
  cpuArchitecture: CpuArchitecture | null
  minRunningInstances: number
  maxRunningInstances: number
  healthchecks: Healthchecks
  /** Null: take the environment's value. */
  autoPreview: boolean | null
  autoDeploy: boolean
  ports: Port[]
  storage: Storage[]
  iconUri: string
}

/** A container service's stored configuration: everything but its name, which the service core keeps. */
export interface ContainerConfig extends Omit<ContainerServiceInput<ContainerPort, ContainerStorage>, 'autoPreview' | 'name'> {
  autoPreview: boolean
}

/** A stored container service with its registry, as reads return it. */
export interface ContainerServiceRecord extends ContainerConfig, CoreRecord {
  /** The labels and annotations groups attached to it, in response shapes. */
  groups: AttachedGroups
  version: number
  registry: { id: string; name: string; url: string; kind: string }
}
