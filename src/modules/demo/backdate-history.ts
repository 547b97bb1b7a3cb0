import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'

// The one place the demo writes to the database itself rather than through the API: the API
// stamps deployments with the database's clock and cannot backdate them, and a demo of a single
// minute of history shows nothing. It knows the deployments' tables (migration 0004) and nothing
// else of the deployments module: every timestamp a deployment holds, in its columns, in its
// runner's `progress`, in its log lines (migration 0008) and in its rendered history entries (deployment-entries.ts: `created_at` and
// `updated_at` of the entry and of each service), is moved by the same amount, so its durations,
// its entries and its columns still agree. Durations (`total_duration`, a stage's `duration`)
// are differences and stay as they are. Rewrite this when those tables change.

/** An ISO 8601 time as `Date.prototype.toISOString` writes it, as a JSON string. */
const ISO_TIME = /"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)"/g

/** The JSON text with every ISO time in it moved `byMs` into the past. */
export function shiftTimesInJson(json: string, byMs: number): string {
  return json.replace(ISO_TIME, (_match, time: string) => JSON.stringify(new Date(Date.parse(time) - byMs).toISOString()))
}

export interface Backdating {
  executionId: string
  /** How far into the past the deployment moves; keep a history's order (creation times) as it was. */
  byMs: number
}

/**
 * Moves finished deployments into the past, in one transaction, and bumps their environments'
 * history versions so that no process serves a page rendered before (every process hears of it at
 * commit, migration 0011).
 */
export async function backdateDeployments(db: Db, backdatings: readonly Backdating[]): Promise<void> {
  if (backdatings.length === 0) return
  await db.transaction().execute(async (trx) => {
    const environments = new Set<string>()
    for (const { executionId, byMs } of backdatings) {
      const shift = sql`${byMs} * interval '1 millisecond'`
      // Result columns come back camelCased (the pool's CamelCasePlugin).
      const { rows } = await sql<{ environmentId: string; progress: string; entryJson: string }>`
        select environment_id, progress::text as progress, entry_json from deployment_requests where id = ${executionId} for update`.execute(trx)
      const request = rows[0]
      if (!request) throw new Error(`no deployment ${executionId} to backdate`)
      environments.add(request.environmentId)
      await sql`
        update deployment_requests set
          created_at = created_at - ${shift}, updated_at = updated_at - ${shift},
          started_at = started_at - ${shift}, ended_at = ended_at - ${shift},
          progress = ${shiftTimesInJson(request.progress, byMs)}::jsonb, entry_json = ${shiftTimesInJson(request.entryJson, byMs)}
        where id = ${executionId}`.execute(trx)
      const services = await sql<{ serviceId: string; entryJson: string }>`
        select service_id, entry_json from service_deployments where execution_id = ${executionId}`.execute(trx)
      await sql`update deployment_logs set created_at = created_at - ${shift} where execution_id = ${executionId}`.execute(trx)
      for (const service of services.rows) {
        await sql`
          update service_deployments set created_at = created_at - ${shift}, entry_json = ${shiftTimesInJson(service.entryJson, byMs)}
          where execution_id = ${executionId} and service_id = ${service.serviceId}`.execute(trx)
      }
    }
    for (const environmentId of environments) {
      await sql`update environment_history_versions set version = version + 1 where environment_id = ${environmentId}`.execute(trx)
    }
  })
}
