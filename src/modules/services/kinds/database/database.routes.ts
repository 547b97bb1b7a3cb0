import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import type { KindRouteContext } from '#src/modules/services/kind-route-context.ts'
import { Status } from '#src/platform/deployment-status.schemas.ts'
import { Credentials, DatabaseConfigurationResponseList, DatabaseParams, VersionResponseList } from './database.schemas.ts'
import { createDatabaseServices } from './database.service.ts'

// The database's own routes, besides those every kind has (kind-crud.routes.ts, service-actions.routes.ts).

/** The databases an environment may have: the route after the databases' create. */
export function databaseConfigurationRoutes(context: KindRouteContext): FastifyPluginAsyncTypebox {
  const databases = createDatabaseServices(context)
  return async (app) => {
    app.get(
      '/environment/:environmentId/databaseConfiguration',
      {
        schema: {
          operationId: 'listEnvironmentDatabaseConfig',
          summary: 'List eligible database types, versions and modes for the environment',
          tags: ['Databases'],
          params: EnvironmentParams,
          response: { 200: DatabaseConfigurationResponseList },
        },
      },
      async (req) => ({
        results: (await databases.configurations(req.principal, req.params.environmentId)).map(({ type, versions, modes }) => ({
          database_type: type,
          version: versions.flatMap((name) => modes.map((mode) => ({ name, supported_mode: mode }))),
        })),
      }),
    )
  }
}

/** A database's master credentials, versions and restart: the routes after its delete. */
export function databaseMemberRoutes(context: KindRouteContext): FastifyPluginAsyncTypebox {
  const databases = createDatabaseServices(context)
  return async (app) => {
    app.get(
      '/database/:databaseId/masterCredentials',
      {
        schema: {
          operationId: 'getDatabaseMasterCredentials',
          summary: 'Get master credentials of the database',
          description: "Needs the WRITE role: the only answer that holds the password. The environment's services see it as a built-in secret.",
          tags: ['Database Main Calls'],
          params: DatabaseParams,
          response: { 200: Credentials },
        },
      },
      async (req, reply) => {
        // The password must not linger in a cache between the caller and Berth.
        reply.header('cache-control', 'no-store')
        return databases.masterCredentials(req.principal, req.params.databaseId)
      },
    )

    app.get(
      '/database/:databaseId/version',
      {
        schema: {
          operationId: 'listDatabaseVersion',
          summary: 'List eligible versions for the database',
          description: "The versions of the database's type Berth runs from its current one up: an edit cannot go back.",
          tags: ['Database Main Calls'],
          params: DatabaseParams,
          response: { 200: VersionResponseList },
        },
      },
      async (req) => ({ results: (await databases.eligibleVersions(req.principal, req.params.databaseId)).map((name) => ({ name })) }),
    )

    app.post(
      '/database/:databaseId/restart-service',
      {
        schema: {
          operationId: 'rebootDatabase',
          summary: 'Restart database',
          description:
            'Restarts the database (trigger RESTART), as redeployDatabase does. Needs the DEPLOY role. The deployment is queued behind those of the environment already queued or running.',
          tags: ['Database Actions'],
          params: DatabaseParams,
          response: { 202: Status },
        },
      },
      async (req, reply) => reply.code(202).send(await context.triggers.restart(req.principal, 'DATABASE', req.params.databaseId)),
    )
  }
}
