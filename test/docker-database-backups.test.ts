import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { sql } from 'kysely'
import { localBackupsRoot } from '#src/modules/backups/backup-objects.ts'
import { type BackupWorker, createBackupWorker } from '#src/modules/backups/backup-worker.ts'
import { testSecretBox } from './helpers/app.ts'
import { databaseEngineImages } from './helpers/database-engine-images.ts'
import { type DeploymentCalls, type DeploymentsTestApp, deploymentCalls, until } from './helpers/deployments.ts'
import { removeEnvironments } from './helpers/docker.ts'
import { createDockerDeploymentsApp, serviceInstances } from './helpers/docker-world.ts'
import { factories } from './helpers/factories.ts'
import { type MotoServer, startMoto } from './helpers/moto-server.ts'

// Issue 44's round trips on the real Docker engine: PostgreSQL 15, MariaDB (as MySQL 8.0) and
// Redis 7.0 from Debian's packages (helpers/database-engine-images.ts), S3 from moto's server with
// its signatures checked. One world for the file: the databases are deployed once, and each test
// goes on from where the one before left them.

const run = promisify(execFile)
const BUCKET = 'berth-backups'
const quiet = { info() {}, warn() {} }

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

describe('database backups on the Docker engine', () => {
  let t: DeploymentsTestApp
  let calls: DeploymentCalls
  let moto: MotoServer
  let dataDir: string
  const workers: BackupWorker[] = []
  const environments: string[] = []
  let w: Awaited<ReturnType<ReturnType<typeof factories>['environmentWithTokens']>>
  let other: Awaited<ReturnType<ReturnType<typeof factories>['organizationWithTokens']>>
  const ids: Record<'pg' | 'pg2' | 'mysql' | 'redis', string> = { pg: '', pg2: '', mysql: '', redis: '' }
  const passwords: Record<string, string> = {}
  let destinationId: string

  const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: object) =>
    calls.inject(method, url, authorization, payload)

  /** Runs a program in the database's container (the test's own way in: `docker exec`). */
  async function inContainer(serviceId: string, env: Record<string, string>, argv: string[]): Promise<string> {
    const [container] = await serviceInstances(serviceId)
    assert.ok(container, `no running container for ${serviceId}`)
    const envArgs = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`])
    const { stdout } = await run('docker', ['exec', ...envArgs, container.Id, ...argv])
    return stdout.trim()
  }
  const psql = (serviceId: string, query: string) =>
    inContainer(serviceId, { PGPASSWORD: passwords[serviceId]! }, ['psql', '-U', 'superuser', '-d', 'postgres', '-tAc', query])
  const mysql = (query: string) => inContainer(ids.mysql, { MYSQL_PWD: passwords[ids.mysql]! }, ['mysql', '-u', 'root', '-N', '-B', '-e', query])
  const redis = (...args: string[]) => inContainer(ids.redis, { REDISCLI_AUTH: passwords[ids.redis]! }, ['redis-cli', '--no-auth-warning', ...args])

  async function takeBackup(databaseId: string, body: object): Promise<Body> {
    const res = await inject('POST', `/database/${databaseId}/backup`, w.tokens.deploy.authorization, { message: '', ...body })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().backup_status, 'QUEUED')
    return res.json()
  }

  /** Waits until the backup has ended; returns it. */
  async function ended(databaseId: string, backupId: string): Promise<Body> {
    return until(
      async () => (await inject('GET', `/database/${databaseId}/backup/${backupId}`, w.tokens.read.authorization)).json() as Body,
      (backup) => backup.backup_status === 'DONE' || backup.backup_status === 'ERROR',
      { timeoutMs: 120_000, intervalMs: 200, what: `backup ${backupId}` },
    )
  }

  async function restored(databaseId: string, backupId: string, body: object = {}): Promise<Body> {
    const res = await inject('POST', `/database/${databaseId}/backup/${backupId}/restore`, w.tokens.deploy.authorization, body)
    assert.equal(res.statusCode, 201, res.body)
    const restore = res.json() as Body
    return until(
      async () => (await inject('GET', `/database/${restore.database_id}/restore/${restore.id}`, w.tokens.read.authorization)).json() as Body,
      (row) => row.restore_status === 'DONE' || row.restore_status === 'ERROR',
      { timeoutMs: 180_000, intervalMs: 200, what: `restore ${restore.id}` },
    )
  }

  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

  before(async () => {
    const images = await databaseEngineImages()
    moto = await startMoto()
    await moto.createBucket(BUCKET)
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'berth-backups-'))
    t = await createDockerDeploymentsApp({ BERTH_DOCKER_DATABASE_IMAGES: images, BERTH_DATA_DIR: dataDir })
    calls = deploymentCalls(t.app)
    // Two backup runners on one database, as two Berth processes: each scheduled backup is taken once.
    for (let i = 0; i < 2; i++) {
      const worker = createBackupWorker({
        db: t.db,
        secrets: testSecretBox(),
        localRoot: localBackupsRoot(dataDir),
        allowPrivateUrls: true,
        defaultExecutor: 'DOCKER',
        kubectlPath: 'kubectl',
        leaseMs: 10_000,
        pollMs: 100,
        log: quiet,
      })
      worker.start()
      workers.push(worker)
    }
    const f = factories(t.db)
    w = await f.environmentWithTokens()
    environments.push(w.environment.id)
    other = await f.organizationWithTokens()
    const databases = [
      ['pg', 'POSTGRESQL', '15'],
      ['pg2', 'POSTGRESQL', '15'],
      ['mysql', 'MYSQL', '8.0'],
      ['redis', 'REDIS', '7.0'],
    ] as const
    for (const [name, type, version] of databases) {
      const created = await inject('POST', `/environment/${w.environment.id}/database`, w.tokens.write.authorization, {
        name,
        type,
        version,
        mode: 'CONTAINER',
        accessibility: 'PRIVATE',
      })
      assert.equal(created.statusCode, 201, created.body)
      ids[name] = created.json().id
      const credentials = await inject('GET', `/database/${ids[name]}/masterCredentials`, w.tokens.write.authorization)
      passwords[ids[name]] = credentials.json().password
    }
    // One database first: the services of one stage deploying at once into a new environment each
    // make its network, and the Docker engine then holds several networks of that name.
    for (const url of [`/database/${ids.pg}/deploy`, `/environment/${w.environment.id}/deploy`]) {
      const before = (await calls.entries(w.environment.id, w.tokens.read.authorization)).length
      await calls.trigger(url, w.tokens.deploy.authorization)
      const [entry] = await until(
        () => calls.entries(w.environment.id, w.tokens.read.authorization),
        (list) => list.length > before && ['SUCCESS', 'ERROR', 'CANCELED'].includes(list[0]!.action_status),
        { timeoutMs: 180_000, intervalMs: 250, what: 'the databases deployed' },
      )
      assert.equal(entry!.action_status, 'SUCCESS', JSON.stringify(entry))
    }
    // The engines are up when they answer.
    await until(
      () => psql(ids.pg, 'select 1').catch(() => ''),
      (answer) => answer === '1',
      { timeoutMs: 60_000, intervalMs: 250 },
    )
    await until(
      () => psql(ids.pg2, 'select 1').catch(() => ''),
      (answer) => answer === '1',
      { timeoutMs: 60_000, intervalMs: 250 },
    )
    await until(
      () => mysql('select 1').catch(() => ''),
      (answer) => answer === '1',
      { timeoutMs: 60_000, intervalMs: 250 },
    )
  })

  after(async () => {
    await Promise.all(workers.map((worker) => worker.stop()))
    await removeEnvironments(environments).catch(() => undefined)
    await t?.close()
    await moto?.close()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('takes a PostgreSQL backup with pg_dump into the data dir, and restores the rows a drop lost', async () => {
    await psql(
      ids.pg,
      'create table orders (id int primary key, item text); insert into orders select i, $$item $$ || i from generate_series(1, 500) i',
    )

    const readTry = await inject('POST', `/database/${ids.pg}/backup`, w.tokens.read.authorization, { name: 'nope', message: '' })
    assert.equal(readTry.statusCode, 403, readTry.body)
    const otherTry = await inject('POST', `/database/${ids.pg}/backup`, other.tokens.admin.authorization, { name: 'nope', message: '' })
    assert.equal(otherTry.statusCode, 404, otherTry.body)
    const otherList = await inject('GET', `/database/${ids.pg}/backup`, other.tokens.admin.authorization)
    assert.equal(otherList.statusCode, 404, otherList.body)

    const queued = await takeBackup(ids.pg, { name: 'before the drop', message: 'by hand' })
    const backup = await ended(ids.pg, queued.id)
    assert.equal(backup.backup_status, 'DONE', JSON.stringify(backup))
    assert.equal(backup.status.state, 'READY')
    assert.ok(backup.size_bytes > 0)
    assert.match(backup.sha256, /^[0-9a-f]{64}$/)
    const file = path.join(localBackupsRoot(dataDir), w.organization.id, ids.pg, `${backup.id}.pgdump.gz`)
    const stored = await readFile(file)
    assert.equal(stored.length, backup.size_bytes)
    assert.equal(sha256(stored), backup.sha256)
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    const log = (await inject('GET', `/database/${ids.pg}/backup/${backup.id}/log`, w.tokens.read.authorization)).json().log
    assert.match(log, /pg_dump -Fc/)
    assert.ok(!log.includes(passwords[ids.pg]!), 'the password stays out of the log')

    const listed = (await inject('GET', `/database/${ids.pg}/backup`, w.tokens.read.authorization)).json()
    assert.deepEqual(
      listed.results.map((row: Body) => row.id),
      [backup.id],
    )
    assert.equal(listed.last_successful_backup_at, backup.ended_at)
    // The database's status says it too (a Berth extension of getDatabaseStatus).
    const status = (await inject('GET', `/database/${ids.pg}/status`, w.tokens.read.authorization)).json()
    assert.equal(status.last_successful_backup_at, backup.ended_at)

    await psql(ids.pg, 'drop table orders')
    const restore = await restored(ids.pg, backup.id)
    assert.equal(restore.restore_status, 'DONE', JSON.stringify(restore))
    assert.equal(restore.backup_name, 'before the drop')
    assert.match(restore.triggered_by, /API token/)
    assert.match(restore.log, /checksum verified/)
    assert.equal(await psql(ids.pg, 'select count(*) from orders'), '500')
    const history = (await inject('GET', `/database/${ids.pg}/restore`, w.tokens.read.authorization)).json()
    assert.deepEqual(
      history.results.map((row: Body) => row.id),
      [restore.id],
    )
  })

  it('refuses a restore while a deployment of the database is queued or running', async () => {
    const [backup] = (await inject('GET', `/database/${ids.pg}/backup`, w.tokens.read.authorization)).json().results
    await calls.trigger(`/database/${ids.pg}/redeploy`, w.tokens.deploy.authorization)
    const refused = await inject('POST', `/database/${ids.pg}/backup/${backup.id}/restore`, w.tokens.deploy.authorization, {})
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().message, /deployment of the database/)
    await until(
      () => calls.entries(w.environment.id, w.tokens.read.authorization),
      (list) => ['SUCCESS', 'ERROR', 'CANCELED'].includes(list[0]!.action_status),
      { timeoutMs: 120_000, intervalMs: 250, what: 'the redeploy' },
    )
    await until(
      () => psql(ids.pg, 'select count(*) from orders').catch(() => ''),
      (answer) => answer === '500',
      { timeoutMs: 60_000, intervalMs: 250 },
    )
  })

  it('checks the stored object’s SHA-256 before it touches the database', async () => {
    const [backup] = (await inject('GET', `/database/${ids.pg}/backup`, w.tokens.read.authorization)).json().results
    const file = path.join(localBackupsRoot(dataDir), w.organization.id, ids.pg, `${backup.id}.pgdump.gz`)
    const original = await readFile(file)
    const tampered = Buffer.from(original)
    tampered[tampered.length - 20] = tampered[tampered.length - 20]! ^ 0xff
    await writeFile(file, tampered)
    await psql(ids.pg, 'insert into orders values (501, $$after the backup$$)')
    const restore = await restored(ids.pg, backup.id)
    assert.equal(restore.restore_status, 'ERROR')
    assert.match(restore.error_message, /checksum mismatch.*nothing was restored/)
    assert.equal(await psql(ids.pg, 'select count(*) from orders'), '501')
    await writeFile(file, original)
  })

  it('backs up to an S3 store, restores that into a second database, and deletes the object with the backup', async () => {
    const body = {
      name: 'moto',
      kind: 'S3',
      endpoint: moto.endpoint,
      region: moto.region,
      bucket: BUCKET,
      prefix: 'berth/',
      path_style: true,
      access_key_id: moto.accessKeyId,
      secret_access_key: moto.secretAccessKey,
    }
    const byWrite = await inject('POST', `/organization/${w.organization.id}/backupDestination`, w.tokens.write.authorization, body)
    assert.equal(byWrite.statusCode, 403, byWrite.body)
    const created = await inject('POST', `/organization/${w.organization.id}/backupDestination`, w.tokens.admin.authorization, body)
    assert.equal(created.statusCode, 201, created.body)
    assert.ok(!created.body.includes(moto.secretAccessKey), 'the secret is never returned')
    destinationId = created.json().id

    const queued = await takeBackup(ids.pg, { name: 'to s3', destination_id: destinationId })
    const backup = await ended(ids.pg, queued.id)
    assert.equal(backup.backup_status, 'DONE', JSON.stringify(backup))
    const key = `berth/${w.organization.id}/${ids.pg}/${backup.id}.pgdump.gz`
    assert.ok((await moto.keys(BUCKET)).includes(key))
    const object = await moto.object(BUCKET, key)
    assert.equal(sha256(object), backup.sha256)
    assert.equal(object.length, backup.size_bytes)

    const inUse = await inject('DELETE', `/organization/${w.organization.id}/backupDestination/${destinationId}`, w.tokens.admin.authorization)
    assert.equal(inUse.statusCode, 409, inUse.body)

    const copy = await restored(ids.pg, backup.id, { target_database_id: ids.pg2 })
    assert.equal(copy.restore_status, 'DONE', JSON.stringify(copy))
    assert.equal(copy.database_id, ids.pg2)
    assert.equal(copy.source_database_id, ids.pg)
    assert.equal(await psql(ids.pg2, 'select count(*) from orders'), '501')
    const wrongEngine = await inject('POST', `/database/${ids.pg}/backup/${backup.id}/restore`, w.tokens.deploy.authorization, {
      target_database_id: ids.redis,
    })
    assert.equal(wrongEngine.statusCode, 400, wrongEngine.body)

    const byRead = await inject('DELETE', `/database/${ids.pg}/backup/${backup.id}`, w.tokens.read.authorization)
    assert.equal(byRead.statusCode, 403, byRead.body)
    const deleted = await inject('DELETE', `/database/${ids.pg}/backup/${backup.id}`, w.tokens.deploy.authorization)
    assert.equal(deleted.statusCode, 204, deleted.body)
    assert.ok(!(await moto.keys(BUCKET)).includes(key), 'the object went with the backup')
  })

  it('ends ERROR with the store’s own words when the secret is wrong, the secret masked', async () => {
    const wrongSecret = 'wrongSecretKeyThatMotoRefuses0123456789'
    const created = await inject('POST', `/organization/${w.organization.id}/backupDestination`, w.tokens.admin.authorization, {
      name: 'wrong secret',
      kind: 'S3',
      endpoint: moto.endpoint,
      region: moto.region,
      bucket: BUCKET,
      path_style: true,
      access_key_id: moto.accessKeyId,
      secret_access_key: wrongSecret,
    })
    assert.equal(created.statusCode, 201, created.body)
    const queued = await takeBackup(ids.pg, { name: 'refused', destination_id: created.json().id })
    const backup = await ended(ids.pg, queued.id)
    assert.equal(backup.backup_status, 'ERROR')
    assert.equal(backup.status.state, 'DEPLOYMENT_ERROR')
    assert.match(backup.error_message, /SignatureDoesNotMatch/)
    assert.equal(backup.size_bytes, null)
    const log = (await inject('GET', `/database/${ids.pg}/backup/${backup.id}/log`, w.tokens.read.authorization)).json().log
    assert.ok(!`${backup.error_message}${log}`.includes(wrongSecret))
  })

  it('takes each scheduled backup once across two runners, and keeps the two newest after each success', async () => {
    const bad = await inject('PUT', `/database/${ids.pg}/backupSchedule`, w.tokens.write.authorization, { cron: 'every minute', keep_count: 2 })
    assert.equal(bad.statusCode, 400, bad.body)
    const byDeploy = await inject('PUT', `/database/${ids.pg}/backupSchedule`, w.tokens.deploy.authorization, { cron: '* * * * *', keep_count: 2 })
    assert.equal(byDeploy.statusCode, 403, byDeploy.body)
    const set = await inject('PUT', `/database/${ids.pg}/backupSchedule`, w.tokens.write.authorization, {
      cron: '* * * * *',
      timezone: 'Europe/Paris',
      keep_count: 2,
      destination_id: destinationId,
    })
    assert.equal(set.statusCode, 200, set.body)
    const next = Date.parse(set.json().next_backup_at)
    assert.ok(next > Date.now() - 1_000 && next <= Date.now() + 61_000, set.body)

    const scheduled = async () =>
      ((await inject('GET', `/database/${ids.pg}/backup?pageSize=100`, w.tokens.read.authorization)).json().results as Body[]).filter(
        (row) => row.origin === 'SCHEDULED',
      )
    // Each minute's tick, brought forward: the schedule's next time set to now, as the clock would.
    const taken: string[] = []
    for (let tick = 0; tick < 3; tick++) {
      await sql`update database_backup_schedules set next_fire_at = now() where service_id = ${ids.pg}`.execute(t.db)
      const rows = await until(
        scheduled,
        (list) => list.some((row) => !taken.includes(row.id)) && list.every((row) => row.backup_status === 'DONE'),
        { timeoutMs: 120_000, intervalMs: 200, what: `scheduled backup ${tick + 1}` },
      )
      const fresh = rows.filter((row) => !taken.includes(row.id))
      assert.equal(fresh.length, 1, `one backup per tick, however many runners: ${JSON.stringify(fresh)}`)
      taken.push(fresh[0]!.id)
    }
    // Pruned once the third has been recorded DONE.
    const kept = await until(scheduled, (list) => list.length <= 2, { timeoutMs: 30_000, intervalMs: 100, what: 'the retention' })
    assert.deepEqual(
      kept.map((row) => row.id),
      [taken[2], taken[1]],
    )
    const keys = await moto.keys(BUCKET)
    assert.ok(!keys.some((key) => key.includes(taken[0]!)), 'the pruned backup’s object is gone')
    assert.ok(keys.some((key) => key.includes(taken[2]!)))
    assert.equal((await inject('DELETE', `/database/${ids.pg}/backupSchedule`, w.tokens.write.authorization)).statusCode, 204)
  })

  it('round-trips MariaDB (as MySQL) with mysqldump --single-transaction through S3', async () => {
    await mysql('create database shop; create table shop.items (id int primary key, name text); insert into shop.items values (1, "one"), (2, "two")')
    const backup = await ended(ids.mysql, (await takeBackup(ids.mysql, { name: 'mysql', destination_id: destinationId })).id)
    assert.equal(backup.backup_status, 'DONE', JSON.stringify(backup))
    assert.equal(sha256(await moto.object(BUCKET, `berth/${w.organization.id}/${ids.mysql}/${backup.id}.sql.gz`)), backup.sha256)
    await mysql('drop table shop.items')
    const restore = await restored(ids.mysql, backup.id)
    assert.equal(restore.restore_status, 'DONE', JSON.stringify(restore))
    assert.equal(await mysql('select group_concat(name order by id) from shop.items'), 'one,two')
    // The server's own users are not in the dump: the master password still logs in.
    assert.equal(await mysql('select 1'), '1')
  })

  it('round-trips Redis with a fresh RDB snapshot, put back by a replica sync', async () => {
    await redis('SET', 'greeting', 'hello')
    await redis('RPUSH', 'queue', 'a', 'b', 'c')
    const backup = await ended(ids.redis, (await takeBackup(ids.redis, { name: 'redis' })).id)
    assert.equal(backup.backup_status, 'DONE', JSON.stringify(backup))
    await redis('FLUSHALL')
    await redis('SET', 'after', 'the backup')
    assert.equal(await redis('GET', 'greeting'), '')
    const restore = await restored(ids.redis, backup.id)
    assert.equal(restore.restore_status, 'DONE', JSON.stringify(restore))
    assert.equal(await redis('GET', 'greeting'), 'hello')
    assert.equal(await redis('LRANGE', 'queue', '0', '-1'), 'a\nb\nc')
    assert.equal(await redis('GET', 'after'), '')
    assert.match(await redis('INFO', 'replication'), /role:master/)
  })
})
