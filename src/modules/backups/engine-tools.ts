import type { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import type { DatabaseType } from '#src/modules/services/kinds/database/database-engines.ts'
import { type DatabaseShell, type StreamingRun, succeeded } from './database-shell.ts'

// Each engine's own tools, run inside the database's container (docs/backups.md, "What a backup
// holds"): PostgreSQL's pg_dump -Fc and pg_restore, MySQL's mysqldump --single-transaction and
// mysql, MongoDB's mongodump --archive and mongorestore, Redis's fresh RDB snapshot (redis-cli
// --rdb) and, to put one back, a replica's full sync from a second redis-server that loaded it.

/** The master credentials a tool logs in with. */
export interface EngineLogin {
  login: string
  password: string
  databaseName: string
}

/** What a step says while it runs. */
export type StepLog = (line: string) => void

export interface EngineTools {
  /** What the stored object's name ends with, before `.gz`. */
  extension: string
  /** Starts the dump: its stdout is the backup. */
  dump(shell: DatabaseShell, login: EngineLogin, log: StepLog, signal: AbortSignal): Promise<StreamingRun>
  /** Puts a dump back, read from `input`. */
  restore(shell: DatabaseShell, login: EngineLogin, input: Readable, log: StepLog, signal: AbortSignal): Promise<void>
}

const postgresql: EngineTools = {
  extension: 'pgdump',
  dump(shell, { login, password, databaseName }, log, signal) {
    log(`pg_dump -Fc of the database "${databaseName}"`)
    // -Z0: Berth compresses the stream once; the archive is left uncompressed inside.
    return shell.stream({ argv: ['pg_dump', '-Fc', '-Z0', '-U', login, '-d', databaseName], env: { PGPASSWORD: password } }, signal)
  },
  async restore(shell, { login, password, databaseName }, input, log, signal) {
    log(`pg_restore --clean --if-exists into the database "${databaseName}"`)
    const argv = ['pg_restore', '--clean', '--if-exists', '--no-owner', '--exit-on-error', '-U', login, '-d', databaseName]
    succeeded('pg_restore', await shell.feed({ argv, env: { PGPASSWORD: password } }, input, signal))
  },
}

/** MySQL's own schemas: never dumped, so that a restore leaves the target's users and settings alone. */
const MYSQL_SYSTEM_SCHEMAS = new Set(['mysql', 'information_schema', 'performance_schema', 'sys'])

const mysql: EngineTools = {
  extension: 'sql',
  async dump(shell, { password }, log, signal) {
    const env = { MYSQL_PWD: password }
    const listed = succeeded('mysql', await shell.run({ argv: ['mysql', '-u', 'root', '-N', '-B', '-e', 'SHOW DATABASES'], env }, signal))
    const schemas = listed.stdout
      .split('\n')
      .map((line) => line.trim())
      .filter((name) => name !== '' && !MYSQL_SYSTEM_SCHEMAS.has(name.toLowerCase()))
    if (schemas.length === 0) throw new Error('nothing to back up: the server holds only its system schemas (mysql, sys…)')
    log(`mysqldump --single-transaction of ${schemas.map((name) => `"${name}"`).join(', ')}`)
    const argv = ['mysqldump', '-u', 'root', '--single-transaction', '--routines', '--events', '--triggers', '--databases', ...schemas]
    return shell.stream({ argv, env }, signal)
  },
  async restore(shell, { password }, input, log, signal) {
    log('mysql reads the dump (its schemas are made again, table by table)')
    succeeded('mysql', await shell.feed({ argv: ['mysql', '-u', 'root'], env: { MYSQL_PWD: password } }, input, signal))
  },
}

const mongodb: EngineTools = {
  extension: 'archive',
  dump(shell, { login, password }, log, signal) {
    log('mongodump --archive of every database')
    const argv = ['mongodump', '--archive', '--quiet', '--username', login, '--password', password, '--authenticationDatabase', 'admin']
    return shell.stream({ argv }, signal)
  },
  async restore(shell, { login, password }, input, log, signal) {
    log('mongorestore --archive --drop')
    const argv = ['mongorestore', '--archive', '--drop', '--quiet', '--username', login, '--password', password, '--authenticationDatabase', 'admin']
    succeeded('mongorestore', await shell.feed({ argv }, input, signal))
  },
}

/** The port of the second redis-server a restore starts, on the container's own loopback. */
export const REDIS_RESTORE_PORT = 16379
const REDIS_RESTORE_WAIT_MS = 10 * 60_000

const redis: EngineTools = {
  extension: 'rdb',
  dump(shell, { password }, log, signal) {
    log('redis-cli --rdb: a fresh RDB snapshot')
    return shell.stream({ argv: ['redis-cli', '--no-auth-warning', '--rdb', '-'], env: { REDISCLI_AUTH: password } }, signal)
  },
  async restore(shell, { password }, input, log, signal) {
    const file = `berth-restore-${Date.now()}.rdb`
    const path = `/data/${file}`
    const main = (...args: string[]) => shell.run({ argv: ['redis-cli', '--no-auth-warning', ...args], env: { REDISCLI_AUTH: password } }, signal)
    const loader = (...args: string[]) => shell.run({ argv: ['redis-cli', '-p', String(REDIS_RESTORE_PORT), ...args] }, signal)
    const answer = async (result: Promise<{ exitCode: number; stdout: string; stderr: string }>, program: string) => {
      const outcome = succeeded(program, await result)
      if (/^(ERR|WRONGPASS|NOAUTH|LOADING)/m.test(outcome.stdout)) throw new Error(`${program}: ${outcome.stdout.trim()}`)
      return outcome.stdout
    }
    log(`the snapshot is written to ${path}`)
    succeeded('dd', await shell.feed({ argv: ['dd', `of=${path}`, 'bs=1048576'] }, input, signal))
    try {
      log(`a second redis-server loads it on 127.0.0.1:${REDIS_RESTORE_PORT} of the container`)
      const serverArgv = ['redis-server', '--port', String(REDIS_RESTORE_PORT), '--bind', '127.0.0.1', '--dir', '/data', '--dbfilename', file]
      // No wait before the full sync (diskless syncs wait 5 s for more replicas by default).
      const quiet = ['--appendonly', 'no', '--save', '', '--repl-diskless-sync-delay', '0', '--daemonize', 'yes']
      const started = await shell.run({ argv: [...serverArgv, ...quiet] }, signal)
      succeeded('redis-server', started)
      const deadline = Date.now() + REDIS_RESTORE_WAIT_MS
      while ((await loader('PING')).stdout.trim() !== 'PONG') {
        if (Date.now() > deadline) throw new Error('the second redis-server did not load the snapshot in time')
        await sleep(200, undefined, { signal })
      }
      log('the database becomes its replica: a full sync replaces its data')
      await answer(main('REPLICAOF', '127.0.0.1', String(REDIS_RESTORE_PORT)), 'redis-cli REPLICAOF')
      try {
        for (;;) {
          const info = await answer(main('INFO', 'replication'), 'redis-cli INFO')
          if (/master_link_status:up/.test(info) && /master_sync_in_progress:0/.test(info)) break
          if (Date.now() > deadline) throw new Error(`the full sync did not end in time: ${info.replace(/\s+/g, ' ').slice(0, 300)}`)
          await sleep(200, undefined, { signal })
        }
      } finally {
        await answer(main('REPLICAOF', 'NO', 'ONE'), 'redis-cli REPLICAOF NO ONE')
      }
      log('the database is a primary again')
    } finally {
      await loader('SHUTDOWN', 'NOSAVE').catch(() => undefined)
      await shell.run({ argv: ['rm', '-f', path] }, AbortSignal.timeout(30_000)).catch(() => undefined)
    }
  },
}

/** Each engine's tools. */
export const ENGINE_TOOLS: Record<DatabaseType, EngineTools> = { POSTGRESQL: postgresql, MYSQL: mysql, MONGODB: mongodb, REDIS: redis }
