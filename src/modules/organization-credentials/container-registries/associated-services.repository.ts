import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'

/** The services that use a registry, with their environment and project, by name; the registry's organization only. */
export function listRegistryServices(db: Db, organizationId: string, containerRegistryId: string, limit: number) {
  return db
    .selectFrom('serviceReferences as r')
    .innerJoin('services as s', 's.id', 'r.serviceId')
    .innerJoin('environments as e', 'e.id', 's.environmentId')
    .innerJoin('projects as p', 'p.id', 'e.projectId')
    .where('r.containerRegistryId', '=', containerRegistryId)
    .where('s.organizationId', '=', organizationId)
    .select([
      'p.id as projectId',
      'p.name as projectName',
      'e.id as environmentId',
      'e.name as environmentName',
      's.id as serviceId',
      's.name as serviceName',
      's.kind as serviceKind',
      sql<string | null>`s.configuration->>'jobType'`.as('jobType'),
    ])
    .distinct()
    .orderBy('p.name')
    .orderBy('e.name')
    .orderBy('s.name')
    .orderBy('s.id')
    .limit(limit)
    .execute()
}
