import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { createThrowawayDatabase, type ThrowawayDatabase } from '#src/platform/db/throwaway-database.ts'
import { TEST_SECRET_KEY } from './helpers/app.ts'
import { call, processGroup } from './helpers/berth-processes.ts'
import { type ChildEnv, runCli, startServer } from './helpers/process.ts'

// The backup and restore procedures docs/operating.md documents ("Backup and restore"), carried out for real:
// a copy of a stopped embedded data dir, and pg_dump/pg_restore of an external database.

const run = promisify(execFile)

/** Puts an organization, an API token, a project and a sealed git token in place through a running server. */
async function seed(env: ChildEnv, baseUrl: string) {
  const created = await runCli(['token', 'create', '--org', 'Backed up'], env)
  assert.equal(created.code, 0, created.stderr)
  const authorization = `Token ${created.stdout.trim()}`
  const organization = (await call(baseUrl, 'GET', '/organization', authorization)).body.results[0]
  const project = await call(baseUrl, 'POST', `/organization/${organization.id}/project`, authorization, { body: { name: 'kept' } })
  assert.equal(project.status, 200, project.text)
  const gitToken = await call(baseUrl, 'POST', `/organization/${organization.id}/gitToken`, authorization, {
    body: { name: 'sealed', type: 'GITHUB', token: 'ghp_backupRestoreSecret0123456789' },
  })
  assert.ok(gitToken.status < 300, gitToken.text)
  return { authorization, organizationId: organization.id as string }
}

/** What the restored server must still answer. */
async function assertRestored(baseUrl: string, { authorization, organizationId }: { authorization: string; organizationId: string }) {
  const organizations = await call(baseUrl, 'GET', '/organization', authorization)
  assert.equal(organizations.status, 200, 'the API token still authenticates')
  assert.deepEqual(
    organizations.body.results.map((o: { name: string }) => o.name),
    ['Backed up'],
  )
  const projects = await call(baseUrl, 'GET', `/organization/${organizationId}/project`, authorization)
  assert.deepEqual(
    projects.body.results.map((p: { name: string }) => p.name),
    ['kept'],
  )
  const gitTokens = await call(baseUrl, 'GET', `/organization/${organizationId}/gitToken`, authorization)
  assert.deepEqual(
    gitTokens.body.results.map((t: { name: string }) => t.name),
    ['sealed'],
  )
}

describe('backup and restore of the embedded data dir', () => {
  const processes = processGroup()
  const dirs: string[] = []
  after(async () => {
    await processes.stopAll()
    for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true })
  })

  it('a copy of the stopped data dir, unpacked elsewhere, serves the same data with the same sealed secrets', async () => {
    const tmp = async (prefix: string) => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix))
      dirs.push(dir)
      // As root, the postgres system user must reach the cluster inside.
      await fs.chmod(dir, 0o711)
      return dir
    }
    const original = await tmp('berth-backup-')
    const env = { DATABASE_URL: undefined, BERTH_DATA_DIR: original, BERTH_SECRET_KEY: undefined }
    const server = await processes.add(startServer(env, { timeoutMs: 120_000 }))
    const seeded = await seed(env, server.baseUrl)
    assert.equal(await server.stop('SIGTERM'), 0)

    const archive = path.join(await tmp('berth-archive-'), 'berth-backup.tgz')
    await run('tar', ['-C', original, '-czf', archive, '.'])
    await fs.rm(original, { recursive: true, force: true })

    const restored = await tmp('berth-restored-')
    await run('tar', ['-C', restored, '-xzf', archive])
    const again = await processes.add(startServer({ ...env, BERTH_DATA_DIR: restored }, { timeoutMs: 120_000 }))
    await assertRestored(again.baseUrl, seeded)
  })
})

describe('backup and restore of an external PostgreSQL database', () => {
  const processes = processGroup()
  const databases: ThrowawayDatabase[] = []
  const dirs: string[] = []
  after(async () => {
    await processes.stopAll()
    for (const database of databases) await database.drop()
    for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true })
  })

  it('pg_dump, then pg_restore into another database, serves the same data; another secret key is refused', async () => {
    const serverUrl = process.env.TEST_DATABASE_SERVER_URL
    assert.ok(serverUrl, 'TEST_DATABASE_SERVER_URL: run with npm test')
    const [source, target] = [
      await createThrowawayDatabase(serverUrl, 'berth_test_backup'),
      await createThrowawayDatabase(serverUrl, 'berth_test_restore'),
    ]
    databases.push(source, target)
    const env = { DATABASE_URL: source.url, BERTH_SECRET_KEY: TEST_SECRET_KEY, BERTH_RUNNER_IN_SERVE: 'false' }
    const server = await processes.add(startServer(env))
    const seeded = await seed(env, server.baseUrl)

    // Online, while the server runs.
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'berth-dump-'))
    dirs.push(dir)
    const dump = path.join(dir, 'berth.dump')
    await run('pg_dump', ['-Fc', '-d', source.url, '-f', dump])
    await server.stop('SIGTERM')
    // Into a database that already has the schema (as one a server was started on does).
    await run('pg_restore', ['--clean', '--if-exists', '--no-owner', '-d', target.url, dump])

    const restored = await processes.add(startServer({ ...env, DATABASE_URL: target.url }))
    await assertRestored(restored.baseUrl, seeded)
    await restored.stop('SIGTERM')

    const wrongKey = await runCli(['serve'], { ...env, DATABASE_URL: target.url, PORT: '0', BERTH_SECRET_KEY: 'c'.repeat(64) })
    assert.notEqual(wrongKey.code, 0, 'a server with another key must not start on the restored database')
    assert.match(wrongKey.stdout + wrongKey.stderr, /secret key/i)
  })
})
