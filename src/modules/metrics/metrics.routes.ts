import { timingSafeEqual } from 'node:crypto'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { MetricsSettings } from '#src/config.ts'
import { loadDockerode } from '#src/modules/executors/docker/docker-engine.ts'
import type { Db } from '#src/platform/db/database.ts'
import { AppError } from '#src/platform/http/errors.ts'
import { berthStateFamilies } from './berth-metrics.ts'
import { startContainerStatsPoll } from './container-stats.ts'
import { createMetricsRegistry } from './metrics-registry.ts'

// GET /metrics (docs/metrics.md): Berth's metrics and, with the Docker executor, its containers'.
// Loopback callers read it freely; others need `Authorization: Bearer <BERTH_METRICS_TOKEN>`.

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export async function registerMetrics(
  app: FastifyInstance,
  deps: { db: Db; settings: MetricsSettings; docker: boolean; log: FastifyBaseLogger },
): Promise<void> {
  const registry = createMetricsRegistry()
  const requests = registry.counter('berth_http_requests_total', 'HTTP requests answered, by method, route and status code.')
  const requestSeconds = registry.counter('berth_http_request_duration_seconds_sum', 'Total time spent answering HTTP requests, by method and route.')
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched'
    requests.add({ method: request.method, route, code: String(reply.statusCode) })
    requestSeconds.add({ method: request.method, route }, reply.elapsedTime / 1000)
    done()
  })
  registry.collect(() => berthStateFamilies(deps.db))
  // The engine's stats are read from the first scrape on: a Berth nothing scrapes asks the engine nothing.
  let poll: ReturnType<typeof startContainerStatsPoll> | undefined
  const Docker = deps.docker ? await loadDockerode() : undefined
  const startPolling = () => {
    if (poll || !Docker) return
    poll = startContainerStatsPoll(new Docker(), deps.db, deps.settings.intervalMs, (error) =>
      deps.log.debug({ err: error }, 'could not read the containers’ stats; trying again'),
    )
  }
  if (Docker) {
    registry.collect(() => poll?.families() ?? [])
    app.addHook('onClose', async () => poll?.stop())
  }

  app.get('/metrics', { config: { public: true, unlimited: true }, schema: { hide: true } }, async (request, reply) => {
    const token = deps.settings.token
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1]
    const allowed = token && given ? sameToken(given, token) : LOOPBACK.test(request.ip)
    if (!allowed) throw new AppError('forbidden', 'GET /metrics is open to loopback callers, or to others with BERTH_METRICS_TOKEN as a bearer token')
    startPolling()
    const text = await registry.render((error) => deps.log.warn({ err: error }, 'a metrics collector failed; left out of this scrape'))
    reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
    return text
  })
}
