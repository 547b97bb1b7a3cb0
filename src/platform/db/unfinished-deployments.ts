import { UNFINISHED } from '#src/platform/deployment-states.ts'
import { type Loose, type Queryable, type RowKeys, whereKeys } from './rows-by-keys.ts'

/** The tables whose rows are deployments with an `actionStatus`: the environments' requests and their services' deployments. */
type DeploymentTable<DB> = { [T in keyof DB]: DB[T] extends { actionStatus: string } ? T : never }[keyof DB] & keyof DB & string

/** Whether `table` has a deployment with these keys that is not finished (queued, running or being canceled): it may still start instances. */
export async function hasUnfinishedDeployment<DB, T extends DeploymentTable<DB>>(
  db: Queryable<DB>,
  table: T,
  keys: RowKeys<DB, T>,
): Promise<boolean> {
  const name: string = table
  const found = await whereKeys((db as unknown as Loose).selectFrom(name), keys)
    .where('actionStatus', 'in', UNFINISHED)
    .select((eb) => eb.lit(1).as('found'))
    .limit(1)
    .executeTakeFirst()
  return found !== undefined
}
