/**
 * `npm run bench`: seeds a fresh database on the PostgreSQL server, drives `berth serve` (its own
 * process) with autocannon beside a bare node:http ceiling and Prism mocking Berth's own OpenAPI
 * document, and writes bench/results/latest.json and latest.md. Settings: BENCH_* variables, and
 * BERTH_BENCH_QUICK=1 for a trial run of a few seconds (bench/config.ts).
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createThrowawayDatabase } from '#src/platform/db/throwaway-database.ts'
import { databaseEngineImages } from '../test/helpers/database-engine-images.ts'
import { createCleanup } from './cleanup.ts'
import { loadBenchConfig } from './config.ts'
import { measureDatabaseBackup } from './database-backup.ts'
import { ID_PLACEHOLDER } from './deployment-template.ts'
import { dockerAnswers, dockerDeployServer, measureDockerDeploy } from './docker-deploy.ts'
import { EVENT_TITLES, eventSettings, measureAuditCost, measureWebhookLatency } from './events.ts'
import { measureFreshness } from './freshness.ts'
import { fetchOnce, type LoadResult, measure, probe, type Target, warm } from './load.ts'
import { describeMachine, describeSource, loadAverage } from './machine.ts'
import { measureMetricsExporter } from './metrics-exporter.ts'
import { freePort } from './processes.ts'
import {
  type BenchResults,
  type BerthRun,
  formattedJson,
  type ScaleRun,
  type ScenarioResult,
  scaleMarkdown,
  scaleTargets,
  targetSummary,
  targetsOf,
  writeResults,
} from './report.ts'
import { availableMemory, measureScale, SCALE_MIN_FREE_BYTES, sweepEnvironments } from './scale.ts'
import {
  authOnlyTargets,
  type BerthScenario,
  BRANCH_REPOSITORY,
  berthTargets,
  branchesPath,
  historyPath,
  PAGE_SIZE,
  SCENARIO_TITLES,
} from './scenarios.ts'
import { type Seeded, seed } from './seed.ts'
import {
  type BerthServer,
  HISTORY_VERSION_TTL_MS,
  IDLE_SETTLE_MS,
  repoRoot,
  startBerth,
  startCeiling,
  startFakeGithub,
  startPrism,
} from './servers.ts'

const config = loadBenchConfig()
const startedAt = new Date()
const log = (message: string) => process.stderr.write(`[bench ${((Date.now() - startedAt.getTime()) / 1000).toFixed(1).padStart(6)} s] ${message}\n`)
const workDir = mkdtempSync(path.join(os.tmpdir(), 'berth-bench-'))
const cleanup = createCleanup(log)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping what the benchmark started`)
    const exit = () => {
      log(`the processes' logs are kept in ${workDir}`)
      process.exit(130)
    }
    cleanup.run().then(exit, exit)
  })
}

const loadOptions = { connections: config.connections, warmupS: config.warmupS, durationS: config.durationS }
const summary = (load: LoadResult) =>
  `${load.requestsPerSec} req/s, p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms, errors ${load.errors}, non-2xx ${load.non2xx}`

/** Fails unless the route answers 200 now: a benchmark of error pages measures nothing. */
async function expectOk(title: string, target: Target): Promise<Buffer> {
  const { status, body } = await fetchOnce(target)
  if (status !== 200) throw new Error(`${title}: ${target.url} answered ${status}: ${body.toString('utf8').slice(0, 500)}`)
  return body
}

interface PageBody {
  page: number
  results: { identifier: { execution_id: string }; auditing_data: { created_at: string } }[]
  has_more: boolean
}

/** Fails unless a page of the big history is what the seed should give: full, numbered, distinct entries newest first. */
function checkPage(title: string, body: Buffer, expectedPage: number): void {
  const page = JSON.parse(body.toString('utf8')) as PageBody
  const ids = new Set(page.results.map((entry) => entry.identifier.execution_id))
  const times = page.results.map((entry) => Date.parse(entry.auditing_data.created_at))
  const problems = [
    page.results.length === PAGE_SIZE && page.has_more ? '' : `${page.results.length} entries, has_more ${page.has_more}`,
    page.page === expectedPage ? '' : `page ${page.page} instead of ${expectedPage}`,
    ids.size === PAGE_SIZE && !ids.has(ID_PLACEHOLDER) ? '' : 'execution ids repeated or not filled in',
    times.every((time, i) => i === 0 || time < times[i - 1]!) ? '' : 'entries not newest first',
  ].filter(Boolean)
  if (problems.length > 0) throw new Error(`the ${title} is not as seeded: ${problems.join('; ')}`)
}

/** The one-connection p50 of a 400 after authenticating, less that of a 401 without credentials. */
async function measureAuthOnly(targets: { withToken: Target; withoutToken: Target }): Promise<BerthRun['authOnly']> {
  const withToken = await probe(targets.withToken, config.probeRequests)
  const withoutToken = await probe(targets.withoutToken, config.probeRequests)
  if (withToken.statuses[400] !== withToken.requests || withoutToken.statuses[401] !== withoutToken.requests) {
    throw new Error(`authentication alone: expected only 400s and 401s, got ${JSON.stringify([withToken.statuses, withoutToken.statuses])}`)
  }
  const addedP50Ms = Math.round((withToken.latencyMs.p50 - withoutToken.latencyMs.p50) * 1000) / 1000
  return { withToken, withoutToken, addedP50Ms }
}

/** Berth's scenarios, each under load then one request at a time, on a server at one log level. */
async function measureBerth(server: BerthServer, logLevel: string, seeded: Seeded): Promise<BerthRun> {
  const scenarios = {} as Record<BerthScenario, ScenarioResult>
  const targets = Object.entries(berthTargets(server.baseUrl, seeded)) as [BerthScenario, Target][]
  // A server just started compiles its code as it runs: every route is loaded once before any is
  // measured, so that the first scenario does not pay for what the later ones get for free.
  for (const [, target] of targets) await warm(target, config.connections, config.serverWarmupS)
  for (const [key, target] of targets) {
    const load = await measure(target, loadOptions)
    const probed = await probe(target, config.probeRequests)
    scenarios[key] = { load, probe: probed, peakRssAfterBytes: server.process.peakRss() ?? null }
    log(`[log ${logLevel}] ${SCENARIO_TITLES[key]}: ${summary(load)}; one connection p50 ${probed.latencyMs.p50} ms`)
  }
  const authOnly = await measureAuthOnly(authOnlyTargets(server.baseUrl, seeded))
  log(`[log ${logLevel}] authentication alone adds ${authOnly.addedP50Ms} ms p50 (one connection)`)
  return {
    logLevel,
    scenarios,
    authOnly,
    idleRssBytes: server.idleRssBytes,
    peakRssBytes: server.process.peakRss() ?? null,
    logBytes: server.process.logBytes(),
  }
}

/**
 * The bare node:http server sending the bytes Berth sent for the first page, on the same path,
 * measured in rounds alternating with Berth's first page (`berthFirst`, on the server still
 * running): the machine's speed drifts (other work, a shared host), and the ratio of two loads
 * run side by side in time drifts far less than that of two loads minutes apart. The target is
 * judged on the median round; the ceiling's row is its median round.
 */
async function measureCeiling(bodyFile: string, seeded: Seeded, berthFirst: Target, logLevel: string): Promise<BenchResults['ceiling']> {
  const bare = await startCeiling(bodyFile, workDir)
  cleanup.push('stop the ceiling server', () => bare.process.stop())
  const target = { url: `${bare.baseUrl}${historyPath(seeded.bigEnvironmentId)}` }
  const body = await expectOk('ceiling', target)
  const options = { ...loadOptions, warmupS: 1, durationS: config.pairedDurationS }
  const rounds: { ceiling: LoadResult; berth: LoadResult; ratio: number }[] = []
  for (let i = 0; i < config.pairedRounds; i++) {
    const ceilingLoad = await measure(target, options)
    const berthLoad = await measure(berthFirst, options)
    rounds.push({ ceiling: ceilingLoad, berth: berthLoad, ratio: berthLoad.requestsPerSec / ceilingLoad.requestsPerSec })
    log(`${SCENARIO_TITLES.ceiling}, round ${i + 1}: ${ceilingLoad.requestsPerSec} req/s; Berth's first page ${berthLoad.requestsPerSec} req/s`)
  }
  // The lower of the two middle rounds when there is an even number of them.
  const median = <T>(items: T[], by: (item: T) => number) => [...items].sort((a, b) => by(a) - by(b))[Math.floor((items.length - 1) / 2)]!
  await bare.process.stop()
  return {
    load: median(rounds, (round) => round.ceiling.requestsPerSec).ceiling,
    bodyBytes: body.length,
    paired: {
      logLevel,
      rounds: rounds.map((round) => ({
        ceilingRps: round.ceiling.requestsPerSec,
        berthRps: round.berth.requestsPerSec,
        ratio: Math.round(round.ratio * 1000) / 1000,
      })),
      medianRatio: Math.round(median(rounds, (round) => round.ratio).ratio * 1000) / 1000,
    },
  }
}

/**
 * Prism mocking Berth's own OpenAPI document (`specFile`, as the measured server served it), on the
 * first page's route with the same credentials: the repository holds everything the comparison needs.
 */
async function measurePrism(specFile: string, seeded: Seeded): Promise<BenchResults['prism']> {
  const specNote = "Berth's own OpenAPI document, as the measured server serves it at /openapi.json"
  const mock = await startPrism(specFile, workDir)
  cleanup.push('stop Prism', () => mock.process.stop())
  const target = { url: `${mock.baseUrl}${historyPath(seeded.bigEnvironmentId)}`, headers: { authorization: seeded.authorization } }
  const body = await expectOk('prism', target)
  const result = { load: await measure(target, loadOptions), bodyBytes: body.length, spec: specNote }
  log(`${SCENARIO_TITLES.prism}: ${summary(result.load)}`)
  await mock.process.stop()
  return result
}

/**
 * One host, many services (bench/scale.ts): a server of its own with its runner, the Docker
 * executor and its Caddy on free ports; skipped, saying why, without an engine or 8 GB available.
 */
async function runScale(databaseUrl: string, secretKeyHex: string, seeded: Seeded, logLevel: string): Promise<ScaleRun> {
  if (!(await dockerAnswers())) return { skipped: 'no Docker engine answers at DOCKER_HOST' }
  const available = availableMemory()
  if (available < SCALE_MIN_FREE_BYTES) {
    const skipped = `skipped: ${Math.round((available / 2 ** 30) * 10) / 10} GB available, the scale scenario wants at least 8 GB`
    log(`scale: ${skipped}`)
    return { skipped }
  }
  const [httpPort, httpsPort, adminPort] = [await freePort(), await freePort(), await freePort()]
  const name = 'berth-scale'
  const server = await startBerth({
    name,
    databaseUrl,
    secretKeyHex,
    logDir: workDir,
    logLevel,
    // Its Caddy starts first; on a busy shared machine that has taken over a minute.
    timeoutMs: 300_000,
    env: {
      BERTH_RUNNER_IN_SERVE: 'true',
      BERTH_EXECUTOR: 'docker',
      BERTH_DOCKER_PUBLISH_HOST: '127.0.0.1',
      BERTH_MONITORING: 'off',
      BERTH_PROXY_HTTP_PORT: String(httpPort),
      BERTH_PROXY_HTTPS_PORT: String(httpsPort),
      BERTH_PROXY_ADMIN_PORT: String(adminPort),
      BERTH_PROXY_LISTEN_HOST: '127.0.0.1',
    },
  })
  const environmentIds = new Set<string>()
  // Whatever happens (and on Ctrl-C): the server stopped (its Caddy with it), then every container and network of the scenario removed.
  const sweep = async () => {
    await server.process.stop()
    const swept = await sweepEnvironments(environmentIds)
    if (swept.containers + swept.networks > 0) log(`scale: removed ${swept.containers} containers and ${swept.networks} networks`)
  }
  cleanup.push('remove the scale scenario’s containers and networks', sweep)
  try {
    const result = await measureScale(
      { server, databaseUrl, dataDir: path.join(workDir, `${name}-data`), adminUrl: `http://127.0.0.1:${adminPort}`, httpsPort },
      seeded,
      { services: config.scaleServices, probeRounds: config.scaleProbeRounds, load: loadOptions },
      environmentIds,
      log,
    )
    return { ...result, logLevel }
  } finally {
    await sweep()
  }
}

type StartBerth = (name: string, logLevel: string, env?: Record<string, string>) => Promise<BerthServer>

/** The Docker stats exporter's cost: the API and Berth's CPU with 50 containers read and scraped, against none. */
async function runMetricsExporter(berthServer: StartBerth, seeded: Seeded, logLevel: string): Promise<BenchResults['metricsExporter']> {
  if (!(await dockerAnswers())) return { skipped: 'no Docker engine answers at DOCKER_HOST' }
  const intervalMs = 5_000
  const exporter = await berthServer('berth-metrics', logLevel, {
    BERTH_EXECUTOR: 'docker',
    BERTH_PROXY: 'off',
    BERTH_MONITORING: 'off',
    BERTH_METRICS_INTERVAL_MS: String(intervalMs),
  })
  const options = { containers: config.quick ? 5 : 50, intervalMs, idleSeconds: config.quick ? 5 : 30, load: loadOptions }
  const result = { ...(await measureMetricsExporter(exporter, seeded, options, log)), logLevel }
  await exporter.process.stop()
  return result
}

const exporterNote = (result: BenchResults['metricsExporter']) =>
  result && 'throughputRatio' in result
    ? `Docker stats exporter: with ${result.containers} containers read every ${result.intervalMs} ms and scraped, the API did ${result.running.load.requestsPerSec} req/s against ${result.none.load.requestsPerSec} with none (ratio ${result.throughputRatio}); berth serve's idle CPU ${result.running.idleCpuPercent} % against ${result.none.idleCpuPercent} %; a scrape ${result.running.scrapeBytes} bytes. Reported, not a target.`
    : `Docker stats exporter: ${result?.skipped ?? 'not run'}.`

async function main(): Promise<void> {
  const machine = await describeMachine(config.serverUrl)
  // Read before the servers start: they build from src/ as it is then.
  const source = describeSource(repoRoot)
  log(`${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}`)

  const githubToken = `ghp_${randomBytes(18).toString('hex')}`
  const github = await startFakeGithub(BRANCH_REPOSITORY, config.branches, githubToken, workDir)
  cleanup.push('stop the fake GitHub', () => github.process.stop())

  const database = await createThrowawayDatabase(config.serverUrl, 'berth_bench')
  cleanup.push(`drop database ${database.name}`, () => database.drop())
  log(`database ${database.name} created and migrated; seeding`)

  const secretKey = randomBytes(32)
  const seeded = await seed({
    databaseUrl: database.url,
    secretKey,
    environments: config.environments,
    bigHistory: config.bigHistory,
    smallHistory: config.smallHistory,
    github: { url: github.baseUrl, token: githubToken },
  })
  log(`seeded in ${seeded.seconds.total} s: ${seeded.rows.environments} environments, ${seeded.rows.deploymentRequests} deployments`)

  if (config.only === 'scale') {
    const scale = await runScale(database.url, secretKey.toString('hex'), seeded, config.logLevels[0]!)
    const text = scaleMarkdown(scale, { machine: { ...machine, loadAverage: { ...machine.loadAverage, atEnd: loadAverage() } }, source })
    process.stdout.write(`\n${text}\n`)
    if (!config.quick && 'services' in scale) {
      const file = path.join(repoRoot, 'bench', 'results', `scale-${scale.services}.json`)
      const json = JSON.stringify({ machine, source, scale }, null, 2)
      // Short lists of numbers on one line, as the repository's formatter (biome) writes them.
      writeFileSync(
        file,
        `${json.replace(/\[\n\s+(-?[\d.]+(?:,\n\s+-?[\d.]+)*)\n\s+\]/g, (_m, list: string) => `[${list.split(/,\n\s+/).join(', ')}]`)}\n`,
      )
      log(`written to ${file}`)
    }
    const targets = scaleTargets(scale)
    log(`targets:\n${targetSummary(targets)}`)
    return
  }

  const berthServer = (name: string, logLevel: string, env: Record<string, string> = {}) =>
    startBerth({
      name,
      databaseUrl: database.url,
      secretKeyHex: secretKey.toString('hex'),
      logDir: workDir,
      logLevel,
      env,
      nodeArgs: config.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${config.cpuProfileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [],
    }).then((server) => {
      cleanup.push(`stop ${name}`, () => server.process.stop())
      return server
    })

  if (config.only === 'metricsExporter') {
    const result = await runMetricsExporter(berthServer, seeded, config.logLevels[0]!)
    const dir = config.quick ? path.join(workDir, 'results') : path.join(repoRoot, 'bench', 'results')
    mkdirSync(dir, { recursive: true })
    const file = path.join(dir, 'metrics-exporter.json')
    writeFileSync(file, formattedJson({ startedAt: startedAt.toISOString(), machine, source, result }))
    process.stdout.write(`\n${exporterNote(result)}\n`)
    log(`written to ${file}`)
    return
  }

  const ceilingBody = path.join(workDir, 'first-page.json')
  const openApiDocument = path.join(workDir, 'openapi.json')
  const berth: BerthRun[] = []
  let ceiling: BenchResults['ceiling'] | undefined
  let prism: BenchResults['prism'] | undefined
  for (const logLevel of config.logLevels) {
    const server = await berthServer(`berth-${logLevel}`, logLevel)
    const targets = berthTargets(server.baseUrl, seeded)
    for (const [key, target] of Object.entries(targets)) await expectOk(key, target)
    const firstPage = await expectOk('historyFirst', targets.historyFirst)
    checkPage('first page', firstPage, 1)
    checkPage('deep page', await expectOk('historyDeep', targets.historyDeep), Math.floor(seeded.deepPagePosition / PAGE_SIZE) + 1)
    if (berth.length === 0) {
      writeFileSync(ceilingBody, firstPage)
      writeFileSync(openApiDocument, await expectOk('openapi', { url: `${server.baseUrl}/openapi.json` }))
    }

    berth.push(await measureBerth(server, logLevel, seeded))
    if (!ceiling) ceiling = await measureCeiling(ceilingBody, seeded, targets.historyFirst, logLevel)
    await server.process.stop()
    prism ??= await measurePrism(openApiDocument, seeded)
  }

  // Cold: a server that keeps no listing (BERTH_GIT_CACHE_TTL_MS=0), one request at a time, so that
  // every request lists all pages at the provider (concurrent identical requests would share one).
  const coldLevel = config.logLevels[0]!
  const coldServer = await berthServer('berth-cold', coldLevel, { BERTH_GIT_CACHE_TTL_MS: '0' })
  const coldTarget: Target = { url: `${coldServer.baseUrl}${branchesPath(seeded)}`, headers: { authorization: seeded.authorization } }
  await expectOk('branchesCold', coldTarget)
  const coldLoad = await measure(coldTarget, { ...loadOptions, connections: 1 })
  log(`${SCENARIO_TITLES.branchesCold}: ${summary(coldLoad)}`)
  const branchesCold = {
    method: 'a second berth serve with BERTH_GIT_CACHE_TTL_MS=0, one connection (each request lists every page at the loopback GitHub)',
    logLevel: coldLevel,
    load: coldLoad,
    peakRssBytes: coldServer.process.peakRss() ?? null,
  }
  await coldServer.process.stop()

  // Last, as it adds to the 1k environment's history: a change on one of two servers.
  const changer = await berthServer('berth-changer', coldLevel)
  const replica = await berthServer('berth-replica', coldLevel)
  const freshness = {
    ...(await measureFreshness(
      { changer, replica },
      { page: historyPath(seeded.smallEnvironmentId), deploy: `/environment/${seeded.smallEnvironmentId}/deploy` },
      seeded.authorization,
      config.freshnessChanges,
    )),
    logLevel: coldLevel,
    versionTtlMs: HISTORY_VERSION_TTL_MS,
  }
  log(
    `${SCENARIO_TITLES.freshness}: ${freshness.staleFromChanger} stale of ${freshness.changes} from the changer; ` +
      `the other server p50 ${freshness.replicaDelayMs.p50} ms, max ${freshness.replicaDelayMs.max} ms`,
  )
  await Promise.all([changer.process.stop(), replica.process.stop()])

  // Issue 45: the audit log's cost on writes, and the time from a deployment's end to its webhook.
  const events = eventSettings(config.quick)
  const writer = await berthServer('berth-audit', coldLevel)
  const auditCost = {
    ...(await measureAuditCost(writer, database.url, seeded, { rounds: events.auditRounds, mixes: events.auditMixes }, log)),
    logLevel: coldLevel,
  }
  log(`${EVENT_TITLES.auditCost}: ${auditCost.onMedianMs} ms a write with, ${auditCost.offMedianMs} ms without`)
  await writer.process.stop()
  const notifier = await berthServer('berth-webhooks', coldLevel, { BERTH_RUNNER_IN_SERVE: 'true', BERTH_SIMULATED_STEP_MS: '0' })
  const webhookLatency = {
    ...(await measureWebhookLatency(notifier, seeded, { deployments: events.webhookDeployments, pollMs: 500 }, log)),
    logLevel: coldLevel,
  }
  await notifier.process.stop()

  // Deploy overhead over the engine, when one answers: a server with its runner, deploying to Docker.
  let dockerDeploy: BenchResults['dockerDeploy'] = { skipped: 'no Docker engine answers at DOCKER_HOST' }
  if (await dockerAnswers()) {
    const { env, frontDoor } = await dockerDeployServer()
    const deployer = await berthServer('berth-docker', coldLevel, env)
    dockerDeploy = { ...(await measureDockerDeploy(deployer, seeded, config.dockerRounds, log, frontDoor)), logLevel: coldLevel }
    log(
      `${SCENARIO_TITLES.dockerDeploy}: Berth p50 ${dockerDeploy.berthMedianMs} ms, docker run p50 ${dockerDeploy.dockerRunMedianMs} ms, ` +
        `overhead ${dockerDeploy.overheadMs} ms`,
    )
    await deployer.process.stop()
  }

  // A database backup through Berth against the same dump by hand, when an engine answers.
  let databaseBackup: BenchResults['databaseBackup'] = { skipped: 'no Docker engine answers at DOCKER_HOST' }
  if (await dockerAnswers()) {
    const images = await databaseEngineImages()
    const backuper = await berthServer('berth-backups', coldLevel, {
      BERTH_RUNNER_IN_SERVE: 'true',
      BERTH_EXECUTOR: 'docker',
      BERTH_DOCKER_DATABASE_IMAGES: images,
    })
    const dataDir = path.join(workDir, 'berth-backups-data')
    const options = { rounds: config.backupRounds, rows: config.backupRows }
    databaseBackup = { ...(await measureDatabaseBackup(backuper, dataDir, seeded, options, log)), logLevel: coldLevel }
    log(
      `${SCENARIO_TITLES.databaseBackup}: Berth p50 ${databaseBackup.berthMedianMs} ms, by hand p50 ${databaseBackup.byHandMedianMs} ms, ` +
        `peak RSS ${Math.round((databaseBackup.peakRssBytes ?? 0) / 2 ** 20)} MB`,
    )
    await backuper.process.stop()
  }

  const metricsExporter = await runMetricsExporter(berthServer, seeded, coldLevel)

  const scale = await runScale(database.url, secretKey.toString('hex'), seeded, coldLevel)

  const { authorization: _secret, ...seedFacts } = seeded
  const finishedAt = new Date()
  const results: BenchResults = {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    totalSeconds: Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000),
    machine: { ...machine, loadAverage: { ...machine.loadAverage, atEnd: loadAverage() } },
    source,
    settings: { ...loadOptions, probeRequests: config.probeRequests, pageSize: PAGE_SIZE, pairedDurationS: config.pairedDurationS },
    seed: {
      ...seedFacts,
      note: 'service_deployments (the helm services’ own histories) is not seeded: helm history is not measured.',
    },
    berth,
    branchesCold,
    ceiling: ceiling!,
    prism: prism!,
    freshness,
    dockerDeploy,
    databaseBackup,
    auditCost,
    webhookLatency,
    metricsExporter,
    scale,
    enforced: !config.quick,
    notes: [
      ...(config.quick
        ? ['Quick trial (BERTH_BENCH_QUICK=1): tiny seeds and sub-second loads, to check that the benchmark runs. Its numbers measure nothing.']
        : []),
      `Idle RSS is the berth serve process's VmRSS ${IDLE_SETTLE_MS / 1000} s after it first answered /healthz, before any other request; peak RSS is its VmHWM; the PostgreSQL server's memory is not included (it is the system PostgreSQL, shared with other databases). The cold-listing server peaked at ${branchesCold.peakRssBytes === null ? 'n/a' : `${Math.round(branchesCold.peakRssBytes / 2 ** 20)} MB`}.`,
      `Cold branch listing: ${branchesCold.method}; ${config.branches} branches, 100 a page.`,
      `Prism mocked ${prism!.spec}, with its default settings; it answers its static example (${prism!.bodyBytes} bytes) where Berth answers ${ceiling!.bodyBytes} bytes.`,
      exporterNote(metricsExporter),
      'The 1-connection probe and the targets it judges (branch listing, auth overhead) measure latency without queueing; under 50 connections p50 is mostly time spent waiting behind other requests.',
    ],
  }
  // A trial's numbers mean nothing: they are printed, never written over the measured results.
  const table = writeResults(config.quick ? path.join(workDir, 'results') : path.join(repoRoot, 'bench', 'results'), results)
  process.stdout.write(`\n${table}\n`)

  const targets = targetsOf(results)
  log(`targets:\n${targetSummary(targets)}`)
  const unevaluated = targets.filter((t) => typeof t.pass !== 'boolean' || t.measured.includes('NaN'))
  if (unevaluated.length > 0) throw new Error(`targets not evaluated: ${unevaluated.map((t) => t.target).join('; ')}`)
  const missed = targets.filter((t) => !t.pass)
  if (config.quick) log(`quick trial: ${targets.length} targets evaluated, ${missed.length} missed; a trial measures nothing, so none is enforced`)
  else if (missed.length > 0) throw new Error(`${missed.length} of ${targets.length} targets missed (results written to bench/results/)`)
  else log(`all ${targets.length} targets hold`)
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
} else {
  rmSync(workDir, { recursive: true, force: true })
}
