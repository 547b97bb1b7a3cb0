import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { localBackupsRoot } from '#src/modules/backups/backup-objects.ts'
import { type BackupWorker, createBackupWorker } from '#src/modules/backups/backup-worker.ts'
import { namespaceOf } from '#src/modules/executors/kubernetes/helm-executor.ts'
import { createTestApp, type TestApp, testSecretBox } from './helpers/app.ts'
import { until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type FakeKubeApi, startFakeKubeApi } from './helpers/fake-kube-api.ts'
import { answerExecs, type ExecCall } from './helpers/fake-kube-exec.ts'
import { kubectlBinary } from './helpers/helm-binary.ts'

// Backups of a database on a Kubernetes cluster, by what Berth sends to the API server: the real
// kubectl finds the database's running pod by the built-in chart's `berth.service-id` label and
// execs the engine's tool in it; the fake API server answers the exec as a pod would.

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

const DUMP = Buffer.from('PGDMP fake custom-format archive\n'.repeat(2000))

describe('database backups on Kubernetes', () => {
  let t: TestApp
  let api: FakeKubeApi
  let worker: BackupWorker
  let dataDir: string
  let calls: ExecCall[]
  let w: Awaited<ReturnType<ReturnType<typeof factories>['organizationWithTokens']>>
  let databaseId: string
  let environmentId: string
  let password: string
  let restoreFails = false

  const inject = (method: 'GET' | 'POST', url: string, authorization: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload === undefined ? {} : { payload }) })

  before(async () => {
    api = await startFakeKubeApi()
    calls = answerExecs(api, (call) => {
      if (call.argv.includes('pg_dump')) return { stdout: DUMP }
      if (restoreFails) return { stderr: 'pg_restore: error: could not execute query: ERROR: relation "orders" already exists', exitCode: 1 }
      return {}
    })
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'berth-kube-backups-'))
    t = await createTestApp({ BERTH_DATA_DIR: dataDir })
    const f = factories(t.db)
    w = await f.organizationWithTokens()
    const project = await f.project(w.organization.id)
    const cluster = await f.cluster(w.organization.id, { executor: 'KUBERNETES', kubernetes: 'SELF_MANAGED' }, api.kubeconfig('cluster-token'))
    environmentId = (await f.environment(project.id, { clusterId: cluster.id })).id
    databaseId = (await f.database(environmentId, { type: 'POSTGRESQL', version: '16' })).id
    password = (await inject('GET', `/database/${databaseId}/masterCredentials`, w.tokens.write.authorization)).json().password
    api.pods(namespaceOf(environmentId), [
      { name: 'other-0', labels: { 'berth.service-id': 'someone-else' }, log: [] },
      { name: 'database-0', labels: { 'berth.service-id': databaseId }, log: [] },
    ])
    worker = createBackupWorker({
      db: t.db,
      secrets: testSecretBox(),
      localRoot: localBackupsRoot(dataDir),
      allowPrivateUrls: true,
      defaultExecutor: 'SIMULATED',
      kubectlPath: kubectlBinary(),
      leaseMs: 10_000,
      pollMs: 50,
      log: { info() {}, warn() {} },
    })
    worker.start()
  })
  after(async () => {
    await worker?.stop()
    await t?.close()
    await api?.close()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  const ended = (url: string, field: string) =>
    until(
      async () => (await inject('GET', url, w.tokens.read.authorization)).json() as Body,
      (row) => row[field] === 'DONE' || row[field] === 'ERROR',
      { timeoutMs: 60_000, intervalMs: 100, what: url },
    )

  it('execs pg_dump in the database’s pod and stores what it printed', async () => {
    const taken = await inject('POST', `/database/${databaseId}/backup`, w.tokens.deploy.authorization, { name: 'kube', message: '' })
    assert.equal(taken.statusCode, 201, taken.body)
    const backup = await ended(`/database/${databaseId}/backup/${taken.json().id}`, 'backup_status')
    assert.equal(backup.backup_status, 'DONE', JSON.stringify(backup))
    const stored = await readFile(path.join(localBackupsRoot(dataDir), w.organization.id, databaseId, `${backup.id}.pgdump.gz`))
    assert.deepEqual(gunzipSync(stored), DUMP)

    // The pod was found by its label, in the environment's namespace, with the cluster's credentials.
    const listing = api.requests.find((request) => request.url.startsWith(`/api/v1/namespaces/${namespaceOf(environmentId)}/pods?`))
    assert.ok(listing, JSON.stringify(api.requests.map((request) => request.url)))
    assert.equal(new URL(listing.url, 'https://x').searchParams.get('labelSelector'), `berth.service-id=${databaseId}`)
    assert.equal(listing.authorization, 'Bearer cluster-token')
    const [dump] = calls
    assert.equal(dump!.pod, 'database-0')
    assert.equal(dump!.namespace, namespaceOf(environmentId))
    assert.deepEqual(dump!.argv, ['env', `PGPASSWORD=${password}`, 'pg_dump', '-Fc', '-Z0', '-U', 'superuser', '-d', 'postgres'])
  })

  it('streams the backup back into pg_restore’s stdin, and ends ERROR in pg_restore’s words when it fails', async () => {
    const [backup] = (await inject('GET', `/database/${databaseId}/backup`, w.tokens.read.authorization)).json().results
    const restore = await inject('POST', `/database/${databaseId}/backup/${backup.id}/restore`, w.tokens.deploy.authorization, {})
    assert.equal(restore.statusCode, 201, restore.body)
    const done = await ended(`/database/${databaseId}/restore/${restore.json().id}`, 'restore_status')
    assert.equal(done.restore_status, 'DONE', JSON.stringify(done))
    const fed = calls.at(-1)!
    assert.deepEqual(fed.argv.slice(2), [
      'pg_restore',
      '--clean',
      '--if-exists',
      '--no-owner',
      '--exit-on-error',
      '-U',
      'superuser',
      '-d',
      'postgres',
    ])
    assert.deepEqual(fed.stdin, DUMP)

    restoreFails = true
    const failing = await inject('POST', `/database/${databaseId}/backup/${backup.id}/restore`, w.tokens.deploy.authorization, {})
    const failed = await ended(`/database/${databaseId}/restore/${failing.json().id}`, 'restore_status')
    assert.equal(failed.restore_status, 'ERROR')
    assert.match(failed.error_message, /pg_restore exited with code 1: .*relation "orders" already exists/)
    assert.ok(!`${failed.error_message}${failed.log}`.includes(password), 'the password is masked')
  })
})
