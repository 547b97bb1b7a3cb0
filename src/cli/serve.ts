import pino from 'pino'
import { buildApp, LOG_REDACTIONS } from '#src/app.ts'
import type { Config } from '#src/config.ts'
import { openDatabaseRuntime } from './database-runtime.ts'

/** `berth serve`: the API on HOST:PORT until SIGINT or SIGTERM, then a clean stop. */
export async function serve(config: Config): Promise<void> {
  const logger = pino({ level: config.log.level, redact: { paths: LOG_REDACTIONS, censor: '[redacted]' } })
  const started = performance.now()
  const database = await openDatabaseRuntime(config, { owner: true, log: (message) => logger.debug({ component: 'postgres' }, message) })
  const app = await buildApp({ config, db: database.db, logger })

  let stopping: Promise<void> | undefined
  const stop = (signal: string) => {
    stopping ??= (async () => {
      logger.info({ signal }, 'shutting down')
      try {
        await app.close()
      } finally {
        await database.close()
      }
      logger.info('stopped')
    })()
    return stopping
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // Stays installed: a repeated signal (Ctrl-C twice, a supervisor and its child) must not kill
    // the process before the database is stopped.
    process.on(signal, () => {
      stop(signal).then(
        () => process.exit(0),
        (error) => {
          logger.error({ err: error }, 'unclean shutdown')
          process.exit(1)
        },
      )
    })
  }

  try {
    await app.listen({ host: config.http.host, port: config.http.port })
  } catch (error) {
    await stop('listen failure').catch(() => {})
    throw error
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.http.port
  logger.info(
    { database: database.description, startupMs: Math.round(performance.now() - started) },
    `berth listening on http://${config.http.host}:${port}`,
  )
}
