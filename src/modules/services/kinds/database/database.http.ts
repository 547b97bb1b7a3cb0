import type { KindRoutes } from '#src/modules/services/kind-routes.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { toDatabaseRecord } from './database.kind.ts'
import { DatabaseActionQuery, DatabaseDeployRequest, DatabaseResponse } from './database.schemas.ts'
import type { DatabaseConfig } from './database.types.ts'
import { toDatabaseResponse } from './database.wire.ts'

/** Databases on the wire, for the routes every kind shares. */
export const databaseRoutes: KindRoutes = {
  type: 'DATABASE',
  segment: 'database',
  param: 'databaseId',
  name: 'Database',
  tags: { actions: 'Database Actions', main: 'Database Main Calls', history: 'Database Deployment History' },
  deploy: {
    body: DatabaseDeployRequest,
    description: 'The reference takes no body; an empty object is accepted.',
    overrides: () => ({}),
  },
  actionQuery: DatabaseActionQuery,
  uninstall: true,
  response: { schema: DatabaseResponse, of: (service) => toDatabaseResponse(toDatabaseRecord(service as ServiceRecord<DatabaseConfig>)) },
  bulk: { statuses: 'databases', ids: 'database_ids' },
}
