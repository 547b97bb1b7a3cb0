import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import {
  Configuration,
  DatabaseAccessibilityEnum,
  DatabaseActionsApi,
  DatabaseDeploymentHistoryApi,
  DatabaseMainCallsApi,
  DatabaseModeEnum,
  DatabasesApi,
  DatabaseTypeEnum,
} from 'qovery-typescript-axios'
import type { SnapshotVariable } from '#src/platform/snapshot-variable.ts'
import { rejectedStatus } from './helpers/assertions.ts'
import { createDeploymentsApp, type DeploymentsTestApp, deploymentCalls, isFinished, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// Databases through the official client, and deployed by the runner: their lifecycle, their
// stage (DATABASE DEFAULT, first), their history details, and their built-in variables in the
// snapshots of the environment's other services.

describe('databases through the official client and deployments', () => {
  let d: DeploymentsTestApp
  let basePath: string

  before(async () => {
    d = await createDeploymentsApp(20)
    basePath = await d.listen()
  })
  after(() => d.close())

  it('creates, reads, edits, deploys, restarts, stops and deletes a database', async () => {
    const f = factories(d.db)
    const { environment, tokens } = await f.environmentWithTokens()
    const configuration = new Configuration({ basePath, apiKey: tokens.write.authorization })
    const databases = new DatabasesApi(configuration)
    const main = new DatabaseMainCallsApi(configuration)
    const actions = new DatabaseActionsApi(configuration)
    const history = new DatabaseDeploymentHistoryApi(configuration)

    const { data: created, status } = await databases.createDatabase(environment.id, {
      name: 'ledger',
      type: DatabaseTypeEnum.POSTGRESQL,
      version: '16',
      mode: DatabaseModeEnum.CONTAINER,
      accessibility: DatabaseAccessibilityEnum.PUBLIC,
      cpu: 500,
      memory: 512,
      storage: 20,
      annotations_groups: [],
      labels_groups: [],
    })
    assert.equal(status, 201)
    assert.deepEqual(
      [created.name, created.type, created.version, created.mode, created.accessibility, created.cpu, created.memory, created.storage],
      ['ledger', 'POSTGRESQL', '16', 'CONTAINER', 'PUBLIC', 500, 512, 20],
    )
    assert.equal((await main.getDatabase(created.id)).data.name, 'ledger')
    assert.deepEqual(
      (await databases.listDatabase(environment.id)).data.results?.map((database) => database.id),
      [created.id],
    )
    const { data: credentials } = await main.getDatabaseMasterCredentials(created.id)
    assert.deepEqual([credentials.host, credentials.port, credentials.login], [created.host, 5432, 'superuser'])
    assert.equal((await main.getDatabaseStatus(created.id)).data.state, 'READY')
    assert.deepEqual(
      (await main.listDatabaseVersion(created.id)).data.results?.map((version) => version.name),
      ['16', '17'],
    )

    const { data: edited } = await main.editDatabase(created.id, { version: '17', storage: 30 })
    assert.deepEqual([edited.version, edited.storage, edited.cpu, edited.accessibility], ['17', 30, 500, 'PUBLIC'])

    const calls = deploymentCalls(d.app)
    const settle = () => calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal((await actions.deployDatabase(created.id)).status, 202)
    await settle()
    assert.equal((await main.getDatabaseStatus(created.id)).data.state, 'DEPLOYED')
    assert.equal((await actions.rebootDatabase(created.id)).status, 202)
    await settle()
    assert.equal((await main.getDatabaseStatus(created.id)).data.state, 'RESTARTED')
    assert.equal((await actions.stopDatabase(created.id)).status, 202)
    await settle()
    assert.equal((await main.getDatabaseStatus(created.id)).data.state, 'STOPPED')

    const { data: page } = await history.listDatabaseDeploymentHistoryV2(created.id)
    const entries = page.results ?? []
    assert.deepEqual(
      entries.map((entry) => entry.status_details?.action),
      ['STOP', 'RESTART', 'DEPLOY'],
    )
    const deployed = entries[2]!
    assert.equal(deployed.identifier.service_type, 'DATABASE')
    assert.deepEqual(deployed.details, { database_type: 'POSTGRESQL', version: '17', mode: 'CONTAINER' })
    for (const entry of entries) assert.ok(!JSON.stringify(entry).includes(credentials.password))
    const logs = await calls.inject(
      'GET',
      `/environment/${environment.id}/logs?version=${deployed.identifier.execution_id}`,
      tokens.read.authorization,
    )
    assert.equal(logs.statusCode, 200)
    assert.ok(!logs.body.includes(credentials.password))

    // A deployed database is deleted by a deployment, then it is gone.
    assert.equal((await main.deleteDatabase(created.id)).status, 204)
    await until(
      () =>
        main.getDatabase(created.id).then(
          (res) => res.status,
          (error) => error.response?.status,
        ),
      (status) => status === 404,
      { what: 'the database deleted' },
    )
    const reader = new DatabaseMainCallsApi(new Configuration({ basePath, apiKey: tokens.read.authorization }))
    assert.equal(await rejectedStatus(reader.getDatabaseMasterCredentials(created.id)), 404)
  })

  it('deploys databases first, in DATABASE DEFAULT, and gives the other services their variables in the snapshot', async () => {
    const f = factories(d.db)
    const { environment, tokens } = await f.environmentWithTokens()
    // The helm service is made first: the stage order comes from the kinds, not from the order of creation.
    const helm = await f.helmService(environment.id)
    const database = await f.database(environment.id, { type: 'MYSQL', version: '8.4' })
    const calls = deploymentCalls(d.app)
    // The helm service names the database's URI as it likes, through an alias of the built-in secret.
    const prefix = `QOVERY_MYSQL_Z${database.id.slice(0, 8).toUpperCase()}_`
    const builtIn = await d.db
      .selectFrom('variables')
      .select('id')
      .where('environmentId', '=', environment.id)
      .where('key', '=', `${prefix}DATABASE_URI`)
      .executeTakeFirstOrThrow()
    const alias = await calls.inject('POST', `/variable/${builtIn.id}/alias`, tokens.write.authorization, {
      key: 'DATABASE_URL',
      alias_scope: 'HELM',
      alias_parent_id: helm.id,
    })
    assert.equal(alias.statusCode, 201, alias.body)
    assert.equal(alias.json().is_secret, true)
    const { execution_id: executionId } = await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    const [entry] = await until(
      () => calls.entries(environment.id, tokens.read.authorization),
      (list) => list.length > 0 && list.every(isFinished),
      { what: 'the deployment finished' },
    )
    assert.equal(entry!.action_status, 'SUCCESS')
    assert.deepEqual(
      entry!.stages.map((stage) => [stage.name, stage.services.map((service) => service.identifier.service_id)]),
      [
        ['DATABASE DEFAULT', [database.id]],
        ['HELM DEFAULT', [helm.id]],
      ],
    )
    assert.deepEqual(entry!.stages[0]!.services[0]!.details, { database_type: 'MYSQL', version: '8.4', mode: 'CONTAINER' })

    const { rows } = await sql<{ variables: SnapshotVariable[] }>`
      select variables from deployment_snapshots where execution_id = ${executionId} and service_id = ${helm.id}`.execute(d.db)
    const byKey = new Map(
      rows[0]!.variables.filter((variable) => variable.key.startsWith(prefix)).map((variable) => [variable.key.slice(prefix.length), variable]),
    )
    assert.equal(byKey.get('HOST_INTERNAL')?.value, database.credentials.host)
    assert.equal(byKey.get('PORT')?.value, '3306')
    for (const secret of ['PASSWORD', 'DATABASE_URI']) {
      const variable = byKey.get(secret)!
      assert.equal(variable.isSecret, true)
      assert.equal(variable.value, undefined)
      assert.equal(variable.sealed, database.credentials[secret === 'PASSWORD' ? 'passwordSealed' : 'uriSealed'])
    }
    const url = rows[0]!.variables.find((variable) => variable.key === 'DATABASE_URL')!
    assert.deepEqual([url.isSecret, url.sealed, url.value], [true, database.credentials.uriSealed, undefined])
  })
})
