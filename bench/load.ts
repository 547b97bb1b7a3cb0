// Drives a URL: autocannon for throughput under concurrent load (a warm-up, then a fixed duration), and
// a one-connection probe for latencies finer than autocannon's whole milliseconds.
import { Agent, request } from 'node:http'
import autocannon from 'autocannon'

export interface Target {
  url: string
  headers?: Record<string, string>
}

export interface LoadResult {
  connections: number
  durationS: number
  requests: number
  /** Requests answered per second, over the measured duration. */
  requestsPerSec: number
  /** Milliseconds, from autocannon's histogram (whole milliseconds). */
  latencyMs: { mean: number; p50: number; p97_5: number; p99: number; max: number }
  errors: number
  timeouts: number
  non2xx: number
  /** Response bytes per request, body and headers. */
  bytesPerResponse: number
}

function run(target: Target, connections: number, durationS: number): Promise<autocannon.Result> {
  return autocannon({
    url: target.url,
    headers: target.headers ?? {},
    connections,
    duration: durationS,
    // A request slower than this counts as a timeout (an error) rather than stalling its connection.
    timeout: 30,
  })
}

/** Load whose results are dropped: a server's warm-up. */
export async function warm(target: Target, connections: number, seconds: number): Promise<void> {
  await run(target, connections, seconds)
}

/** Warm-up (results dropped), then the measured run. */
export async function measure(target: Target, options: { connections: number; warmupS: number; durationS: number }): Promise<LoadResult> {
  await run(target, options.connections, options.warmupS)
  const result = await run(target, options.connections, options.durationS)
  const answered = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx']
  return {
    connections: options.connections,
    durationS: result.duration,
    requests: answered,
    requestsPerSec: Math.round(answered / result.duration),
    latencyMs: {
      mean: result.latency.mean,
      p50: result.latency.p50,
      p97_5: result.latency.p97_5,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    bytesPerResponse: answered === 0 ? 0 : Math.round(result.throughput.total / answered),
  }
}

export interface ProbeResult {
  requests: number
  /** Milliseconds, to the microsecond. */
  latencyMs: { p50: number; p99: number; mean: number }
  non2xx: number
  /** How many answers had each status. */
  statuses: Record<number, number>
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
const micro = (ms: number) => Math.round(ms * 1000) / 1000

/** `count` requests one after another on one kept-alive connection, after a tenth as many to warm up. */
export async function probe(target: Target, count: number): Promise<ProbeResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const once = () =>
    new Promise<{ ms: number; status: number }>((resolve, reject) => {
      const started = process.hrtime.bigint()
      const req = request(target.url, { agent, headers: target.headers ?? {} }, (res) => {
        res.on('data', () => {})
        res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, status: res.statusCode ?? 0 }))
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end()
    })
  try {
    for (let i = 0; i < Math.ceil(count / 10); i++) await once()
    const times: number[] = []
    const statuses: Record<number, number> = {}
    let non2xx = 0
    for (let i = 0; i < count; i++) {
      const { ms, status } = await once()
      times.push(ms)
      statuses[status] = (statuses[status] ?? 0) + 1
      if (status < 200 || status > 299) non2xx++
    }
    times.sort((a, b) => a - b)
    return {
      requests: count,
      latencyMs: { p50: micro(quantile(times, 0.5)), p99: micro(quantile(times, 0.99)), mean: micro(times.reduce((a, b) => a + b, 0) / count) },
      non2xx,
      statuses,
    }
  } finally {
    agent.destroy()
  }
}

/** One GET: its status and body, to check a route before loading it. */
export async function fetchOnce(target: Target): Promise<{ status: number; body: Buffer; contentType: string | null }> {
  const response = await fetch(target.url, { headers: target.headers ?? {} })
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type') }
}
