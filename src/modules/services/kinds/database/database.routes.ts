import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { DeploymentTriggersService } from '#src/modules/deployments/api/triggers/deployment-triggers.service.ts'
import { toStatusResponse } from '#src/modules/deployments/api/triggers/triggers.wire.ts'
import { Status } from '#src/modules/deployments/deployments.schemas.ts'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { groupIdsOfBody } from '#src/modules/services/service-groups.ts'
import { LIST_WRITE_TIMEOUT_MS, SERVICE_LIST_DESCRIPTION, ServiceListQuery } from '#src/modules/services/service-lists.ts'
import { conflictResponse } from '#src/platform/http/common-schemas.ts'
import { entityTag, ifMatchTags, ifNoneMatchHits } from '#src/platform/http/entity-tags.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { responseWritten } from '#src/platform/http/response-written.ts'
import {
  Credentials,
  DatabaseConfigurationResponseList,
  DatabaseEditRequest,
  DatabaseParams,
  DatabaseRequest,
  DatabaseResponse,
  DatabaseResponseList,
  DeleteDatabaseQuery,
  VersionResponseList,
} from './database.schemas.ts'
import type { DatabaseServices } from './database.service.ts'
import { databaseInput, toDatabaseResponse } from './database.wire.ts'
import { databaseRequestErrors } from './database-request-rules.ts'

const ETAG_HEADER = {
  ETag: Type.String({ description: 'Berth extension: names this representation of the database; send it back in If-Match or If-None-Match' }),
}

const LIMITS = 'Berth limits: an environment holds at most BERTH_SERVICES_PER_ENVIRONMENT services (200 by default), a 409 past it.'

/** The create, read, edit and delete of databases, their master credentials, and the versions Berth runs. */
export function databaseServicesRoutes(databases: DatabaseServices, triggers: DeploymentTriggersService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/environment/:environmentId/database',
      {
        schema: {
          operationId: 'listDatabase',
          summary: 'List environment databases',
          description: SERVICE_LIST_DESCRIPTION,
          tags: ['Databases'],
          params: EnvironmentParams,
          querystring: ServiceListQuery,
          response: { 200: DatabaseResponseList },
        },
      },
      async (req, reply) => {
        const heldUntil = () => responseWritten(reply, LIST_WRITE_TIMEOUT_MS)
        const page = await databases.list(req.principal, req.params.environmentId, { startId: req.query.startId, heldUntil })
        return listBody(page, toDatabaseResponse)
      },
    )

    app.post(
      '/environment/:environmentId/database',
      {
        schema: {
          operationId: 'createDatabase',
          summary: 'Create a database',
          description: `Needs the WRITE role. Makes the database's master credentials (getDatabaseMasterCredentials) and its built-in variables. ${LIMITS}`,
          tags: ['Databases'],
          params: EnvironmentParams,
          body: DatabaseRequest,
          response: {
            201: { ...DatabaseResponse, headers: ETAG_HEADER },
            ...conflictResponse('the name is taken in the environment, or the environment holds BERTH_SERVICES_PER_ENVIRONMENT services already'),
          },
        },
      },
      async (req, reply) => {
        const created = await databases.create(
          req.principal,
          req.params.environmentId,
          databaseInput(req.body),
          databaseRequestErrors(req.body),
          groupIdsOfBody(req.body),
        )
        return reply.code(201).header('etag', entityTag(created.entityTag)).send(toDatabaseResponse(created))
      },
    )

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

    app.get(
      '/database/:databaseId',
      {
        schema: {
          operationId: 'getDatabase',
          summary: 'Get database by ID',
          description: 'Answers 304 when If-None-Match names the current ETag.',
          tags: ['Database Main Calls'],
          params: DatabaseParams,
          response: { 200: { ...DatabaseResponse, headers: ETAG_HEADER }, 304: { type: 'null', description: 'not modified' } },
        },
      },
      async (req, reply) => {
        const database = await databases.get(req.principal, req.params.databaseId)
        reply.header('etag', entityTag(database.entityTag))
        // A 304 has no body; Fastify would serialise null as 'null'.
        if (ifNoneMatchHits(req.headers['if-none-match'], database.entityTag)) return reply.code(304).send(undefined as never)
        return toDatabaseResponse(database)
      },
    )

    app.put(
      '/database/:databaseId',
      {
        schema: {
          operationId: 'editDatabase',
          summary: 'Edit a database',
          description:
            'A partial edit, as the reference has it: a field left out keeps its value; the type and the mode cannot change, the ' +
            'version may only move up and the storage only grow. Needs the WRITE role. Berth extension: with `If-Match: <ETag>` ' +
            'the edit applies only if nobody changed the database since, else 412.',
          tags: ['Database Main Calls'],
          params: DatabaseParams,
          body: DatabaseEditRequest,
          response: {
            200: { ...DatabaseResponse, headers: ETAG_HEADER },
            ...conflictResponse('the name is taken in the environment'),
            412: Type.Ref('ErrorResponse', { description: 'If-Match names a version that is no longer current (`precondition_failed`)' }),
          },
        },
      },
      async (req, reply) => {
        const updated = await databases.update(req.principal, req.params.databaseId, req.body, ifMatchTags(req.headers['if-match']))
        return reply.header('etag', entityTag(updated.entityTag)).send(toDatabaseResponse(updated))
      },
    )

    app.delete(
      '/database/:databaseId',
      {
        schema: {
          operationId: 'deleteDatabase',
          summary: 'Delete a database',
          description: 'Needs the WRITE role. Its built-in variables go with it.',
          tags: ['Database Main Calls'],
          params: DatabaseParams,
          querystring: DeleteDatabaseQuery,
        },
      },
      async (req, reply) => {
        await databases.delete(req.principal, req.params.databaseId)
        return reply.code(204).send()
      },
    )

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
      async (req, reply) => reply.code(202).send(toStatusResponse(await triggers.redeployService(req.principal, 'DATABASE', req.params.databaseId))),
    )
  }
}
