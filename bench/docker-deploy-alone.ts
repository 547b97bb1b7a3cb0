/**
 * `npm run bench:deploy`: the docker-deploy scenario of `npm run bench` alone (bench/docker-deploy.ts),
 * on a throw-away database with a tiny seed, in a minute or two. BENCH_DOCKER_ROUNDS sets its rounds
 * (5); BENCH_DEPLOY_LOG_LEVEL=debug has the server write its deploy trace (docs/performance.md,
 * "Where a deploy's time goes"), and this prints each step's median over the rounds.
 * BENCH_DEPLOY_COMPARE_ROOT names another checkout (with its node_modules) whose `berth serve` is
 * measured in rounds alternating with this one's: a before and after on a machine whose speed
 * drifts. Prints its figures; writes nothing under bench/results/.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createThrowawayDatabase } from '#src/platform/db/throwaway-database.ts'
import { createCleanup } from './cleanup.ts'
import { loadBenchConfig } from './config.ts'
import { type DockerDeployResult, dockerAnswers, dockerDeployServer, measureDockerDeploy } from './docker-deploy.ts'
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

/** A `berth serve` deploying to the engine, from `root`, on a throw-away database of its own (runners sharing one would take each other's runs). */
async function deployingServer(name: string, root: string | undefined, logLevel: string, github: { url: string; token: string }) {
  const database = await createThrowawayDatabase(config.serverUrl, 'berth_bench')
  cleanup.push(`drop database ${database.name}`, () => database.drop())
  const secretKey = randomBytes(32)
  const seeded = await seed({ databaseUrl: database.url, secretKey, environments: 2, bigHistory: 10, smallHistory: 10, github })
  const { env, frontDoor } = await dockerDeployServer()
  const server = await startBerth({
    name,
    databaseUrl: database.url,
    secretKeyHex: secretKey.toString('hex'),
    logDir: workDir,
    logLevel,
    env: { ...env, BERTH_LOG_FORMAT: 'json' },
    timeoutMs: 300_000,
    ...(root ? { root } : {}),
  })
  cleanup.push(`stop ${name}`, () => server.process.stop())
  return { name, server, seeded, frontDoor }
}

type Rounds = DockerDeployResult['rounds']
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!

/** Medians of the rounds, and each less the `docker run` beside it. */
function figures(rounds: Rounds) {
  const of = (pick: (round: Rounds[number]) => number | undefined) => {
    const values = rounds.map(pick).filter((value): value is number => value !== undefined)
    return values.length > 0 ? median(values) : undefined
  }
  return {
    dockerRunMedianMs: of((round) => round.dockerRunMs),
    berthMedianMs: of((round) => round.berthMs),
    frontDoorMedianMs: of((round) => round.frontDoorMs),
    redeployMedianMs: of((round) => round.redeployMs),
    // Each round's own difference (its deploy less the docker run just before it), then their median.
    overheadMs: of((round) => round.berthMs - round.dockerRunMs),
    frontDoorOverheadMs: of((round) => (round.frontDoorMs === undefined ? undefined : round.frontDoorMs - round.dockerRunMs)),
    redeployOverheadMs: of((round) => (round.redeployMs === undefined ? undefined : round.redeployMs - round.dockerRunMs)),
    redeployDropped: rounds.reduce((sum, round) => sum + (round.redeployDropped ?? 0), 0),
    redeployResetsRetried: rounds.reduce((sum, round) => sum + (round.redeployResetsRetried ?? 0), 0),
    redeployRequests: rounds.reduce((sum, round) => sum + (round.redeployRequests ?? 0), 0),
  }
}

async function main(): Promise<void> {
  if (!(await dockerAnswers())) throw new Error('no Docker engine answers at DOCKER_HOST')
  log(`load average ${JSON.stringify(loadAverage())}`)
  const githubToken = `ghp_${randomBytes(18).toString('hex')}`
  const github = await startFakeGithub('bench/repo', 10, githubToken, workDir)
  cleanup.push('stop the fake GitHub', () => github.process.stop())
  const logLevel = process.env.BENCH_DEPLOY_LOG_LEVEL || 'warn'
  // BENCH_DEPLOY_COMPARE_ROOT: another checkout (npm ci'd) whose berth serve is measured in rounds alternating with this one's.
  const other = process.env.BENCH_DEPLOY_COMPARE_ROOT
  const servers = [await deployingServer('berth-docker', undefined, logLevel, { url: github.baseUrl, token: githubToken })]
  if (other) servers.unshift(await deployingServer('berth-compared', path.resolve(other), logLevel, { url: github.baseUrl, token: githubToken }))
  const rounds = new Map<string, Rounds>(servers.map((server) => [server.name, []]))
  for (let round = 0; round < config.dockerRounds; round++) {
    // Each server first every other round.
    for (const { name, server, seeded, frontDoor } of round % 2 === 0 ? servers : [...servers].reverse()) {
      const result = await measureDockerDeploy(server, seeded, 1, (message) => log(`${name}: ${message}`), frontDoor)
      rounds.get(name)!.push(...result.rounds)
    }
  }
  const report = Object.fromEntries(
    servers.map(({ name, server }) => [
      name,
      { root: name === 'berth-compared' ? other : '.', ...figures(rounds.get(name)!), rounds: rounds.get(name), logFile: server.process.logFile },
    ]),
  )
  for (const { server } of servers) await server.process.stop()
  process.stdout.write(`${JSON.stringify({ logLevel, loadAverage: loadAverage(), ...report }, null, 2)}\n`)
  if (logLevel === 'debug') for (const { name, server } of servers) process.stdout.write(`\n${name}:\n${traceTable(server.process.logFile)}\n`)
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
