import type { ColumnType, Generated, Kysely } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'

// Kysely's view of the alerting tables (migration 0053), kept beside the module that alone uses them.

type CreatedAt = ColumnType<Date, Date | undefined, never>
type Json<T> = ColumnType<T, string, string>

export interface EmailSettings {
  to: string
  from: string
  smarthost: string
  authUsername: string | null
  requireTls: boolean
}

export interface AlertReceiversTable {
  id: Generated<string>
  organizationId: string
  name: string
  description: string
  type: 'SLACK' | 'EMAIL'
  sendResolved: boolean
  owner: string | null
  severity: string | null
  /** EMAIL: its addresses and smarthost; SLACK: {}. */
  settings: Json<EmailSettings | Record<string, never>>
  /** The webhook URL (SLACK) or the SMTP password (EMAIL), sealed; null: an e-mail receiver without one. */
  secretSealed: Buffer | null
  createdAt: CreatedAt
  updatedAt: Date | null
}

export interface AlertCondition {
  kind: 'CUSTOM' | 'BUILT'
  operator?: string
  threshold?: number
  function?: string
  promql: string
}

export interface AlertRulesTable {
  id: Generated<string>
  organizationId: string
  clusterId: string
  name: string
  description: string
  tag: string
  condition: Json<AlertCondition>
  /** The expression Prometheus runs: the condition's, every selector limited to the organization's series. */
  scopedPromql: string
  forDuration: string
  severity: string
  presentation: Json<{ summary?: string | null; runbook_url?: string | null }>
  enabled: boolean
  alertReceiverIds: string[]
  targetType: string
  targetId: string
  /** The target's name when the rule was written: it labels the alert, so notifications carry it. */
  targetName: string
  /** Bumped on every edit; the engines' copy says which one they run. */
  version: Generated<number>
  createdAt: CreatedAt
  updatedAt: Date | null
}

export interface AlertingTables {
  alertReceivers: AlertReceiversTable
  alertRules: AlertRulesTable
}

export const withAlertingTables = (db: Db): Kysely<Database & AlertingTables> => db as unknown as Kysely<Database & AlertingTables>
