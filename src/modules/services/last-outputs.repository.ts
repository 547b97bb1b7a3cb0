import type { Db } from '#src/platform/db/database.ts'

/** A service's last run's outputs (an IAC service's Terraform outputs), as the runner kept them; undefined before any. */
export function lastOutputReader(db: Db) {
  return (serviceId: string) =>
    db.selectFrom('serviceRunOutputs').select(['executionId', 'output', 'createdAt']).where('serviceId', '=', serviceId).executeTakeFirst()
}
