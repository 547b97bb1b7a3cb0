/**
 * `npm test`: creates a fresh database on the PostgreSQL server (TEST_DATABASE_URL, default the
 * local server), migrates it, runs every test file against it with node's test runner, then drops
 * it. Fails when the runner executed no test at all.
 */
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { createThrowawayDatabase } from '#src/platform/db/throwaway-database.ts'

const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const requested = process.argv.slice(2)
const files =
  requested.length > 0
    ? requested
    : readdirSync('test')
        .filter((f) => f.endsWith('.test.ts'))
        .sort()
        .map((f) => path.join('test', f))

const database = await createThrowawayDatabase(serverUrl, 'berth_test')
const databaseUrl = database.url

let exitCode = 1
try {
  const reporter = process.env.CI ? ['--test-reporter=tap'] : ['--test-reporter=spec']
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...reporter, ...files], {
    env: { ...process.env, DATABASE_URL: databaseUrl, TEST_DATABASE_SERVER_URL: serverUrl, BERTH_LOG_LEVEL: process.env.BERTH_LOG_LEVEL ?? 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let tail = ''
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk)
    tail = (tail + chunk.toString('utf8')).slice(-2000)
  })
  exitCode = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)))
  if (/^(# |ℹ )tests 0$/m.test(tail)) {
    process.stderr.write('no test was executed\n')
    exitCode = 1
  }
} finally {
  await database.drop().catch(() => {})
}
process.exit(exitCode)
