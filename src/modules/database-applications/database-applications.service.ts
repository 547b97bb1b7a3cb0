import type { RequireService } from '#src/modules/services/require-service.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'

// The applications that use a database (docs/databases.md, "Applications using a database"). Every
// service of an environment sees its databases' built-in variables (QOVERY_<TYPE>_Z<id>_…); an
// application uses a database when it names them in its own scope: an alias or an override of one
// of the database's built-ins declared on the application. Removing the application from the
// database deletes those aliases and overrides; it sees the built-ins under their own names still,
// as every service of the environment does.

export interface DatabaseApplicationsDeps {
  /** The services core's check of one service: the module asks it for a DATABASE or an APPLICATION (404 for another kind). */
  requireService: RequireService
  /** The service-scoped aliases and overrides of the environment's built-ins whose keys start with the prefix. */
  builtInLinks(environmentId: string, keyPrefix: string): Promise<{ id: string; serviceId: string }[]>
  deleteLinks(variableIds: readonly string[]): Promise<void>
  /** The database's built-in variables' common prefix. */
  keyPrefixOf(database: ServiceRecord): string
}

export function createDatabaseApplicationsService(deps: DatabaseApplicationsDeps) {
  const requireDatabase = async (principal: Principal, databaseId: string, needed: Role) =>
    (await deps.requireService(principal, databaseId, needed, 'DATABASE')).service
  const requireApplication = async (principal: Principal, applicationId: string, needed: Role) =>
    (await deps.requireService(principal, applicationId, needed, 'APPLICATION')).service
  async function linksOf(database: ServiceRecord) {
    return deps.builtInLinks(database.environmentId, deps.keyPrefixOf(database))
  }

  return {
    /** The ids of the applications with an alias or override of the database's built-ins, each once. */
    async applicationIds(principal: Principal, databaseId: string): Promise<string[]> {
      const database = await requireDatabase(principal, databaseId, 'READ')
      const serviceIds = [...new Set((await linksOf(database)).map((link) => link.serviceId))]
      const applications: string[] = []
      for (const serviceId of serviceIds) {
        // Containers and jobs link the same way, but the answer lists applications.
        const application = await requireApplication(principal, serviceId, 'READ').catch(() => undefined)
        if (application) applications.push(application.id)
      }
      return applications
    },

    /** Deletes the application's aliases and overrides of the database's built-ins; one without any already does not use it. */
    async remove(principal: Principal, databaseId: string, applicationId: string): Promise<void> {
      const database = await requireDatabase(principal, databaseId, 'READ')
      const application = await requireApplication(principal, applicationId, 'WRITE')
      const links = (await linksOf(database)).filter((link) => link.serviceId === application.id)
      await deps.deleteLinks(links.map((link) => link.id))
    },
  }
}

export type DatabaseApplicationsService = ReturnType<typeof createDatabaseApplicationsService>
