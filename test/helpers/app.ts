import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '#src/app.ts'
import { createConfiguredRunner, deploymentEngine } from '#src/cli/deployment-engine.ts'
import { type Config, loadConfig } from '#src/config.ts'
import { connectKubernetesExecutor } from '#src/executor-connections.ts'
import type { DeploymentRunner } from '#src/modules/deployments/runner/deployment-runner.ts'
import { createDeploymentRunsRepository } from '#src/modules/deployments/runner/deployment-runs.repository.ts'
import { kubernetesSettings } from '#src/modules/executors/kubernetes/kubernetes-engine.ts'
import { KUBERNETES_KINDS } from '#src/modules/services/kinds/registry.ts'
import { createEventWorkers } from '#src/modules/webhooks/event-workers.ts'
import { type Db, openDatabase } from '#src/platform/db/database.ts'
import { createSecretBox, type SecretBox } from '#src/platform/secrets/secret-box.ts'

/** The database the test runner created for this run (see scripts/test.ts). */
export function testDatabaseUrl(): string {
  const url = process.env.DATABASE_URL
  if (!url) throw new Error('DATABASE_URL is not set: run the tests with `npm test`')
  return url
}

/** The tests' secret key: fixed, so that every test process can open what another sealed. */
export const TEST_SECRET_KEY = 'b'.repeat(64)

export const testSecretBox = (): SecretBox => createSecretBox(Buffer.from(TEST_SECRET_KEY, 'hex'))

/**
 * BERTH_ENUM_WORDS of the test process, when set: a file run with BERTH_ENUM_WORDS=reference (or a
 * `*.reference.test.ts` file that sets it) answers in the reference's words (docs/enum-words.md).
 */
const enumWordsOfRun = (): Record<string, string> => (process.env.BERTH_ENUM_WORDS ? { BERTH_ENUM_WORDS: process.env.BERTH_ENUM_WORDS } : {})

export interface TestApp {
  app: FastifyInstance
  db: Db
  config: Config
  /** The deployment runner, when the app was made with `runner: true`. */
  runner: DeploymentRunner | undefined
  /** Listens on a free loopback port, for real HTTP clients; returns the base URL. */
  listen(): Promise<string>
  close(): Promise<void>
}

/**
 * The production app on the run's PostgreSQL database (or env's DATABASE_URL), driven with
 * `app.inject`. `oidcCooldownMs` overrides the Bearer key-fetch cooldown, which the environment
 * cannot set below a second. `runner` runs deployments in this process, as `berth serve` does; a
 * runner takes every queued deployment of its database, so give it a database of its own.
 */
export async function createTestApp(env: Record<string, string> = {}, options: { oidcCooldownMs?: number; runner?: boolean } = {}): Promise<TestApp> {
  const config = loadConfig({ DATABASE_URL: testDatabaseUrl(), BERTH_LOG_LEVEL: 'silent', ...enumWordsOfRun(), ...env })
  const db = openDatabase(config.database.url!, 5)
  const quiet = { info() {}, warn() {} }
  const docker = options.runner ? await deploymentEngine(config, db, testSecretBox(), quiet) : undefined
  const runner = options.runner
    ? createConfiguredRunner(createDeploymentRunsRepository(db), config.runner, quiet, docker, {
        KUBERNETES: connectKubernetesExecutor(db, testSecretBox(), kubernetesSettings(config), KUBERNETES_KINDS),
      })
    : undefined
  // A process that runs deployments delivers their webhooks too, as `berth serve` does.
  const eventWorkers = options.runner ? createEventWorkers(config, db, testSecretBox(), quiet) : undefined
  const app = await buildApp({
    config,
    db,
    secrets: testSecretBox(),
    oidcCooldownMs: options.oidcCooldownMs,
    onDeploymentQueued: () => runner?.wake(),
  })
  await app.ready()
  runner?.start()
  eventWorkers?.start()
  return {
    app,
    db,
    config,
    runner,
    async listen() {
      await app.listen({ port: 0, host: '127.0.0.1' })
      return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    },
    async close() {
      await runner?.stop()
      await eventWorkers?.stop()
      await app.close()
      await db.destroy()
    },
  }
}
