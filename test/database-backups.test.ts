import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { BackupsApi, Configuration } from 'qovery-typescript-axios'
import { databaseBackupMetrics } from '#src/modules/backups/backup-metrics.ts'
import { localStore, storeWords } from '#src/modules/backups/backup-stores.ts'
import type { DatabaseShell, ShellCommand } from '#src/modules/backups/database-shell.ts'
import { ENGINE_TOOLS } from '#src/modules/backups/engine-tools.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

// Backups at the API, without an engine: the databases' environment is on a cluster that deploys
// with Docker, and no backup runner runs in this file, so what is taken stays QUEUED. The round
// trips on real engines are test/docker-database-backups.test.ts's.

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

describe('database backups at the API', () => {
  let t: TestApp
  let baseUrl: string
  let w: Awaited<ReturnType<ReturnType<typeof factories>['organizationWithTokens']>>
  let other: Awaited<ReturnType<ReturnType<typeof factories>['organizationWithTokens']>>
  let databaseId: string
  let redisId: string
  let simulatedId: string
  let managedId: string

  const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload === undefined ? {} : { payload }) })

  const destinationBody = (extra: object = {}) => ({
    name: 'store',
    kind: 'S3',
    endpoint: 'https://s3.example.com',
    region: 'eu-west-3',
    bucket: 'backups',
    access_key_id: 'AKIAEXAMPLE',
    secret_access_key: 'theSecretAccessKeyNeverShown0123',
    ...extra,
  })

  before(async () => {
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'false' })
    baseUrl = await t.listen()
    const f = factories(t.db)
    w = await f.organizationWithTokens()
    other = await f.organizationWithTokens()
    const project = await f.project(w.organization.id)
    const cluster = await f.cluster(w.organization.id, { executor: 'DOCKER' })
    const onDocker = await f.environment(project.id, { clusterId: cluster.id })
    const simulated = await f.environment(project.id)
    databaseId = (await f.database(onDocker.id, { type: 'POSTGRESQL', version: '15' })).id
    redisId = (await f.database(onDocker.id, { type: 'REDIS', version: '7.0' })).id
    simulatedId = (await f.database(simulated.id)).id
    managedId = (await f.database(onDocker.id, { mode: 'MANAGED', instance_type: 'db.t3.micro' })).id
  })
  after(async () => t?.close())

  it('takes backups as DEPLOY, lists them newest first a page at a time, and deletes a queued one', async () => {
    assert.equal((await inject('POST', `/database/${databaseId}/backup`, w.tokens.read.authorization, { name: 'a', message: '' })).statusCode, 403)
    assert.equal(
      (await inject('POST', `/database/${databaseId}/backup`, other.tokens.admin.authorization, { name: 'a', message: '' })).statusCode,
      404,
    )
    const missing = await inject('POST', `/database/${databaseId}/backup`, w.tokens.deploy.authorization, { name: 'a' })
    assert.equal(missing.statusCode, 400)
    const ids: string[] = []
    for (const name of ['first', 'second', 'third']) {
      const res = await inject('POST', `/database/${databaseId}/backup`, w.tokens.deploy.authorization, { name, message: `the ${name}` })
      assert.equal(res.statusCode, 201, res.body)
      const body = res.json() as Body
      assert.equal(body.backup_status, 'QUEUED')
      assert.equal(body.status.state, 'QUEUED')
      assert.equal(body.status.status_details.status, 'QUEUED')
      assert.equal(body.database_type, 'POSTGRESQL')
      assert.equal(body.origin, 'MANUAL')
      assert.equal(body.size_bytes, null)
      assert.match(body.created_by, /API token/)
      ids.push(body.id)
    }
    const page = (await inject('GET', `/database/${databaseId}/backup?pageSize=2`, w.tokens.read.authorization)).json() as Body
    assert.deepEqual(
      page.results.map((row: Body) => row.name),
      ['third', 'second'],
    )
    assert.equal(page.has_more, true)
    assert.equal(page.next_start_id, ids[0])
    assert.equal(page.last_successful_backup_at, null)
    const status = (await inject('GET', `/database/${databaseId}/status`, w.tokens.read.authorization)).json()
    assert.equal(status.last_successful_backup_at, null, 'no backup ended DONE: the status says none')
    const rest = (await inject('GET', `/database/${databaseId}/backup?pageSize=2&startId=${page.next_start_id}`, w.tokens.read.authorization)).json()
    assert.deepEqual(
      rest.results.map((row: Body) => row.name),
      ['first'],
    )
    assert.equal(rest.has_more, false)

    // The official client reads and writes them too.
    const api = new BackupsApi(new Configuration({ basePath: baseUrl, apiKey: w.tokens.deploy.authorization }))
    const listed = await api.listDatabaseBackup(databaseId)
    assert.equal(listed.data.results?.[0]?.name, 'third')
    const added = await api.addBackupDatabase(databaseId, { name: 'client', message: 'from the official client' })
    assert.equal(added.status, 201)
    const removed = await api.removeDatabaseBackup(databaseId, added.data.id)
    assert.equal(removed.status, 204)

    assert.equal((await inject('DELETE', `/database/${databaseId}/backup/${ids[0]}`, w.tokens.read.authorization)).statusCode, 403)
    assert.equal((await inject('DELETE', `/database/${databaseId}/backup/${ids[0]}`, other.tokens.admin.authorization)).statusCode, 404)
    assert.equal((await inject('DELETE', `/database/${redisId}/backup/${ids[0]}`, w.tokens.deploy.authorization)).statusCode, 404)
    assert.equal((await inject('DELETE', `/database/${databaseId}/backup/${ids[0]}`, w.tokens.deploy.authorization)).statusCode, 204)
    assert.equal((await inject('GET', `/database/${databaseId}/backup/${ids[0]}`, w.tokens.read.authorization)).statusCode, 404)
  })

  it('says why a MANAGED database or one the simulator runs cannot be dumped (400)', async () => {
    const managed = await inject('POST', `/database/${managedId}/backup`, w.tokens.deploy.authorization, { name: 'm', message: '' })
    assert.equal(managed.statusCode, 400, managed.body)
    assert.match(managed.json().message, /databaseId is a MANAGED database: it runs in no container Berth runs/)
    const simulated = await inject('POST', `/database/${simulatedId}/backup`, w.tokens.deploy.authorization, { name: 's', message: '' })
    assert.equal(simulated.statusCode, 400, simulated.body)
    assert.match(simulated.json().message, /simulator/)
  })

  it('restores only a DONE backup, into a database of the same type', async () => {
    const [queued] = (await inject('GET', `/database/${databaseId}/backup`, w.tokens.read.authorization)).json().results
    const notDone = await inject('POST', `/database/${databaseId}/backup/${queued.id}/restore`, w.tokens.deploy.authorization, {})
    assert.equal(notDone.statusCode, 409, notDone.body)
    const otherType = await inject('POST', `/database/${databaseId}/backup/${queued.id}/restore`, w.tokens.deploy.authorization, {
      target_database_id: redisId,
    })
    assert.equal(otherType.statusCode, 400, otherType.body)
    assert.equal(otherType.json().errors[0].path, '/target_database_id')
    const theirs = await inject('POST', `/database/${databaseId}/backup/${queued.id}/restore`, w.tokens.read.authorization, {})
    assert.equal(theirs.statusCode, 403)
    assert.deepEqual((await inject('GET', `/database/${databaseId}/restore`, w.tokens.read.authorization)).json(), { results: [] })
  })

  it('keeps destinations for ADMINs, their secret sealed and never returned, their endpoint under the address rules', async () => {
    const base = `/organization/${w.organization.id}/backupDestination`
    assert.equal((await inject('POST', base, w.tokens.write.authorization, destinationBody())).statusCode, 403)
    const loopback = await inject('POST', base, w.tokens.admin.authorization, destinationBody({ endpoint: 'http://127.0.0.1:9000' }))
    assert.equal(loopback.statusCode, 400, loopback.body)
    assert.equal(loopback.json().errors[0].path, '/endpoint')
    assert.match(loopback.json().errors[0].message, /BERTH_ALLOW_PRIVATE_URLS/)
    const withKeys = await inject('POST', base, w.tokens.admin.authorization, destinationBody({ endpoint: 'https://key:secret@s3.example.com' }))
    assert.equal(withKeys.statusCode, 400, withKeys.body)
    const noSecret = await inject('POST', base, w.tokens.admin.authorization, destinationBody({ secret_access_key: undefined }))
    assert.equal(noSecret.statusCode, 400, noSecret.body)

    const created = await inject('POST', base, w.tokens.admin.authorization, destinationBody({ prefix: '/nightly/' }))
    assert.equal(created.statusCode, 201, created.body)
    const destination = created.json() as Body
    assert.equal(destination.prefix, 'nightly')
    assert.equal(destination.used_by, 0)
    assert.ok(!created.body.includes('theSecretAccessKeyNeverShown0123'))
    const stored = await t.db
      .selectFrom('backupDestinations' as never)
      .select('secretSealed' as never)
      .executeTakeFirstOrThrow()
    assert.ok(!(stored as { secretSealed: Buffer }).secretSealed.toString('latin1').includes('theSecretAccessKeyNeverShown0123'), 'sealed at rest')
    assert.equal((await inject('POST', base, w.tokens.admin.authorization, destinationBody())).statusCode, 409)
    assert.equal((await inject('GET', `${base}/${destination.id}`, other.tokens.admin.authorization)).statusCode, 404)
    const listed = (await inject('GET', base, w.tokens.read.authorization)).json()
    assert.deepEqual(
      listed.results.map((row: Body) => row.id),
      [destination.id],
    )

    // An edit keeps the secret it leaves out, unless it moves the destination elsewhere.
    const kept = await inject(
      'PUT',
      `${base}/${destination.id}`,
      w.tokens.admin.authorization,
      destinationBody({ secret_access_key: undefined, region: 'us-east-1' }),
    )
    assert.equal(kept.statusCode, 200, kept.body)
    const moved = await inject(
      'PUT',
      `${base}/${destination.id}`,
      w.tokens.admin.authorization,
      destinationBody({ secret_access_key: undefined, endpoint: 'https://elsewhere.example.com' }),
    )
    assert.equal(moved.statusCode, 400, moved.body)
    assert.equal(moved.json().errors[0].path, '/secret_access_key')

    // In use by a backup: kept.
    const taken = await inject('POST', `/database/${databaseId}/backup`, w.tokens.deploy.authorization, {
      name: 'to s3',
      message: '',
      destination_id: destination.id,
    })
    assert.equal(taken.statusCode, 201, taken.body)
    const theirDestination = await inject('POST', `/database/${databaseId}/backup`, other.tokens.admin.authorization, { name: 'x', message: '' })
    assert.equal(theirDestination.statusCode, 404)
    assert.equal((await inject('DELETE', `${base}/${destination.id}`, w.tokens.admin.authorization)).statusCode, 409)
    assert.equal((await inject('DELETE', `/database/${databaseId}/backup/${taken.json().id}`, w.tokens.deploy.authorization)).statusCode, 204)
    assert.equal((await inject('DELETE', `${base}/${destination.id}`, w.tokens.write.authorization)).statusCode, 403)
    assert.equal((await inject('DELETE', `${base}/${destination.id}`, w.tokens.admin.authorization)).statusCode, 204)
  })

  it('sets a schedule (WRITE) with a cron expression, a time zone and a bounded retention', async () => {
    const url = `/database/${databaseId}/backupSchedule`
    const none = await inject('GET', url, w.tokens.read.authorization)
    assert.equal(none.statusCode, 200)
    assert.equal(none.json(), null)
    assert.equal((await inject('PUT', url, w.tokens.deploy.authorization, { cron: '0 3 * * *', keep_count: 7 })).statusCode, 403)
    const unbounded = await inject('PUT', url, w.tokens.write.authorization, { cron: '0 3 * * *' })
    assert.equal(unbounded.statusCode, 400)
    const badZone = await inject('PUT', url, w.tokens.write.authorization, { cron: '0 3 * * *', timezone: 'Mars/Olympus', keep_days: 7 })
    assert.equal(badZone.statusCode, 400)
    assert.equal(badZone.json().errors[0].path, '/timezone')
    const set = await inject('PUT', url, w.tokens.write.authorization, { cron: '0 3 * * *', timezone: 'Europe/Paris', keep_days: 14 })
    assert.equal(set.statusCode, 200, set.body)
    const schedule = set.json() as Body
    assert.equal(schedule.keep_days, 14)
    assert.equal(schedule.keep_count, null)
    // 03:00 in Paris is 01:00 or 02:00 UTC.
    assert.match(schedule.next_backup_at, /T0[12]:00:00\.000Z$/)
    assert.deepEqual((await inject('GET', url, w.tokens.read.authorization)).json(), schedule)
    assert.equal((await inject('GET', url, other.tokens.admin.authorization)).statusCode, 404)
    const metrics = await databaseBackupMetrics(t.db)
    const ours = metrics.find((row) => row.databaseId === databaseId)
    assert.ok(ours, 'a database with a schedule is in the metrics')
    assert.equal(ours.lastSuccessAt, null)
    assert.ok(ours.counts.QUEUED >= 2)
    assert.equal((await inject('DELETE', url, w.tokens.write.authorization)).statusCode, 204)
    assert.equal((await inject('DELETE', url, w.tokens.write.authorization)).statusCode, 404)
  })

  it('runs MongoDB’s mongodump --archive and mongorestore --archive --drop (no test image: what they would run)', async () => {
    const sent: ShellCommand[] = []
    const shell: DatabaseShell = {
      async stream(command) {
        sent.push(command)
        return { stdout: Readable.from([Buffer.from('archive')]), finished: Promise.resolve({ exitCode: 0, stderr: '' }) }
      },
      async feed(command, input) {
        sent.push(command)
        for await (const _ of input) {
          // Read as the program would.
        }
        return { exitCode: 0, stderr: '', stdout: '' }
      },
      async run(command) {
        sent.push(command)
        return { exitCode: 0, stderr: '', stdout: '' }
      },
    }
    const login = { login: 'superuser', password: 'pw', databaseName: 'admin' }
    const signal = new AbortController().signal
    const dump = await ENGINE_TOOLS.MONGODB.dump(shell, login, () => undefined, signal)
    assert.equal((await dump.finished).exitCode, 0)
    const input = new PassThrough()
    input.end('archive')
    await ENGINE_TOOLS.MONGODB.restore(shell, login, input, () => undefined, signal)
    assert.deepEqual(
      sent.map((command) => command.argv),
      [
        ['mongodump', '--archive', '--quiet', '--username', 'superuser', '--password', 'pw', '--authenticationDatabase', 'admin'],
        ['mongorestore', '--archive', '--drop', '--quiet', '--username', 'superuser', '--password', 'pw', '--authenticationDatabase', 'admin'],
      ],
    )
    assert.equal(ENGINE_TOOLS.MONGODB.extension, 'archive')
  })

  it('keeps the local store inside its directory and says a store’s refusal in its words', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'berth-store-'))
    try {
      const store = localStore(root)
      await assert.rejects(store.put('../escape', Readable.from(['x']), new AbortController().signal), /leaves the backups directory/)
      await store.put('a/b.gz', Readable.from([Buffer.from('data')]), new AbortController().signal)
      const chunks: Buffer[] = []
      for await (const chunk of await store.get('a/b.gz', new AbortController().signal)) chunks.push(chunk as Buffer)
      assert.equal(Buffer.concat(chunks).toString(), 'data')
      await store.delete('a/b.gz')
      await store.delete('a/b.gz')
      await assert.rejects(store.get('a/b.gz', new AbortController().signal), /ENOENT/)
    } finally {
      await rm(root, { recursive: true, force: true })
    }
    const refusal = Object.assign(new Error('The request signature we calculated does not match'), {
      name: 'SignatureDoesNotMatch',
      $metadata: { httpStatusCode: 403 },
    })
    assert.equal(storeWords(refusal), 'SignatureDoesNotMatch: The request signature we calculated does not match (HTTP 403)')
  })
})
