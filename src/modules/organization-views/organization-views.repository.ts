import { sql } from 'kysely'
import { type AssociatedServiceRow, listServicesUsing } from '#src/modules/organization-credentials/associated-services.repository.ts'
import type { Db } from '#src/platform/db/database.ts'
import { orderedByPlace } from '#src/platform/db/service-place.ts'

export type { AssociatedServiceRow }

// What the organization's own views read across its projects, environments and services: one
// query each, scoped by the organization (or the project) first.

export type OnboardingStatus = 'IN_PROGRESS' | 'DISMISSED' | 'COMPLETED'

export interface ServiceFilters {
  projectId?: string
  environmentId?: string
  clusterId?: string
}

export interface ServiceLightRow {
  id: string
  name: string
  kind: string
  description: string | null
  iconUri: string | null
  jobSchedule: string | null
  projectId: string
  projectName: string
  environmentId: string
  environmentName: string
  environmentMode: string
  clusterId: string
}

/** `cronjob` or `lifecycle`: which of the two a job's stored schedule holds. */
const jobSchedule = sql<string | null>`case when s.kind = 'JOB' then (select k from jsonb_object_keys(s.configuration->'schedule') k limit 1) end`

export function createOrganizationViewsRepository(db: Db) {
  const servicesOf = (organizationId: string) =>
    db
      .selectFrom('services as s')
      .innerJoin('environments as e', 'e.id', 's.environmentId')
      .innerJoin('projects as p', 'p.id', 'e.projectId')
      .where('s.organizationId', '=', organizationId)

  return {
    /** The organization's services with their project, environment and cluster, by project, environment and service name. */
    listServices(organizationId: string, filters: ServiceFilters, limit: number): Promise<ServiceLightRow[]> {
      let query = servicesOf(organizationId)
      if (filters.projectId) query = query.where('p.id', '=', filters.projectId)
      if (filters.environmentId) query = query.where('e.id', '=', filters.environmentId)
      if (filters.clusterId) query = query.where('e.clusterId', '=', filters.clusterId)
      return orderedByPlace(
        query.select([
          's.id',
          's.name',
          's.kind',
          sql<string | null>`s.configuration->>'description'`.as('description'),
          sql<string | null>`s.configuration->>'iconUri'`.as('iconUri'),
          jobSchedule.as('jobSchedule'),
          'p.id as projectId',
          'p.name as projectName',
          'e.id as environmentId',
          'e.name as environmentName',
          'e.mode as environmentMode',
          'e.clusterId',
        ]),
      )
        .limit(limit)
        .execute()
    },

    /** The organization's environments, by project and name. */
    listEnvironments(organizationId: string, limit: number) {
      return db
        .selectFrom('environments as e')
        .innerJoin('projects as p', 'p.id', 'e.projectId')
        .where('e.organizationId', '=', organizationId)
        .select(['e.id', 'e.name', 'e.mode', 'e.projectId', 'e.clusterId', 'e.createdAt', 'e.updatedAt'])
        .orderBy('p.name')
        .orderBy('e.name')
        .orderBy('e.id')
        .limit(limit)
        .execute()
    },

    /** Each environment of the organization (or of one project) with its cluster and its services' kinds. */
    environmentsWithServices(organizationId: string, projectId?: string) {
      let query = db.selectFrom('environments as e').innerJoin('clusters as c', 'c.id', 'e.clusterId').where('e.organizationId', '=', organizationId)
      if (projectId) query = query.where('e.projectId', '=', projectId)
      return query
        .select([
          'e.id',
          'e.name',
          'e.mode',
          'e.projectId',
          'e.clusterId',
          'e.createdAt',
          'e.updatedAt',
          'c.name as clusterName',
          'c.cloudProvider',
          sql<string[]>`coalesce((select array_agg(s.kind) from services s where s.environment_id = e.id), '{}')`.as('serviceKinds'),
        ])
        .orderBy('e.name')
        .orderBy('e.id')
        .execute()
    },

    /** The organization's projects' ids, by name. */
    async listProjectIds(organizationId: string): Promise<string[]> {
      const rows = await db.selectFrom('projects').select('id').where('organizationId', '=', organizationId).orderBy('name').orderBy('id').execute()
      return rows.map((row) => row.id)
    },

    /** Where the organization's onboarding stands; undefined when there is no such organization. */
    async onboardingStatus(organizationId: string): Promise<OnboardingStatus | undefined> {
      const row = await db.selectFrom('organizations').select('onboardingStatus').where('id', '=', organizationId).executeTakeFirst()
      return row?.onboardingStatus as OnboardingStatus | undefined
    },

    async setOnboardingStatus(organizationId: string, status: OnboardingStatus): Promise<OnboardingStatus | undefined> {
      const row = await db
        .updateTable('organizations')
        .set({ onboardingStatus: status })
        .where('id', '=', organizationId)
        .returning('onboardingStatus')
        .executeTakeFirst()
      return row?.onboardingStatus as OnboardingStatus | undefined
    },

    /** The organization's custom roles, by name. */
    listCustomRoles(organizationId: string, limit: number) {
      return db
        .selectFrom('customRoles')
        .select(['id', 'name'])
        .where('organizationId', '=', organizationId)
        .orderBy(sql`lower(name)`)
        .orderBy('id')
        .limit(limit)
        .execute()
    },

    /** The services that reference the git token or the helm repository, with their environment and project, by name. */
    listAssociatedServices(
      organizationId: string,
      reference: { gitTokenId: string } | { helmRepositoryId: string },
      limit: number,
    ): Promise<AssociatedServiceRow[]> {
      return listServicesUsing(db, organizationId, reference, limit)
    },
  }
}

export type OrganizationViewsRepository = ReturnType<typeof createOrganizationViewsRepository>
