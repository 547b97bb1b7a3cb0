// Where the integration's applications live in Berth: its project, and an environment per destination namespace, made on first use and removed once empty.
import type { Db } from '#src/platform/db/database.ts'
import { isUniqueViolation } from '#src/platform/db/errors.ts'
import { stageName } from '#src/platform/deployment-states.ts'
import { type ArgoCdDb, withArgoCdTables } from './argocd.tables.ts'

/** The project the integration's environments are in, one per organization (docs/argocd.md). */
export const INTEGRATION_PROJECT = 'ArgoCD Integration'

/** Deletes services, then the environments they leave without a service. */
export async function removeServices(trx: ArgoCdDb, services: readonly { id: string; environmentId: string }[]): Promise<void> {
  if (services.length === 0) return
  const serviceIds = services.map((service) => service.id)
  await trx.deleteFrom('services').where('id', 'in', serviceIds).execute()
  await trx
    .deleteFrom('environments')
    .where('id', 'in', [...new Set(services.map((service) => service.environmentId))])
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('services').select('id').whereRef('services.environmentId', '=', 'environments.id'))),
    )
    .execute()
}

export function createArgoCdPlacesRepository(plainDb: Db) {
  const db = withArgoCdTables(plainDb)

  async function ensureProject(organizationId: string): Promise<string> {
    const find = () =>
      db
        .selectFrom('projects')
        .select('id')
        .where('organizationId', '=', organizationId)
        .where((eb) => eb(eb.fn('lower', ['name']), '=', INTEGRATION_PROJECT.toLowerCase()))
        .executeTakeFirst()
    const found = await find()
    if (found) return found.id
    try {
      return (
        await db
          .insertInto('projects')
          .values({
            organizationId,
            name: INTEGRATION_PROJECT,
            description: 'The applications of the Argo CD instances of this organization, by destination namespace.',
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id
    } catch (error) {
      if (!isUniqueViolation(error)) throw error
      return (await find())!.id
    }
  }

  /** The environment of a destination namespace on a Berth cluster, with its one stage; made on first use. */
  async function ensureEnvironment(
    organizationId: string,
    projectId: string,
    clusterId: string,
    namespace: string,
  ): Promise<{ id: string; stageId: string }> {
    const cluster = await db.selectFrom('clusters').select(['name', 'production']).where('id', '=', clusterId).executeTakeFirstOrThrow()
    // The namespace's name; another cluster's namespace of the same name takes the cluster's name after it.
    const names = [namespace, `${namespace} (${cluster.name})`]
    const find = () =>
      db
        .selectFrom('environments as e')
        .innerJoin('deploymentStages as d', 'd.environmentId', 'e.id')
        .select(['e.id', 'd.id as stageId'])
        .where('e.projectId', '=', projectId)
        .where('e.clusterId', '=', clusterId)
        .where('e.name', 'in', names)
        .orderBy('d.position')
        .executeTakeFirst()
    const found = await find()
    if (found) return found
    for (const name of names) {
      try {
        return await db.transaction().execute(async (trx) => {
          const environment = await trx
            .insertInto('environments')
            .values({ organizationId, projectId, clusterId, name, mode: cluster.production ? 'PRODUCTION' : 'STAGING' })
            .returning('id')
            .executeTakeFirstOrThrow()
          const stage = await trx
            .insertInto('deploymentStages')
            .values({ organizationId, environmentId: environment.id, name: stageName('GITOPS_APP'), description: null, position: 1 })
            .returning('id')
            .executeTakeFirstOrThrow()
          return { id: environment.id, stageId: stage.id }
        })
      } catch (error) {
        if (!isUniqueViolation(error)) throw error
        const made = await find()
        if (made) return made
      }
    }
    throw new Error(`no name is free for the environment of namespace ${namespace}`)
  }

  return { ensureProject, ensureEnvironment }
}
