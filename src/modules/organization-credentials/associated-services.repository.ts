import { sql } from 'kysely'
import type { AssociatedServicePlace } from '#src/platform/associated-services.ts'
import type { Db } from '#src/platform/db/database.ts'
import { orderedByPlace, SERVICE_PLACE_COLUMNS } from '#src/platform/db/service-place.ts'

// The services that use one of the organization's credentials: the same list for git tokens, helm
// repositories and container registries, read from `service_references`.

/** The credential whose services are listed: one column of `service_references`. */
export type CredentialReference = { gitTokenId: string } | { helmRepositoryId: string } | { containerRegistryId: string }

export interface AssociatedServiceRow extends AssociatedServicePlace {
  /** The service's kind; a job's is its job type, CRON or LIFECYCLE, by the schedule it holds. */
  serviceType: string
}

const serviceType = sql<string>`case when s.kind <> 'JOB' then s.kind when s.configuration->'schedule' ? 'lifecycle' then 'LIFECYCLE' else 'CRON' end`

/** The services that reference the credential, with their environment and project, by name; the credential's organization only. */
export function listServicesUsing(db: Db, organizationId: string, reference: CredentialReference, limit: number): Promise<AssociatedServiceRow[]> {
  const query = db
    .selectFrom('serviceReferences as r')
    .innerJoin('services as s', 's.id', 'r.serviceId')
    .innerJoin('environments as e', 'e.id', 's.environmentId')
    .innerJoin('projects as p', 'p.id', 'e.projectId')
    .where('s.organizationId', '=', organizationId)
  const referencing =
    'gitTokenId' in reference
      ? query.where('r.gitTokenId', '=', reference.gitTokenId)
      : 'helmRepositoryId' in reference
        ? query.where('r.helmRepositoryId', '=', reference.helmRepositoryId)
        : query.where('r.containerRegistryId', '=', reference.containerRegistryId)
  return orderedByPlace(referencing.select(SERVICE_PLACE_COLUMNS).select(serviceType.as('serviceType')).distinct())
    .limit(limit)
    .execute()
}
