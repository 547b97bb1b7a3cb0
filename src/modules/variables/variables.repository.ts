import { type Expression, type SqlBool, sql, type Transaction } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'
import type { LinkedVariable, ScopeTarget, VariableRecord, VariableType } from './variables.types.ts'

type Queries = Db | Transaction<Database>

/** The columns a create stores; the scope's columns come from its target. */
export interface NewVariable {
  variableType: VariableType
  key: string
  value: string | null
  valueSealed: Buffer | null
  isSecret: boolean
  mountPath: string | null
  description: string | null
  enableInterpolationInFile: boolean | null
  aliasedVariableId: string | null
  overriddenVariableId: string | null
}

/** What an edit changes. */
export type VariableChanges = Partial<
  Pick<NewVariable, 'key' | 'value' | 'valueSealed' | 'mountPath' | 'description' | 'enableInterpolationInFile'>
> & {
  variableType?: VariableType
}

/** A variable with its sealed value, for a deployment to resolve. */
export type ResolvableVariable = VariableRecord & { valueSealed: Buffer | null }

/** How many variables a scope holds, and the bytes of their values. */
export interface ScopeUsage {
  count: number
  bytes: number
}

function selectRecords(queries: Queries) {
  return queries
    .selectFrom('variables as v')
    .leftJoin('variables as a', 'a.id', 'v.aliasedVariableId')
    .leftJoin('variables as o', 'o.id', 'v.overriddenVariableId')
    .leftJoin('services as s', 's.id', 'v.serviceId')
    .selectAll('v')
    .select([
      's.name as serviceName',
      's.kind as serviceKind',
      'a.id as aliasedId',
      'a.key as aliasedKey',
      'a.value as aliasedValue',
      'a.mountPath as aliasedMountPath',
      'a.scope as aliasedScope',
      'a.variableType as aliasedType',
      'a.isSecret as aliasedIsSecret',
      'o.id as overriddenId',
      'o.key as overriddenKey',
      'o.value as overriddenValue',
      'o.mountPath as overriddenMountPath',
      'o.scope as overriddenScope',
      'o.variableType as overriddenType',
      'o.isSecret as overriddenIsSecret',
    ])
}

type SelectedRow = Awaited<ReturnType<ReturnType<typeof selectRecords>['executeTakeFirstOrThrow']>>

function linked(
  id: string | null,
  key: string | null,
  value: string | null,
  mountPath: string | null,
  scope: string | null,
  variableType: string | null,
  isSecret: boolean | null,
): LinkedVariable | null {
  if (id === null) return null
  return { id, key: key!, value, mountPath, scope: scope!, variableType: variableType as VariableType, isSecret: isSecret === true }
}

function toRecord(row: SelectedRow): ResolvableVariable {
  return {
    id: row.id,
    organizationId: row.organizationId,
    projectId: row.projectId,
    environmentId: row.environmentId,
    serviceId: row.serviceId,
    scope: row.scope,
    variableType: row.variableType as VariableType,
    key: row.key,
    value: row.value,
    valueSealed: row.valueSealed,
    isSecret: row.isSecret,
    mountPath: row.mountPath,
    description: row.description,
    enableInterpolationInFile: row.enableInterpolationInFile,
    version: row.version,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    serviceName: row.serviceName,
    serviceKind: row.serviceKind,
    aliased: linked(row.aliasedId, row.aliasedKey, row.aliasedValue, row.aliasedMountPath, row.aliasedScope, row.aliasedType, row.aliasedIsSecret),
    overridden: linked(
      row.overriddenId,
      row.overriddenKey,
      row.overriddenValue,
      row.overriddenMountPath,
      row.overriddenScope,
      row.overriddenType,
      row.overriddenIsSecret,
    ),
  }
}

/** Never hands a sealed value to a caller that only reads. */
function withoutSealed({ valueSealed: _, ...record }: ResolvableVariable): VariableRecord {
  return record
}

/** The rows of exactly the target's scope. */
const inScope = (target: ScopeTarget) =>
  sql<SqlBool>`v.project_id = ${target.projectId}
    and v.environment_id is not distinct from ${target.environmentId}::uuid
    and v.service_id is not distinct from ${target.serviceId}::uuid`

/** The rows the target sees: its scope's and its parents'. */
const visibleFrom = (target: ScopeTarget): Expression<SqlBool> =>
  sql<SqlBool>`v.project_id = ${target.projectId}
    and (v.environment_id is null or v.environment_id = ${target.environmentId}::uuid)
    and (v.service_id is null or v.service_id = ${target.serviceId}::uuid)`

export function createVariablesRepository(db: Db) {
  return {
    /**
     * What the target sees, its parents' first, then by key: the reference's per-scope and generic
     * lists show inherited variables too.
     */
    async visibleFrom(target: ScopeTarget, isSecret?: boolean): Promise<VariableRecord[]> {
      let query = selectRecords(db).where(visibleFrom(target))
      if (isSecret !== undefined) query = query.where('v.isSecret', '=', isSecret)
      const rows = await query
        .orderBy(sql`(v.service_id is not null)::int + (v.environment_id is not null)::int`)
        .orderBy(sql`v.scope = 'BUILT_IN'`, 'desc')
        .orderBy('v.key')
        .execute()
      return rows.map((row) => withoutSealed(toRecord(row)))
    },

    /** Every variable the services of an environment see, sealed values included: what deployments resolve. */
    async resolvableInEnvironment(environmentId: string): Promise<ResolvableVariable[]> {
      const rows = await selectRecords(db)
        .where(sql<SqlBool>`v.project_id = (select project_id from environments where id = ${environmentId})`)
        .where((eb) => eb.or([eb('v.environmentId', 'is', null), eb('v.environmentId', '=', environmentId)]))
        .execute()
      return rows.map(toRecord)
    },

    async findById(variableId: string, queries: Queries = db): Promise<ResolvableVariable | undefined> {
      const row = await selectRecords(queries).where('v.id', '=', variableId).executeTakeFirst()
      return row && toRecord(row)
    },

    /** The variable of the scope named `key`, if any. */
    async findInScope(trx: Queries, target: ScopeTarget, key: string): Promise<ResolvableVariable | undefined> {
      const row = await selectRecords(trx).where(inScope(target)).where('v.key', '=', key).executeTakeFirst()
      return row && toRecord(row)
    },

    /**
     * Runs `work` with the scope's variables locked against other writers of the same scope, so that
     * its limits hold under concurrent creates.
     */
    withScopeLocked<T>(target: ScopeTarget, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
      return db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(hashtextextended(${target.parentId}::text, 10))`.execute(trx)
        return work(trx)
      })
    },

    /** The scope's user variables (built-ins are not counted) and the bytes of their values, sealed ones included. */
    async usage(trx: Queries, target: ScopeTarget): Promise<ScopeUsage> {
      const row = await trx
        .selectFrom('variables as v')
        .where(inScope(target))
        .where('v.variableType', '<>', 'BUILT_IN')
        .select([
          sql<number>`count(*)::int`.as('count'),
          sql<number>`coalesce(sum(octet_length(coalesce(v.value, '')) + coalesce(octet_length(v.value_sealed), 0)), 0)::int`.as('bytes'),
        ])
        .executeTakeFirstOrThrow()
      return { count: row.count, bytes: row.bytes }
    },

    async insert(trx: Queries, target: ScopeTarget, variable: NewVariable): Promise<string> {
      const row = await trx
        .insertInto('variables')
        .values({
          organizationId: target.organizationId,
          projectId: target.projectId,
          environmentId: target.environmentId,
          serviceId: target.serviceId,
          scope: target.scope,
          ...variable,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      return row.id
    },

    /** Applies an edit and bumps the version; a new key is carried to the variable's overrides, which share it. */
    async update(trx: Queries, variableId: string, changes: VariableChanges): Promise<void> {
      await trx
        .updateTable('variables')
        .set({ ...changes, version: sql`version + 1`, updatedAt: sql`now()` })
        .where('id', '=', variableId)
        .execute()
      if (changes.key !== undefined) {
        await trx
          .updateTable('variables')
          .set({ key: changes.key, version: sql`version + 1`, updatedAt: sql`now()` })
          .where('overriddenVariableId', '=', variableId)
          .where('key', '<>', changes.key)
          .execute()
      }
    },

    /** Deletes a variable, and with it (by foreign key) its aliases and overrides; false when it was gone. */
    async delete(variableId: string): Promise<boolean> {
      const result = await db.deleteFrom('variables').where('id', '=', variableId).where('variableType', '<>', 'BUILT_IN').executeTakeFirst()
      return result.numDeletedRows > 0n
    },
  }
}

export type VariablesRepository = ReturnType<typeof createVariablesRepository>
