import type { ServiceGroupIds } from '#src/modules/services/service-groups.ts'
import { attachedGroups } from '#src/modules/services/service-groups.ts'
import type { ServiceKind, ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { coreRecordFields } from '#src/modules/services/service-records.ts'
import { type FieldError, validationFailed } from '#src/platform/http/errors.ts'
import type { ContainerConfig, ContainerPort, ContainerServiceInput, ContainerServiceRecord, ContainerStorage } from './container.types.ts'
import { type ContainerDeployOverrides, containerPlanning } from './container-deployments.ts'

/**
 * A write as the route validated it: the service's input plus the field errors of the request's
 * own rules, reported together with the errors only the database can find, after access checks.
 */
export interface ContainerWrite {
  input: ContainerServiceInput
  ruleErrors: FieldError[]
  /** The labels and annotations groups the request attaches (service-groups.ts). */
  groups?: ServiceGroupIds
}

/** The request field that holds the registry reference. */
const REFERENCE_PATHS = { registry: '/registry_id' }

/**
 * Ports keep their id across edits: the id the request names when it is one of the service's
 * (the reference: "if you provide a port id, we will update the corresponding port"), else the id
 * of the port of the same name; otherwise a new one.
 */
function withPortIds(ports: ContainerServiceInput['ports'], previous: ContainerPort[] = []): ContainerPort[] {
  const known = new Set(previous.map((port) => port.id))
  const idByName = new Map(previous.map((port) => [port.name, port.id]))
  const taken = new Set(ports.flatMap((port) => (port.id && known.has(port.id) ? [port.id] : [])))
  return ports.map(({ id, ...port }) => {
    if (id && known.has(id)) return { id, ...port }
    const byName = idByName.get(port.name)
    const kept = byName && !taken.has(byName) ? byName : crypto.randomUUID()
    taken.add(kept)
    return { id: kept, ...port }
  })
}

/** Storage keeps its id when the request names one of the service's; otherwise it is new. */
function withStorageIds(storage: ContainerServiceInput['storage'], previous: ContainerStorage[] = []): ContainerStorage[] {
  const known = new Set(previous.map((volume) => volume.id))
  return storage.map(({ id, ...volume }) => ({ id: id && known.has(id) ? id : crypto.randomUUID(), ...volume }))
}

/** A container as its wire mapping reads it: the core's record with the configuration spread and its registry. */
export function toContainerRecord(service: ServiceRecord<ContainerConfig>): ContainerServiceRecord {
  const reference = service.references.find((candidate) => candidate.containerRegistryId)
  return {
    ...coreRecordFields(service),
    groups: attachedGroups(service.references),
    version: service.version,
    registry: {
      id: service.configuration.registryId,
      name: reference?.name ?? '',
      url: reference?.url ?? '',
      kind: reference?.registryKind ?? 'GENERIC_CR',
    },
  }
}

/** The container kind of service (reference ContainerRequest / ContainerResponse; contract 2.7 container details). */
export const containerKind: ServiceKind<ContainerWrite, ContainerConfig, ContainerDeployOverrides> = {
  ...containerPlanning,
  noun: 'container',
  longRunning: true,
  referencePaths: REFERENCE_PATHS,

  async prepare({ organizationId, lookups, environment, previous }, { input, ruleErrors }) {
    const errors = [...ruleErrors]
    if (!(await lookups.findContainerRegistry(organizationId, input.registryId))) {
      errors.push({ path: '/registry_id', message: 'no container registry with this id in the organization', location: 'body' })
    }
    if (errors.length > 0) throw validationFailed(errors)
    const { name, autoPreview, ...rest } = input
    const configuration: ContainerConfig = {
      ...rest,
      autoPreview: autoPreview ?? environment.autoPreview,
      ports: withPortIds(input.ports, previous?.configuration.ports),
      storage: withStorageIds(input.storage, previous?.configuration.storage),
    }
    return { name, configuration, references: [{ field: 'registry', containerRegistryId: input.registryId }] }
  },

  cloneInput({ configuration }, name) {
    const ports = configuration.ports.map((port) => ({ ...port, id: null }))
    const storage = configuration.storage.map((volume) => ({ ...volume, id: null }))
    return { input: { ...configuration, name, ports, storage }, ruleErrors: [] }
  },
}
