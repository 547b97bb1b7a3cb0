import { sql } from 'kysely'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { hasRow } from '#src/platform/db/rows-by-keys.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import type { CloudCredentialsDb } from './cloud-credentials.tables.ts'

// The organization's on-premise credentials (docs/cloud-credentials.md): the one cloud-provider
// credential family a self-hosted platform counts. They hold a name only (the reference's
// OnPremiseCredentialsRequest); a cluster uses them when its cloud provider info names their id
// (specifyClusterCloudProviderInfo), and credentials a cluster uses are not deleted.

interface Deps {
  db: CloudCredentialsDb
  organizations: Pick<OrganizationsService, 'requireRole'>
}

export interface CredentialsRecord {
  id: string
  name: string
}

export interface CredentialsWithClusters {
  credential: CredentialsRecord
  clusters: { id: string; name: string; cloudProvider: string }[]
}

const nameTaken = (name: string) => new AppError('conflict', `on-premise credentials named "${name}" already exist in this organization`)

/** The clusters of the organization whose cloud provider info names credentials `id` (a text id in its JSON). */
const namedBy = (db: CloudCredentialsDb, organizationId: string) =>
  db
    .selectFrom('clusters')
    .select(['id', 'name', 'cloudProvider', sql<string>`cloud_provider_info -> 'credentials' ->> 'id'`.as('credentialsId'), 'cloudProviderInfo'])
    .where('organizationId', '=', organizationId)
    .where(sql<boolean>`cloud_provider_info -> 'credentials' ->> 'id' is not null`)

export function createCloudCredentialsService({ db, organizations }: Deps) {
  const columns = ['id', 'name'] as const

  async function find(organizationId: string, credentialsId: string): Promise<CredentialsRecord> {
    const row = await db
      .selectFrom('onPremiseCredentials')
      .select(columns)
      .where('organizationId', '=', organizationId)
      .where('id', '=', credentialsId)
      .executeTakeFirst()
    if (!row) throw notFound('credentials')
    return row
  }

  /** The organization's credentials by name, the first 1,000. */
  const listByName = (organizationId: string): Promise<CredentialsRecord[]> =>
    db
      .selectFrom('onPremiseCredentials')
      .select(columns)
      .where('organizationId', '=', organizationId)
      .orderBy(sql`lower(name)`)
      .orderBy('id')
      .limit(1000)
      .execute()

  return {
    /** READ; by name. */
    async list(principal: Principal, organizationId: string): Promise<CredentialsRecord[]> {
      await organizations.requireRole(principal, organizationId, 'READ')
      return listByName(organizationId)
    },

    async get(principal: Principal, organizationId: string, credentialsId: string): Promise<CredentialsRecord> {
      await organizations.requireRole(principal, organizationId, 'READ')
      return find(organizationId, credentialsId)
    },

    /** WRITE; names are unique in the organization, case aside (409). */
    async create(principal: Principal, organizationId: string, name: string): Promise<CredentialsRecord> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      return whenParentGone(
        () => notFound('organization'),
        () =>
          withUniqueName(
            'on_premise_credentials_name_key',
            () => nameTaken(name),
            () => db.insertInto('onPremiseCredentials').values({ organizationId, name }).returning(columns).executeTakeFirstOrThrow(),
          ),
      )
    },

    /** WRITE; the name is the whole of them. The clusters naming them keep naming them (by id). */
    async edit(principal: Principal, organizationId: string, credentialsId: string, name: string): Promise<CredentialsRecord> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      const row = await withUniqueName(
        'on_premise_credentials_name_key',
        () => nameTaken(name),
        () =>
          db
            .updateTable('onPremiseCredentials')
            .set({ name, updatedAt: new Date() })
            .where('organizationId', '=', organizationId)
            .where('id', '=', credentialsId)
            .returning(columns)
            .executeTakeFirst(),
      )
      if (!row) throw notFound('credentials')
      return row
    },

    /** WRITE; refused with 409 while a cluster's cloud provider info names them, in the same statement as the check. */
    async delete(principal: Principal, organizationId: string, credentialsId: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'WRITE')
      await find(organizationId, credentialsId)
      const deleted = await db
        .deleteFrom('onPremiseCredentials')
        .where('organizationId', '=', organizationId)
        .where('id', '=', credentialsId)
        .where(({ not, exists }) =>
          not(
            exists(
              db
                .selectFrom('clusters')
                .select('id')
                .where('organizationId', '=', organizationId)
                .where(sql<boolean>`cloud_provider_info -> 'credentials' ->> 'id' = ${credentialsId}`),
            ),
          ),
        )
        .returning('id')
        .executeTakeFirst()
      if (deleted) return
      const users = (await namedBy(db, organizationId).execute()).filter((cluster) => cluster.credentialsId === credentialsId)
      if (users.length === 0) throw notFound('credentials')
      throw new AppError(
        'conflict',
        `the credentials are used by the cluster(s) ${users.map((cluster) => `"${cluster.name}"`).join(', ')}: give them other credentials (specifyClusterCloudProviderInfo) or delete them first`,
      )
    },

    /** READ; every credentials of the organization, by name, with the clusters naming them. */
    async withClusters(principal: Principal, organizationId: string): Promise<CredentialsWithClusters[]> {
      await organizations.requireRole(principal, organizationId, 'READ')
      const credentials = await listByName(organizationId)
      const clusters = await namedBy(db, organizationId).orderBy(sql`lower(name)`).execute()
      return credentials.map((credential) => ({
        credential,
        clusters: clusters
          .filter((cluster) => cluster.credentialsId === credential.id)
          .map((cluster) => ({
            id: cluster.id,
            name: cluster.name,
            cloudProvider: cluster.cloudProviderInfo?.cloud_provider ?? cluster.cloudProvider,
          })),
      }))
    },

    /** Whether `credentialsId` names on-premise credentials of the organization (for a cluster's cloud provider info). */
    exists(organizationId: string, credentialsId: string): Promise<boolean> {
      return hasRow(db, 'onPremiseCredentials', { organizationId, id: credentialsId })
    },
  }
}

export type CloudCredentialsService = ReturnType<typeof createCloudCredentialsService>
