import { randomUUID } from 'node:crypto'
import { defineKind } from '#src/modules/services/kind-descriptor.ts'
import { ifMatchEdit, SERVICES_LIMIT } from '#src/modules/services/kind-docs.ts'
import { groupIdsOfBody } from '#src/modules/services/service-groups.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { databaseKind, toDatabaseRecord } from './database.kind.ts'
import { databaseConfigurationRoutes, databaseMemberRoutes } from './database.routes.ts'
import { DatabaseActionQuery, DatabaseDeployRequest, DatabaseEditRequest, DatabaseRequest, DatabaseResponse } from './database.schemas.ts'
import type { DatabaseConfig, DatabaseRecord, DatabaseWrite } from './database.types.ts'
import { databaseInput, toDatabaseResponse } from './database.wire.ts'
import { databaseWorkload } from './database.workload.ts'
import { newDatabaseCredentials } from './database-credentials.ts'
import { databaseRequestErrors } from './database-request-rules.ts'

/** Databases: an engine of a type and version Berth runs, with master credentials made at its create. */
export const databaseDescriptor = defineKind<DatabaseRecord, DatabaseWrite>({
  kind: databaseKind,
  names: {
    name: 'Database',
    plural: 'Databases',
    aNoun: 'a database',
    etagNoun: 'the database',
    listSummary: 'List environment databases',
    editSummary: 'Edit a database',
    deleteSummary: 'Delete a database',
  },
  deploy: { body: DatabaseDeployRequest, description: 'The reference takes no body; an empty object is accepted.', overrides: () => ({}) },
  actionQuery: DatabaseActionQuery,
  statusList: true,
  bulk: {
    deploy: { rank: 2, description: 'ids of the databases to deploy' },
    idsRank: 3,
    idsDescription: 'databases',
    reboot: { rank: 2, description: 'databases' },
  },
  schemas: { request: DatabaseRequest, editRequest: DatabaseEditRequest, response: DatabaseResponse },
  descriptions: {
    create:
      "Needs the WRITE role. Makes the database's master credentials (getDatabaseMasterCredentials) and its built-in variables. " +
      `Berth limits: ${SERVICES_LIMIT}`,
    edit:
      'A partial edit, as the reference has it: a field left out keeps its value; the type and the mode cannot change, the ' +
      `version may only move up and the storage only grow. Needs the WRITE role. ${ifMatchEdit('the database')}`,
    delete: 'Needs the WRITE role. Its built-in variables go with it.',
  },
  // A create makes the database's id and its master credentials, sealed.
  createWrite(body, { secrets }) {
    const request = body as DatabaseRequest
    const input = databaseInput(request)
    const id = randomUUID()
    const credentials = newDatabaseCredentials(id, input.type, secrets)
    return { create: input, id, credentials, ruleErrors: databaseRequestErrors(request), groups: groupIdsOfBody(request) }
  },
  // A partial edit: what the request leaves out keeps its value.
  editWrite: (body) => ({ edit: body as DatabaseEditRequest, groups: groupIdsOfBody(body as DatabaseEditRequest) }),
  toRecord: (service) => toDatabaseRecord(service as ServiceRecord<DatabaseConfig>),
  toResponse: toDatabaseResponse,
  features: { documentOrder: 5 },
  ownRoutes: { afterCreate: databaseConfigurationRoutes, after: databaseMemberRoutes },
  executors: { workload: databaseWorkload },
})
