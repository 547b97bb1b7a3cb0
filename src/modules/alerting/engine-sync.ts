import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { MonitoringPaths } from '#src/modules/metrics/monitoring-engines.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { withAlertingTables } from './alerting.tables.ts'
import { alertmanagerConfig, rulesFile, secretFile } from './engine-config.ts'

// Writes what the engines run from the database and has them load it (POST /-/reload): after every
// change of a rule or receiver, and after either engine starts, so that both converge on the
// database whatever restarted. One write at a time per process; each writes everything.

export const RULES_FILE_NAME = 'berth-alert-rules.yml'
const RELOAD_TIMEOUT_MS = 10_000

async function writeAtomically(file: string, content: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`
  await writeFile(temporary, content, { mode: 0o600 })
  await rename(temporary, file)
}

async function reload(url: string): Promise<void> {
  const res = await fetch(`${url}/-/reload`, { method: 'POST', signal: AbortSignal.timeout(RELOAD_TIMEOUT_MS) })
  const body = await res.text()
  if (!res.ok) throw new Error(`${url}/-/reload answered ${res.status}: ${body.trim()}`)
}

export function createEngineSync(deps: { db: Db; secrets: SecretBox; paths: MonitoringPaths; groupWaitMs: number }) {
  const db = withAlertingTables(deps.db)
  const { paths } = deps
  let turn: Promise<unknown> = Promise.resolve()

  async function writeFiles(): Promise<void> {
    const [rules, receivers] = await Promise.all([
      db.selectFrom('alertRules').selectAll().orderBy('createdAt').orderBy('id').execute(),
      db.selectFrom('alertReceivers').selectAll().execute(),
    ])
    await mkdir(paths.rulesDir, { recursive: true, mode: 0o700 })
    await mkdir(paths.secretsDir, { recursive: true, mode: 0o700 })
    await mkdir(path.dirname(paths.alertmanagerConfigFile), { recursive: true, mode: 0o700 })
    const kept = new Set<string>()
    for (const receiver of receivers) {
      if (!receiver.secretSealed) continue
      kept.add(receiver.id)
      await writeAtomically(secretFile(paths.secretsDir, receiver.id), deps.secrets.open(receiver.secretSealed))
    }
    for (const name of await readdir(paths.secretsDir)) if (!kept.has(name)) await rm(path.join(paths.secretsDir, name), { force: true })
    const byId = new Map(receivers.map((r) => [r.id, { ...r, hasSecret: r.secretSealed !== null }]))
    await writeAtomically(path.join(paths.rulesDir, RULES_FILE_NAME), JSON.stringify(rulesFile(rules), null, 1))
    await writeAtomically(
      paths.alertmanagerConfigFile,
      JSON.stringify(alertmanagerConfig(rules, byId, { groupWaitMs: deps.groupWaitMs, secretsDir: paths.secretsDir }), null, 1),
    )
  }

  const queued = <T>(work: () => Promise<T>): Promise<T> => {
    const next = turn.then(work, work)
    turn = next.catch(() => undefined)
    return next
  }

  return {
    /** Writes the files only (before Alertmanager starts: it needs its file). */
    writeFiles: () => queued(writeFiles),
    /** Writes the files and has both engines load them; rejects when either could not. */
    sync: () =>
      queued(async () => {
        await writeFiles()
        await Promise.all([reload(paths.prometheusUrl), reload(paths.alertmanagerUrl)])
      }),
  }
}

export type EngineSync = ReturnType<typeof createEngineSync>
