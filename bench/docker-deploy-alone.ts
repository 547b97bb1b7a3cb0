/**
 * `npm run bench:deploy`: the docker-deploy scenario of `npm run bench` alone (bench/docker-deploy.ts),
 * on a throw-away database with a tiny seed, in a minute or two. BENCH_DOCKER_ROUNDS sets its rounds
 * (5); BENCH_DEPLOY_LOG_LEVEL=debug has the server write its deploy trace (docs/performance.md,
 * "Where a deploy's time goes"), and this prints each step's median over the rounds. Prints its
 * figures; writes nothing under bench/results/.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createThrowawayDatabase } from '#src/platform/db/throwaway-database.ts'
import { createCleanup } from './cleanup.ts'
import { loadBenchConfig } from './config.ts'
import { dockerAnswers, dockerDeployServer, measureDockerDeploy } from './docker-deploy.ts'
import { loadAverage } from './machine.ts'
import { seed } from './seed.ts'
import { startBerth, startFakeGithub } from './servers.ts'

const config = loadBenchConfig()
const started = performance.now()
const log = (message: string) => process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}\n`)
const workDir = mkdtempSync(path.join(os.tmpdir(), 'berth-bench-deploy-'))
const cleanup = createCleanup(log)
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanup.run().then(() => process.exit(130)))

/** Each traced step's median and count over the server's log lines (`trace: 'deploy'`). */
function traceTable(logFile: string): string {
  const steps = new Map<string, number[]>()
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('"trace":"deploy"')) continue
    const entry = JSON.parse(line) as { step: string; ms: number }
    steps.set(entry.step, [...(steps.get(entry.step) ?? []), entry.ms])
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!
  return [
    '| step | median ms | times |',
    '|---|---|---|',
    ...[...steps].map(([step, values]) => `| ${step} | ${median(values)} | ${values.length} |`),
  ].join('\n')
}

async function main(): Promise<void> {
  if (!(await dockerAnswers())) throw new Error('no Docker engine answers at DOCKER_HOST')
  log(`load average ${JSON.stringify(loadAverage())}`)
  const githubToken = `ghp_${randomBytes(18).toString('hex')}`
  const github = await startFakeGithub('bench/repo', 10, githubToken, workDir)
  cleanup.push('stop the fake GitHub', () => github.process.stop())
  const database = await createThrowawayDatabase(config.serverUrl, 'berth_bench')
  cleanup.push(`drop database ${database.name}`, () => database.drop())
  const secretKey = randomBytes(32)
  const seeded = await seed({
    databaseUrl: database.url,
    secretKey,
    environments: 2,
    bigHistory: 10,
    smallHistory: 10,
    github: { url: github.baseUrl, token: githubToken },
  })
  const { env, frontDoor } = await dockerDeployServer()
  const logLevel = process.env.BENCH_DEPLOY_LOG_LEVEL || 'warn'
  const server = await startBerth({
    name: 'berth-docker',
    databaseUrl: database.url,
    secretKeyHex: secretKey.toString('hex'),
    logDir: workDir,
    logLevel,
    env: { ...env, BERTH_LOG_FORMAT: 'json' },
  })
  cleanup.push('stop berth-docker', () => server.process.stop())
  const result = await measureDockerDeploy(server, seeded, config.dockerRounds, log, frontDoor)
  await server.process.stop()
  const { method: _method, rounds, ...figures } = result
  process.stdout.write(`${JSON.stringify({ logLevel, loadAverage: loadAverage(), ...figures, rounds }, null, 2)}\n`)
  if (logLevel === 'debug') process.stdout.write(`\n${traceTable(server.process.logFile)}\n`)
}

let failed = false
try {
  await main()
} catch (error) {
  failed = true
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
} finally {
  await cleanup.run()
}
if (failed) {
  log(`the processes' logs are kept in ${workDir}`)
  process.exitCode = 1
} else rmSync(workDir, { recursive: true, force: true })
