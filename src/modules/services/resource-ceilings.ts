import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { type FieldError, validationFailed } from '#src/platform/http/errors.ts'

// What an organization's services may ask of the host together (issue 31): a WRITE token could
// otherwise ask for 1,000 instances of 256 GiB each. Every kind that runs containers stores `cpu`
// (millicores) and `memory` (MB) in its configuration, and those that scale `maxRunningInstances`;
// the check reads only those keys, so it holds for every kind, present and future.

/** BERTH_ORGANIZATION_MAX_MEMORY_MB and BERTH_ORGANIZATION_MAX_CPU (Config['services']); 0: no ceiling. */
export interface ResourceCeilings {
  organizationMaxMemoryMb: number
  organizationMaxCpu: number
}

/** 1 TiB and 1,000 cores: far above one host, far below what a token could otherwise ask. */
export const DEFAULT_RESOURCE_CEILINGS: ResourceCeilings = { organizationMaxMemoryMb: 1_048_576, organizationMaxCpu: 1_000_000 }

/** What one service asks for at most: each of its instances' cpu and memory. */
export function demandOf(configuration: unknown): { memoryMb: number; cpu: number } {
  const config = (configuration ?? {}) as Record<string, unknown>
  const number = (key: string) => (typeof config[key] === 'number' && Number.isFinite(config[key]) ? (config[key] as number) : 0)
  const instances = Math.max(number('maxRunningInstances'), number('minRunningInstances'), 1)
  return { memoryMb: instances * number('memory'), cpu: instances * number('cpu') }
}

/** The same sum in SQL, over the stored configurations. */
const STORED_DEMAND = (key: 'memory' | 'cpu') =>
  sql<string>`coalesce(sum(
    case when jsonb_typeof(configuration -> ${key}) = 'number' then (configuration ->> ${key})::numeric else 0 end *
    greatest(
      case when jsonb_typeof(configuration -> 'maxRunningInstances') = 'number' then (configuration ->> 'maxRunningInstances')::numeric else 0 end,
      case when jsonb_typeof(configuration -> 'minRunningInstances') = 'number' then (configuration ->> 'minRunningInstances')::numeric else 0 end,
      1)
  ), 0)`

/**
 * The check the service core runs on every create, edit and clone: 400, at `/memory` or `/cpu`,
 * when the organization's services would ask for more than its ceilings together. Two writes at
 * the same moment may each pass alone: the ceilings are a bound on what a token can ask, not an
 * accounting.
 */
export function createResourceCeilings(db: Db, ceilings: ResourceCeilings = DEFAULT_RESOURCE_CEILINGS) {
  return async (organizationId: string, configuration: unknown, edited?: { id: string; configuration: unknown }): Promise<void> => {
    const wanted = demandOf(configuration)
    if (wanted.memoryMb === 0 && wanted.cpu === 0) return
    // An edit that asks for no more than before passes: lowering a ceiling must not freeze services over it.
    const before = edited ? demandOf(edited.configuration) : undefined
    if (before && wanted.memoryMb <= before.memoryMb && wanted.cpu <= before.cpu) return
    const exceptServiceId = edited?.id
    let query = db
      .selectFrom('services')
      .select([STORED_DEMAND('memory').as('memoryMb'), STORED_DEMAND('cpu').as('cpu')])
      .where('organizationId', '=', organizationId)
    if (exceptServiceId !== undefined) query = query.where('id', '<>', exceptServiceId)
    const others = await query.executeTakeFirstOrThrow()
    const errors: FieldError[] = []
    const over = (path: string, what: string, total: number, ceiling: number, unit: string, variable: string) => {
      if (ceiling > 0 && total > ceiling) {
        errors.push({
          path,
          message: `would bring the organization's ${what} to ${total} ${unit} (instances × ${what} of every service), over its ceiling of ${ceiling} ${unit} (${variable})`,
          location: 'body',
        })
      }
    }
    over('/memory', 'memory', Number(others.memoryMb) + wanted.memoryMb, ceilings.organizationMaxMemoryMb, 'MB', 'BERTH_ORGANIZATION_MAX_MEMORY_MB')
    over('/cpu', 'cpu', Number(others.cpu) + wanted.cpu, ceilings.organizationMaxCpu, 'millicores', 'BERTH_ORGANIZATION_MAX_CPU')
    if (errors.length > 0) throw validationFailed(errors)
  }
}

export type ResourceCeilingsCheck = ReturnType<typeof createResourceCeilings>
