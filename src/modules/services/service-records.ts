import type { ResolvedReference, ServiceRecord } from './service-kinds.ts'
import { serviceEntityTag } from './services.service.ts'

// What every kind's record (what its wire mapping reads) takes from the core's record.

/** The core's columns in a kind's record. */
export interface CoreRecord {
  id: string
  organizationId: string
  environmentId: string
  name: string
  createdAt: Date
  updatedAt: Date
  /** Names this representation (ETag): its version and the names of what it references. */
  entityTag: string
}

/** A record of a kind that references git tokens: their names, by id. */
export interface GitTokenNames {
  gitTokenNames: Record<string, string>
}

/** The service's configuration spread, with the core's columns (not its version: a database's configuration has its own). */
export const coreRecordFields = <Config>(service: ServiceRecord<Config>) => ({
  ...service.configuration,
  id: service.id,
  organizationId: service.organizationId,
  environmentId: service.environmentId,
  name: service.name,
  createdAt: service.createdAt,
  updatedAt: service.updatedAt,
  entityTag: serviceEntityTag(service),
})

/** The names of the git tokens the service references, by id. */
export function gitTokenNamesOf(references: readonly ResolvedReference[]): Record<string, string> {
  const names: Record<string, string> = {}
  for (const reference of references) if (reference.gitTokenId) names[reference.gitTokenId] = reference.name
  return names
}
