// Whether remembered history pages stay fresh: two `berth serve` processes on the benchmark's
// database both serve an environment's first page from memory; the changer queues a deployment and
// is asked for the page at once (it must show the deployment: the process that made a change never
// serves the page it made stale), while the replica is asked over and over until it shows it (the
// announcement's delay, measured from the changer's answer to the trigger).
import { fetchOnce, type Target } from './load.ts'
import type { RunningServer } from './servers.ts'

export interface FreshnessResult {
  changes: number
  /** First pages the changer served right after its own change without the change on them. */
  staleFromChanger: number
  /** From the changer's 202 to the first page of the replica that shows the change. */
  replicaDelayMs: { p50: number; max: number }
  /** Requests the replica answered while it still served the page before the change (it may, within the delay). */
  replicaStaleAnswers: number
}

interface Page {
  results: { identifier: { execution_id: string } }[]
}

const firstId = (body: Buffer) => (JSON.parse(body.toString('utf8')) as Page).results[0]?.identifier.execution_id

async function okBody(target: Target): Promise<Buffer> {
  const { status, body } = await fetchOnce(target)
  if (status !== 200) throw new Error(`freshness: ${target.url} answered ${status}: ${body.toString('utf8').slice(0, 300)}`)
  return body
}

/** How long the replica may take, whatever the announcement does: BERTH_HISTORY_VERSION_TTL_MS bounds it (1 s), with room for a loaded machine. */
const GIVE_UP_MS = 30_000

export async function measureFreshness(
  servers: { changer: RunningServer; replica: RunningServer },
  paths: { page: string; deploy: string },
  authorization: string,
  changes: number,
): Promise<FreshnessResult> {
  const headers = { authorization }
  const page = (server: RunningServer): Target => ({ url: `${server.baseUrl}${paths.page}`, headers })
  const delays: number[] = []
  let staleFromChanger = 0
  let replicaStaleAnswers = 0
  for (let i = 0; i < changes; i++) {
    // Both remember the page (read twice: the first read keeps it, the second is served from memory).
    for (const server of [servers.changer, servers.replica]) for (let j = 0; j < 2; j++) await okBody(page(server))
    const response = await fetch(`${servers.changer.baseUrl}${paths.deploy}`, { method: 'POST', headers })
    const answeredAt = performance.now()
    const body = (await response.json()) as { execution_id?: string }
    if (response.status !== 202 || !body.execution_id) throw new Error(`freshness: the trigger answered ${response.status}: ${JSON.stringify(body)}`)
    if (firstId(await okBody(page(servers.changer))) !== body.execution_id) staleFromChanger++
    for (;;) {
      if (firstId(await okBody(page(servers.replica))) === body.execution_id) break
      replicaStaleAnswers++
      if (performance.now() - answeredAt > GIVE_UP_MS)
        throw new Error(`freshness: the replica still served the page before the change after ${GIVE_UP_MS} ms`)
    }
    delays.push(performance.now() - answeredAt)
  }
  delays.sort((a, b) => a - b)
  const ms = (value: number) => Math.round(value * 100) / 100
  return {
    changes,
    staleFromChanger,
    replicaDelayMs: { p50: ms(delays[Math.floor(delays.length / 2)]!), max: ms(delays.at(-1)!) },
    replicaStaleAnswers,
  }
}
