import { parseArgs } from 'node:util'
import { buildApp } from '#src/app.ts'
import { type Config, secretKeySettings } from '#src/config.ts'
import { backdateDeployments } from '#src/modules/demo/backdate-history.ts'
import { injectApi } from '#src/modules/demo/demo-api.ts'
import { DEMO_ORGANIZATION, DEMO_TOKEN_DESCRIPTION } from '#src/modules/demo/demo-plan.ts'
import { type DemoReport, seedDemo } from '#src/modules/demo/demo-seed.ts'
import { createDeploymentRunsRepository } from '#src/modules/deployments/runner/deployment-runs.repository.ts'
import { chooseLogFormat, createLogger } from '#src/platform/logger.ts'
import { serverSecretBox } from '#src/platform/secrets/server-secret-box.ts'
import { openDatabaseRuntime } from './database-runtime.ts'
import { createConfiguredRunner } from './deployment-engine.ts'
import { mintOrganizationToken } from './token-create.ts'
import { UsageError } from './usage.ts'

export const SEED_USAGE = `usage: berth seed --demo

Fills the database with the demo organization "${DEMO_ORGANIZATION}": projects, environments, helm services and
days of deployment history. What exists already is kept; running it again adds only what is missing.
Prints an API token for the organization and the console's address.`

/** Where a person on this machine reaches the server of these settings. */
function consoleUrl(config: Config): string {
  const host = config.http.host
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host
  const port = config.http.port === 0 ? '<port>' : String(config.http.port)
  return `http://${reachable}:${port}/console/`
}

function describe(report: DemoReport): string {
  const { created: c, existing: e } = report
  const counts = (n: typeof c) =>
    `${n.projects} projects, ${n.environments} environments, ${n.services} services, ${n.helmRepositories} helm repositories, ${n.variables} variables`
  const lines = [`created: ${counts(c)}`]
  if (e.projects + e.environments + e.services + e.helmRepositories + e.variables > 0) lines.push(`already there, kept as they are: ${counts(e)}`)
  const h = report.history
  if (h) {
    lines.push(
      `history: ${h.deployments} deployments in ${h.environments} environments from ${h.oldest.slice(0, 16)}Z to ${h.newest.slice(0, 16)}Z ` +
        `(${h.failed} failed, ${h.canceled} canceled, ${h.stops} stops, ${h.restarts} restarts)`,
    )
    if (h.lateCancels > 0) lines.push(`(${h.lateCancels} cancel(s) came too late: another server's runner on this database ran the deployment first)`)
  }
  if (report.historiesKept > 0) lines.push(`history: ${report.historiesKept} environment(s) had deployments already, left as they were`)
  return lines.map((line) => `  ${line}`).join('\n')
}

/**
 * `berth seed --demo`: the demo organization, made through the API in this process (buildApp and
 * inject, as a client would), its history run by a runner of this process, then moved back in
 * time. It uses the same settings as the server, whether or not one runs.
 */
export async function seed(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { demo: { type: 'boolean', default: false } }, strict: true })
  if (!values.demo) throw new UsageError(SEED_USAGE)

  // stdout is the command's report; warnings go to stderr.
  const logger = createLogger('warn', { format: chooseLogFormat(config.log.format, process.stderr.isTTY === true), fd: 2 })
  const database = await openDatabaseRuntime(config, { use: 'command', log: () => {} })
  try {
    const { db } = database
    // The ADMIN token the person signs in with, minted as `berth token create` does; the earlier
    // run's token cannot be shown again (only its digest is kept), so it is revoked below.
    const minted = await mintOrganizationToken(db, config, {
      organization: DEMO_ORGANIZATION,
      role: 'ADMIN',
      name: `demo ${new Date().toISOString()}`,
      description: DEMO_TOKEN_DESCRIPTION,
      expiredAt: null,
    })
    // The demo's secrets are sealed with the key `berth serve` opens them with.
    const secrets = await serverSecretBox(db, secretKeySettings(config), (message) => logger.warn(message))
    const app = await buildApp({ config, db, secrets, logger })
    let report: DemoReport
    let revoked = 0
    try {
      const api = injectApi(app, `Token ${minted.token}`)
      const runs = createDeploymentRunsRepository(db)
      report = await seedDemo({
        api,
        organizationId: minted.organization.id,
        // A runner of this process, as serve's: it runs whatever is queued on the database, the
        // demo's deployments and any other, with the demo's short step.
        startRunner(stepMs) {
          const runner = createConfiguredRunner(
            runs,
            { ...config.runner, pollMs: 25, simulatedStepMs: stepMs },
            logger.child({ component: 'runner' }),
          )
          runner.start()
          return runner
        },
        backdate: (backdatings) => backdateDeployments(db, backdatings),
      })
      const { body } = await api.call<{ results: { id: string; name: string; description: string }[] }>(
        'GET',
        `/organization/${minted.organization.id}/apiToken`,
      )
      for (const earlier of body.results.filter((t) => t.description === DEMO_TOKEN_DESCRIPTION && t.name !== minted.name)) {
        await api.call('DELETE', `/organization/${minted.organization.id}/apiToken/${earlier.id}`)
        revoked++
      }
    } finally {
      await app.close()
    }
    process.stdout.write(
      [
        `Berth demo: organization "${minted.organization.name}" (${minted.organization.id})`,
        describe(report),
        '',
        `API token (ADMIN), shown this once: ${minted.token}`,
        ...(revoked > 0
          ? [`  the token of the earlier run cannot be shown again (only its digest is kept): it is revoked, and this one replaces it`]
          : []),
        `Console: ${consoleUrl(config)} (sign in with the token above, once berth serve runs)`,
        '',
      ].join('\n'),
    )
  } finally {
    await database.close().catch((error: Error) => process.stderr.write(`berth: warning: ${error.message}\n`))
  }
}
