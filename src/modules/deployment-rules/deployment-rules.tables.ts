import type { ColumnType, Generated, Kysely } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'

// Kysely's view of the deployment rules' tables (migration 0059), kept beside the module that alone writes them.

type CreatedAt = ColumnType<Date, Date | undefined, never>

/** A project's deployment rule: what environments created under a matching name get. */
export interface ProjectDeploymentRulesTable {
  id: Generated<string>
  organizationId: string
  projectId: string
  name: string
  description: string | null
  mode: string
  clusterId: string
  autoStop: boolean
  timezone: string
  startTime: Date
  stopTime: Date
  weekdays: ColumnType<string[], string, string>
  wildcard: string
  priorityIndex: number
  createdAt: CreatedAt
  updatedAt: ColumnType<Date, Date | undefined, Date>
}

/** Up to which event of its schedule the platform acted on an environment. */
export interface EnvironmentScheduleMarksTable {
  environmentId: string
  actedThrough: Date
  lastAction: string | null
  updatedAt: ColumnType<Date, Date | undefined, Date>
}

// A type alias, not an interface: Kysely needs its index signature.
export type DeploymentRuleTables = {
  projectDeploymentRules: ProjectDeploymentRulesTable
  environmentScheduleMarks: EnvironmentScheduleMarksTable
}

export type DeploymentRulesDb = Kysely<Database & DeploymentRuleTables>

/** The database with the deployment rules' tables in view. */
export const withDeploymentRuleTables = (db: Db): DeploymentRulesDb => db.withTables<DeploymentRuleTables>()
