// Issue 45's costs: what the audit log adds to writes, and how soon a webhook arrives after its
// deployment ended. Both against a real `berth serve`.
//
// Audit: rounds of a create/edit mix (create a project, rename it, create a project variable, edit
// it), one request at a time, alternating between the audit triggers enabled and disabled in the
// database (ALTER TABLE … DISABLE TRIGGER). The actor setting on connections is in both halves,
// so the ratio is the triggers' cost. Webhooks: a server with its runner (simulated executor,
// instant steps) deploys an environment again and again; a receiver on loopback notes when each
// DEPLOYMENT_SUCCESSFUL arrives, against the deployment's end in the body (`updated_at`).
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import type { BerthServer } from './servers.ts'

export const EVENT_TITLES = {
  auditCost: '10. the audit log on a create/edit mix (create project, rename, create variable, edit), triggers on against off',
  webhookLatency: '11. a deployment end to its webhook at a receiver on loopback',
}

export interface AuditCostResult {
  writesPerRound: number
  rounds: { onMsPerWrite: number; offMsPerWrite: number }[]
  onMedianMs: number
  offMedianMs: number
  /** Median with the audit over median without, as a ratio (1.05: 5% slower). */
  ratio: number
}

export interface WebhookLatencyResult {
  deployments: number
  latencyMs: { p50: number; p99: number; max: number }
  pollMs: number
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!
const round2 = (value: number) => Math.round(value * 100) / 100

/** How many rounds, writes and deployments: small in a quick trial; BENCH_AUDIT_ROUNDS, BENCH_AUDIT_MIXES, BENCH_WEBHOOK_DEPLOYMENTS override. */
export function eventSettings(quick: boolean) {
  const positive = (name: string, fallback: number) => {
    const value = Number(process.env[name] ?? fallback)
    if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number`)
    return value
  }
  return {
    auditRounds: positive('BENCH_AUDIT_ROUNDS', quick ? 1 : 6),
    auditMixes: positive('BENCH_AUDIT_MIXES', quick ? 2 : 50),
    webhookDeployments: positive('BENCH_WEBHOOK_DEPLOYMENTS', quick ? 2 : 40),
  }
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

function caller(server: BerthServer, authorization: string) {
  return async (method: string, path: string, body?: object, expected: number[] = [200, 201, 202, 204]): Promise<Body> => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    const text = await response.text()
    if (!expected.includes(response.status)) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`)
    return text ? JSON.parse(text) : {}
  }
}

/** Enables or disables every audit trigger (migration 0050 names them `<table>_audit`). */
async function setAuditTriggers(databaseUrl: string, enabled: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ table: string; name: string }>(
      `select tgrelid::regclass::text as "table", tgname as name from pg_trigger where tgname like '%\\_audit' and not tgisinternal`,
    )
    for (const { table, name } of rows) await client.query(`alter table ${table} ${enabled ? 'enable' : 'disable'} trigger ${name}`)
  } finally {
    await client.end()
  }
}

export async function measureAuditCost(
  server: BerthServer,
  databaseUrl: string,
  seeded: { organizationId: string; authorization: string },
  settings: { rounds: number; mixes: number },
  log: (message: string) => void,
): Promise<AuditCostResult> {
  const call = caller(server, seeded.authorization)
  let made = 0
  const mix = async () => {
    const name = `audit bench ${process.pid} ${made++}`
    const project = await call('POST', `/organization/${seeded.organizationId}/project`, { name })
    await call('PUT', `/project/${project.id}`, { name: `${name} renamed` })
    const variable = await call('POST', '/variable', {
      key: 'GREETING',
      value: 'hello',
      is_secret: false,
      variable_scope: 'PROJECT',
      variable_parent_id: project.id,
    })
    await call('PUT', `/variable/${variable.id}`, { key: 'GREETING', value: 'hello again' })
  }
  const timed = async (enabled: boolean) => {
    await setAuditTriggers(databaseUrl, enabled)
    await mix()
    const started = performance.now()
    for (let i = 0; i < settings.mixes; i++) await mix()
    return (performance.now() - started) / (settings.mixes * 4)
  }
  const rounds: AuditCostResult['rounds'] = []
  try {
    for (let round = 0; round < settings.rounds; round++) {
      // Alternating which half goes first, so that a warming or a tiring machine favours neither.
      const first = round % 2 === 0
      const a = await timed(first)
      const b = await timed(!first)
      rounds.push({ onMsPerWrite: round2(first ? a : b), offMsPerWrite: round2(first ? b : a) })
      log(`audit round ${round + 1}: ${rounds.at(-1)!.onMsPerWrite} ms a write with the audit, ${rounds.at(-1)!.offMsPerWrite} ms without`)
    }
  } finally {
    await setAuditTriggers(databaseUrl, true)
  }
  const onMedianMs = median(rounds.map((r) => r.onMsPerWrite))
  const offMedianMs = median(rounds.map((r) => r.offMsPerWrite))
  return { writesPerRound: settings.mixes * 4, rounds, onMedianMs, offMedianMs, ratio: round2((onMedianMs / offMedianMs) * 100) / 100 }
}

/** `server` runs deployments (BERTH_RUNNER_IN_SERVE=true) with the simulated executor and BERTH_GIT_ALLOW_PRIVATE_URLS=true. */
export async function measureWebhookLatency(
  server: BerthServer,
  seeded: { organizationId: string; authorization: string; smallEnvironmentId: string },
  settings: { deployments: number; pollMs: number },
  log: (message: string) => void,
): Promise<WebhookLatencyResult> {
  const arrivals = new Map<string, { at: number; endedAt: number }>()
  const waiting = new Map<string, () => void>()
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const at = Date.now()
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body
      arrivals.set(body.execution_id, { at, endedAt: Date.parse(body.updated_at) })
      waiting.get(body.execution_id)?.()
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const call = caller(server, seeded.authorization)
  const hook = await call('POST', `/organization/${seeded.organizationId}/webhook`, {
    kind: 'STANDARD',
    target_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/bench`,
    events: ['DEPLOYMENT_SUCCESSFUL'],
  })
  const latencies: number[] = []
  try {
    for (let i = 0; i < settings.deployments; i++) {
      const queued = await call('POST', `/environment/${seeded.smallEnvironmentId}/deploy`)
      const id = queued.execution_id as string
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no webhook for deployment ${id} within 60 s`)), 60_000)
        waiting.set(id, () => {
          clearTimeout(timer)
          resolve()
        })
        if (arrivals.has(id)) waiting.get(id)!()
      })
      const arrival = arrivals.get(id)!
      latencies.push(arrival.at - arrival.endedAt)
    }
  } finally {
    await call('DELETE', `/organization/${seeded.organizationId}/webhook/${hook.id}`).catch(() => undefined)
    receiver.closeAllConnections()
    await new Promise<void>((resolve) => receiver.close(() => resolve()))
  }
  const result = {
    deployments: latencies.length,
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies) },
    pollMs: settings.pollMs,
  }
  log(`webhooks: p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, max ${result.latencyMs.max} ms after the deployment's end`)
  return result
}
