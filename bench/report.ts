// The results: ratios and the issue's targets computed from the measurements, written as
// bench/results/latest.json and a Markdown table (bench/results/latest.md).

import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { DatabaseBackupResult } from './database-backup.ts'
import type { DockerDeployResult } from './docker-deploy.ts'
import type { AuditCostResult, WebhookLatencyResult } from './events.ts'
import type { FreshnessResult } from './freshness.ts'
import type { LoadResult, ProbeResult } from './load.ts'
import type { Machine } from './machine.ts'
import type { MetricsExporterResult } from './metrics-exporter.ts'
import type { ScaleResult } from './scale.ts'
import { type BerthScenario, SCENARIO_TITLES } from './scenarios.ts'
import type { Seeded } from './seed.ts'

export interface ScenarioResult {
  load: LoadResult
  /** One connection, one request at a time: latency without queueing. */
  probe?: ProbeResult
  /** The server's VmHWM right after this scenario: which scenario raised the peak. */
  peakRssAfterBytes?: number | null
}

export interface BerthRun {
  logLevel: string
  scenarios: Record<BerthScenario, ScenarioResult>
  /** VmRSS of the `berth serve` process just after it started, before any load (servers.ts). */
  idleRssBytes: number | null
  /** VmHWM of the `berth serve` process at the end of its run. */
  peakRssBytes: number | null
  /** What the server logged during its run. */
  logBytes: number
  /** One connection: a 400 right after authenticating against a 401 without credentials (scenarios.ts). */
  authOnly: { withToken: ProbeResult; withoutToken: ProbeResult; addedP50Ms: number }
}

export interface BenchResults {
  startedAt: string
  finishedAt: string
  totalSeconds: number
  machine: Machine
  source: { commit: string; srcChanged: boolean }
  settings: { connections: number; warmupS: number; durationS: number; probeRequests: number; pageSize: number; pairedDurationS: number }
  seed: Omit<Seeded, 'authorization'> & { note: string }
  berth: BerthRun[]
  branchesCold: { method: string; logLevel: string; load: LoadResult; peakRssBytes: number | null }
  /** `load`: its median round; `paired`: the rounds alternating with Berth's first page at the first log level. */
  ceiling: {
    load: LoadResult
    bodyBytes: number
    paired: { logLevel: string; rounds: { ceilingRps: number; berthRps: number; ratio: number }[]; medianRatio: number }
  }
  /** `spec`: what Prism mocked, and how it differs from the spec as it is. */
  prism: { load: LoadResult; bodyBytes: number; spec: string }
  /** Two servers on one database: the one that made a change, and another (bench/freshness.ts). */
  freshness: FreshnessResult & { logLevel: string; versionTtlMs: number }
  /** Deploy overhead over `docker run` (bench/docker-deploy.ts); skipped, saying why, without an engine. */
  dockerDeploy: (DockerDeployResult & { logLevel: string }) | { skipped: string }
  /** A PostgreSQL backup through Berth against pg_dump by hand (bench/database-backup.ts); skipped, saying why, without an engine. */
  databaseBackup: (DatabaseBackupResult & { logLevel: string }) | { skipped: string }
  /** What the audit log adds to a create/edit mix (bench/events.ts). */
  auditCost: AuditCostResult & { logLevel: string }
  /** From a deployment's end to its webhook at a receiver on loopback (bench/events.ts). */
  webhookLatency: WebhookLatencyResult & { logLevel: string }
  /** The Docker stats exporter's cost: 50 containers read and scraped against none (bench/metrics-exporter.ts). */
  metricsExporter?: (MetricsExporterResult & { logLevel: string }) | { skipped: string }
  /** One host, many services (bench/scale.ts); skipped, saying why, without an engine or 8 GB available. */
  scale?: ScaleRun
  /** Whether targets that miss fail the run (not in a quick trial, which measures nothing). */
  enforced: boolean
  notes: string[]
}

export type ScaleRun = (ScaleResult & { logLevel: string }) | { skipped: string }

export interface Ratios {
  logLevel: string
  firstOverCeilingThroughput: number
  firstOverPrismThroughput: number
  deepOverFirstP50: number
  smallOverFirstP50: number
}

export interface TargetCheck {
  logLevel: string
  target: string
  measured: string
  pass: boolean
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits
const mb = (bytes: number | null) => (bytes === null ? 'n/a' : `${round(bytes / 2 ** 20, 1)} MB`)
/** A ratio of p50s, the denominator at least autocannon's resolution (1 ms). */
const p50Ratio = (a: LoadResult, b: LoadResult) => round(a.latencyMs.p50 / Math.max(1, b.latencyMs.p50))

export function ratiosOf(results: BenchResults): Ratios[] {
  return results.berth.map(({ logLevel, scenarios: s }) => ({
    logLevel,
    firstOverCeilingThroughput: round(s.historyFirst.load.requestsPerSec / results.ceiling.load.requestsPerSec, 3),
    firstOverPrismThroughput: round(s.historyFirst.load.requestsPerSec / results.prism.load.requestsPerSec),
    deepOverFirstP50: p50Ratio(s.historyDeep.load, s.historyFirst.load),
    smallOverFirstP50: p50Ratio(s.historySmall.load, s.historyFirst.load),
  }))
}

/**
 * The issue's targets, each with what was measured and whether it holds; the run fails when one
 * does not (bench/run.ts). They are judged on the run at the first log level (`warn` by default,
 * the level of the issue's baseline); a run at another level (`info`: two log lines written
 * synchronously per request) shows what it costs, in the ratios, without being judged.
 */
export function targetsOf(results: BenchResults): TargetCheck[] {
  const checks: TargetCheck[] = []
  for (const run of results.berth.slice(0, 1)) {
    const s = run.scenarios
    const check = (target: string, measured: string, pass: boolean) => checks.push({ logLevel: run.logLevel, target, measured, pass })
    const paired = results.ceiling.paired
    check(
      '1. throughput ≥ 60% of the node:http ceiling (median of rounds alternating the two)',
      `${round(paired.medianRatio * 100, 1)}% (rounds: ${paired.rounds.map((r) => `${r.berthRps}/${r.ceilingRps}`).join(', ')} req/s)`,
      paired.medianRatio >= 0.6,
    )
    const prism = s.historyFirst.load.requestsPerSec / results.prism.load.requestsPerSec
    check('1. throughput ≥ 3× Prism on the same route', `${round(prism)}×`, prism >= 3)
    const small = s.historySmall.load
    for (const [title, load] of [
      ['2. deep page', s.historyDeep.load],
      ['1. 100k first page', s.historyFirst.load],
    ] as const) {
      const throughput = load.requestsPerSec / small.requestsPerSec
      const p50 = p50Ratio(load, small)
      check(
        `${title} as fast as 3.: req/s ≥ 0.85 × and p50 ≤ 1.3 × those of 3. (50 connections)`,
        `${round(throughput)}× req/s (${load.requestsPerSec} vs ${small.requestsPerSec}), ${p50}× p50 (${load.latencyMs.p50} vs ${small.latencyMs.p50} ms)`,
        throughput >= 0.85 && p50 <= 1.3,
      )
    }
    const branches = s.branchesCached.probe!.latencyMs.p50
    check('5. cached branch listing p50 < 5 ms (one connection)', `${branches} ms`, branches < 5)
    const auth = s.organization.probe!.latencyMs.p50 - s.healthz.probe!.latencyMs.p50
    check(
      '4. GET /organization (Token) adds < 0.2 ms p50 over /healthz (one connection)',
      `${round(auth, 3)} ms (authentication alone: ${run.authOnly.addedP50Ms} ms)`,
      auth < 0.2,
    )
    check(
      'server peak RSS < 300 MB',
      `${mb(run.peakRssBytes)} (idle: ${mb(run.idleRssBytes)})`,
      run.peakRssBytes !== null && run.peakRssBytes < 300 * 2 ** 20,
    )
  }
  const f = results.freshness
  const fresh = (target: string, measured: string, pass: boolean) => checks.push({ logLevel: f.logLevel, target, measured, pass })
  fresh(
    '7. no stale page from the process that made the change (asked at once after its 202)',
    `${f.staleFromChanger} stale of ${f.changes}`,
    f.changes > 0 && f.staleFromChanger === 0,
  )
  fresh(
    `7. another process serves the new page within the announcement's delay, at most BERTH_HISTORY_VERSION_TTL_MS (${f.versionTtlMs} ms)`,
    `p50 ${f.replicaDelayMs.p50} ms, max ${f.replicaDelayMs.max} ms after the 202 (${f.replicaStaleAnswers} earlier answers without it)`,
    f.replicaDelayMs.max <= f.versionTtlMs,
  )
  const d = results.dockerDeploy
  if ('overheadMs' in d) {
    checks.push({
      logLevel: d.logLevel,
      target: '8. a deploy adds < 300 ms over docker run of the same image (medians of alternating rounds)',
      measured: `${d.overheadMs} ms (Berth ${d.berthMedianMs} ms, docker run ${d.dockerRunMedianMs} ms; rounds: ${d.rounds.map((r) => `${r.berthMs}/${r.dockerRunMs}`).join(', ')})`,
      pass: d.overheadMs < 300,
    })
    if (d.frontDoorOverheadMs !== undefined && d.redeployOverheadMs !== undefined) {
      checks.push({
        logLevel: d.logLevel,
        target: "8. a first deploy's first answer through the front door adds < 300 ms over docker run (medians of alternating rounds)",
        measured: `${d.frontDoorOverheadMs} ms (front door ${d.frontDoorMedianMs} ms, docker run ${d.dockerRunMedianMs} ms)`,
        pass: d.frontDoorOverheadMs < 300,
      })
      checks.push({
        logLevel: d.logLevel,
        target: '8. a redeploy takes the new instance start and readiness (docker run) plus < 300 ms, no request dropped at the front door',
        measured: `${d.redeployOverheadMs} ms (redeploy ${d.redeployMedianMs} ms, docker run ${d.dockerRunMedianMs} ms); ${d.redeployDropped} of ${d.redeployRequests} requests dropped (${d.redeployResetsRetried ?? 0} asked again after a reset of a kept-alive connection)`,
        pass: d.redeployOverheadMs < 300 && d.redeployDropped === 0,
      })
    }
  }
  const b = results.databaseBackup
  if ('ratio' in b) {
    checks.push({
      logLevel: b.logLevel,
      target: '9. a PostgreSQL backup through Berth takes at most 10% longer than pg_dump | gzip by hand into the same directory (medians)',
      measured:
        `${Math.round((b.ratio - 1) * 1000) / 10}% (Berth ${b.berthMedianMs} ms, by hand ${b.byHandMedianMs} ms, ${mb(b.databaseBytes)} in the database; ` +
        `rounds: ${b.rounds.map((r) => `${r.berthMs}/${r.byHandMs}`).join(', ')}); Berth's peak RSS during its backups ${mb(b.peakRssBytes)} (before: ${mb(b.rssBeforeBytes)})`,
      pass: b.ratio <= 1.1,
    })
  }
  const a = results.auditCost
  checks.push({
    logLevel: a.logLevel,
    target: '10. the audit log adds < 5% to a write of a create/edit mix (medians of alternating rounds, triggers on against off)',
    measured: `${Math.round((a.ratio - 1) * 1000) / 10}% (${a.onMedianMs} ms a write with, ${a.offMedianMs} ms without; rounds: ${a.rounds.map((r) => `${r.onMsPerWrite}/${r.offMsPerWrite}`).join(', ')})`,
    pass: a.ratio < 1.05,
  })
  const w = results.webhookLatency
  checks.push({
    logLevel: w.logLevel,
    target: "11. a deployment's webhook reaches a healthy receiver within 1 s of the deployment's end (p99)",
    measured: `p50 ${w.latencyMs.p50} ms, p99 ${w.latencyMs.p99} ms, max ${w.latencyMs.max} ms over ${w.deployments} deployments (runner poll ${w.pollMs} ms)`,
    pass: w.latencyMs.p99 < 1000,
  })
  if (results.scale) checks.push(...scaleTargets(results.scale))
  return checks
}

/** The scale scenario's goals (issue 50); none when it was skipped. */
export function scaleTargets(scale: ScaleRun): TargetCheck[] {
  if (!('services' in scale)) return []
  const n = scale.services
  const d = scale.oneMoreDeploy
  const check = (target: string, measured: string, pass: boolean) => ({ logLevel: scale.logLevel, target, measured, pass })
  return [
    check(
      `12. one more deploy with ${n} services running within 1.5× of the same deploy on the empty host (medians)`,
      `${d.ratio}× (${d.loadedMedianMs} ms against ${d.emptyMedianMs} ms; rounds ${d.loadedMs.join(', ')} / ${d.emptyMs.join(', ')})`,
      d.ratio <= 1.5,
    ),
    check(
      `12. berth serve's peak RSS < 300 MB with ${n} services`,
      `${mb(scale.server.peakRssBytes)} (idle ${mb(scale.server.idleRssBytes)}, after deploying all ${mb(scale.server.rssAfterDeployBytes)}; CPU ${scale.server.cpuSeconds} s, ${scale.server.cpuPercent} % of a core over ${scale.server.wallSeconds} s)`,
      scale.server.peakRssBytes !== null && scale.server.peakRssBytes < 300 * 2 ** 20,
    ),
    check(
      `12. history first page with ${n} services ≥ 0.85× its req/s on the empty host (each over /healthz's, in alternating rounds)`,
      `${scale.history.normalisedRatio}× (${scale.history.overHealthz.loaded} against ${scale.history.overHealthz.empty} of /healthz; raw ${scale.history.ratio}×: ${scale.history.loaded.requestsPerSec} against ${scale.history.empty.requestsPerSec} req/s)`,
      scale.history.normalisedRatio >= 0.85,
    ),
    check(
      `12. every one of the ${n} services answers at its HTTPS address through the front door`,
      `${scale.answers.ok} of ${scale.answers.checked}${scale.answers.failures.length ? ` (${scale.answers.failures.slice(0, 3).join('; ')})` : ''}`,
      scale.answers.ok === scale.answers.checked && scale.answers.checked === n,
    ),
  ]
}

/** The scale scenario as a paragraph and a table of its figures. */
export function scaleMarkdown(scale: ScaleRun, context?: { machine: Machine; source: { commit: string; srcChanged: boolean } }): string {
  const lines: string[] = []
  if (context) {
    const m = context.machine
    lines.push(
      `# Scale scenario (${new Date().toISOString()})`,
      '',
      `Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB; Node ${m.node}; load average at the start ${m.loadAverage.atStart.join(', ')}, ` +
        `at the end ${m.loadAverage.atEnd?.join(', ') ?? 'n/a'}. Source: commit ${context.source.commit.slice(0, 12)}${context.source.srcChanged ? ' with uncommitted changes in src/' : ''}.`,
      '',
    )
  }
  if (!('services' in scale)) {
    lines.push(`12. One host, many services: ${scale.skipped}.`)
    return lines.join('\n')
  }
  const f = scale.frontDoor
  lines.push(
    `12. One host, ${scale.services} services [log ${scale.logLevel}]: ${scale.method}. ${mb(scale.availableMemoryBytes)} available at the start.`,
    '',
    '| figure | measured |',
    '|---|---|',
    `| deploy all, environment by environment | ${round(scale.deployAllMs / 1000, 1)} s (first environment ${scale.environmentDeployMs[0]} ms, last ${scale.environmentDeployMs.at(-1)} ms, median ${[...scale.environmentDeployMs].sort((a, b) => a - b)[Math.floor((scale.environmentDeployMs.length - 1) / 2)]} ms) |`,
    `| redeploy all (every environment at once) | ${round(scale.redeployAllMs / 1000, 1)} s |`,
    `| delete one environment (to its containers and network gone) | ${scale.deleteEnvironmentMs} ms |`,
    `| one more deploy: empty host / ${scale.services} running | ${scale.oneMoreDeploy.emptyMedianMs} / ${scale.oneMoreDeploy.loadedMedianMs} ms (${scale.oneMoreDeploy.ratio}×) |`,
    `| front door: routes, configuration | ${f.routes} routes, ${round(f.configBytes / 1024, 1)} KiB |`,
    `| front door: one change (route table read / Caddy load, medians of 5) | ${f.readRoutesMedianMs} / ${f.loadMedianMs} ms |`,
    `| berth serve CPU | ${scale.server.cpuSeconds} s (${scale.server.cpuPercent} % of a core over ${scale.server.wallSeconds} s) |`,
    `| berth serve RSS: idle / after deploying all / peak | ${mb(scale.server.idleRssBytes)} / ${mb(scale.server.rssAfterDeployBytes)} / ${mb(scale.server.peakRssBytes)} |`,
    `| history first page: empty host / ${scale.services} services | ${scale.history.empty.requestsPerSec} / ${scale.history.loaded.requestsPerSec} req/s (${scale.history.ratio}×; over /healthz ${scale.history.overHealthz.empty} / ${scale.history.overHealthz.loaded}, ${scale.history.normalisedRatio}×), p50 ${scale.history.empty.latencyMs.p50} / ${scale.history.loaded.latencyMs.p50} ms |`,
    `| answering at their HTTPS address | ${scale.answers.ok} of ${scale.answers.checked} |`,
  )
  return lines.join('\n')
}

/** The targets as lines of text, failures first, for the end of a run. */
export function targetSummary(checks: TargetCheck[]): string {
  const line = (t: TargetCheck) => `${t.pass ? 'PASS' : 'FAIL'} [log ${t.logLevel}] ${t.target}: ${t.measured}`
  return [...checks.filter((t) => !t.pass), ...checks.filter((t) => t.pass)].map(line).join('\n')
}

function loadRow(title: string, load: LoadResult, probe?: ProbeResult, peakRssAfterBytes?: number | null) {
  const l = load.latencyMs
  const probed = probe ? `${probe.latencyMs.p50} / ${probe.latencyMs.p99}` : '—'
  const rss = peakRssAfterBytes === undefined ? '—' : mb(peakRssAfterBytes)
  return `| ${title} | ${load.connections} | ${load.requestsPerSec} | ${l.p50} | ${l.p99} | ${load.errors} | ${load.non2xx} | ${load.bytesPerResponse} | ${probed} | ${rss} |`
}

export function markdown(results: BenchResults): string {
  const m = results.machine
  const lines: string[] = []
  lines.push(`# Berth benchmark (${results.finishedAt})`, '')
  lines.push(
    `Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}; Node ${m.node}; ${m.postgres.split(' on ')[0]} (the system server, ` +
      'on the same machine). The load generator (autocannon) runs on the same machine as the servers and PostgreSQL. ' +
      `Load average (1, 5, 15 min) at the start: ${m.loadAverage.atStart.join(', ')}; at the end: ${m.loadAverage.atEnd?.join(', ') ?? 'n/a'}.`,
    '',
  )
  lines.push(`Source: commit ${results.source.commit.slice(0, 12)}${results.source.srcChanged ? ' with uncommitted changes in src/' : ''}.`, '')
  const seed = results.seed
  lines.push(
    `Seed: ${seed.rows.environments} environments, ${seed.rows.deploymentRequests} deployments (3 stages × 5 services, ${seed.entryBytes} bytes ` +
      `per stored entry) in ${seed.seconds.total} s (deployments ${seed.seconds.deployments} s, vacuum analyze ${seed.seconds.vacuumAnalyze} s). ${seed.note}`,
    '',
  )
  lines.push(
    `Load: ${results.settings.connections} connections unless stated, ${results.settings.warmupS} s warm-up then ${results.settings.durationS} s measured; ` +
      `latencies in ms (autocannon: whole ms). "1-conn p50 / p99": ${results.settings.probeRequests} requests one at a time on one connection.`,
    '',
  )
  lines.push(
    '| scenario | conns | req/s | p50 | p99 | errors | non-2xx | bytes/resp | 1-conn p50 / p99 | server peak RSS after |',
    '|---|---|---|---|---|---|---|---|---|---|',
  )
  for (const run of results.berth) {
    for (const [key, result] of Object.entries(run.scenarios) as [BerthScenario, ScenarioResult][]) {
      lines.push(loadRow(`${SCENARIO_TITLES[key]} [log ${run.logLevel}]`, result.load, result.probe, result.peakRssAfterBytes))
    }
  }
  const cold = results.branchesCold
  lines.push(loadRow(`${SCENARIO_TITLES.branchesCold} [log ${cold.logLevel}]`, cold.load, undefined, cold.peakRssBytes))
  lines.push(loadRow(`${SCENARIO_TITLES.ceiling} (median of ${results.ceiling.paired.rounds.length} rounds)`, results.ceiling.load))
  lines.push(loadRow(SCENARIO_TITLES.prism, results.prism.load), '')
  const paired = results.ceiling.paired
  lines.push(
    `Ceiling rounds, each ${results.settings.pairedDurationS} s after 1 s of warm-up, alternating with 1. [log ${paired.logLevel}] ` +
      `(Berth / node:http req/s): ${paired.rounds.map((r) => `${r.berthRps} / ${r.ceilingRps} (${round(r.ratio * 100, 1)}%)`).join('; ')}; ` +
      `median ${round(paired.medianRatio * 100, 1)}%.`,
    '',
  )
  const f = results.freshness
  lines.push(
    `${SCENARIO_TITLES.freshness} [log ${f.logLevel}]: ${f.changes} changes; the changer served ${f.staleFromChanger} stale pages right after ` +
      `its 202; the other process showed the change p50 ${f.replicaDelayMs.p50} ms, at most ${f.replicaDelayMs.max} ms after it.`,
    '',
  )

  lines.push(
    '| log level | 1./ceiling (req/s) | 1./Prism (req/s) | 2./1. (p50) | 3./1. (p50) | idle RSS | peak RSS | log written |',
    '|---|---|---|---|---|---|---|---|',
  )
  const ratios = ratiosOf(results)
  for (const [i, r] of ratios.entries()) {
    const run = results.berth[i]!
    lines.push(
      `| ${r.logLevel} | ${r.firstOverCeilingThroughput} | ${r.firstOverPrismThroughput} | ${r.deepOverFirstP50} | ${r.smallOverFirstP50} | ` +
        `${mb(run.idleRssBytes)} | ${mb(run.peakRssBytes)} | ${mb(run.logBytes)} |`,
    )
  }
  lines.push(
    '',
    `${results.enforced ? 'Targets (a run fails when one does not hold)' : 'Targets, evaluated but not enforced: a quick trial measures nothing'}, ` +
      `judged on the run at log level ${results.berth[0]!.logLevel}` +
      (results.berth.length > 1
        ? `; the run at ${results.berth
            .slice(1)
            .map((run) => run.logLevel)
            .join(', ')} shows what its logging costs (the ratios above) and is not judged.`
        : '.'),
    '',
    '| log level | target | measured | result |',
    '|---|---|---|---|',
  )
  for (const t of targetsOf(results)) lines.push(`| ${t.logLevel} | ${t.target} | ${t.measured} | ${t.pass ? 'PASS' : 'FAIL'} |`)
  if (results.scale) lines.push('', scaleMarkdown(results.scale))
  lines.push('', ...results.notes.map((note) => `- ${note}`), '')
  return lines.join('\n')
}

/** Writes latest.json and latest.md under `dir`; returns the Markdown. */
/** JSON as the repository's formatter (biome) writes it: short lists of numbers on one line. */
export function formattedJson(value: unknown): string {
  const json = JSON.stringify(value, null, 2)
  return `${json.replace(/\[\n\s+(-?[\d.]+(?:,\n\s+-?[\d.]+)*)\n\s+\]/g, (_m, list: string) => `[${list.split(/,\n\s+/).join(', ')}]`)}\n`
}

export function writeResults(dir: string, results: BenchResults): string {
  mkdirSync(dir, { recursive: true })
  const text = markdown(results)
  writeFileSync(path.join(dir, 'latest.json'), formattedJson({ ...results, ratios: ratiosOf(results), targets: targetsOf(results) }))
  writeFileSync(path.join(dir, 'latest.md'), text)
  return text
}
