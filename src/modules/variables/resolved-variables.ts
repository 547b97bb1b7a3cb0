import { createHash } from 'node:crypto'
import { opener, openVariables } from '#src/modules/executors/snapshot-secrets.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { SnapshotVariable } from '#src/platform/snapshot-variable.ts'
import type { ResolvableVariable } from './variables.repository.ts'
import { levelOf } from './variables.types.ts'

// What a service is deployed with: the variables it sees, one per key, the service's over its
// environment's over its project's (docs/variables.md, "Variables and secrets"). Secrets stay sealed here; only
// an executor opens them, at the moment it hands them to the service.

/** The variables a service was resolved with, and the fingerprint of the rows they came from. */
export interface ResolvedVariables {
  variables: SnapshotVariable[]
  /** md5 of the rows' `id:version`, by id: the same as berth_service_variables_fingerprint (migration 0010). */
  fingerprint: string
}

/** The rows a service sees, of those of its environment and project. */
const seenBy = (serviceId: string) => (variable: ResolvableVariable) => variable.serviceId === null || variable.serviceId === serviceId

/**
 * Resolves what `serviceId` is deployed with from every variable of its environment and project:
 * for each key the highest scope wins (an override is such a variable); an alias takes the value
 * its target's key has for this service, or its target's own when that is an alias too.
 */
export function resolveServiceVariables(rows: ResolvableVariable[], serviceId: string): ResolvedVariables {
  const seen = rows.filter(seenBy(serviceId))
  const winners = new Map<string, ResolvableVariable>()
  for (const row of seen) {
    const current = winners.get(row.key)
    if (!current || levelOf(row) > levelOf(current)) winners.set(row.key, row)
  }
  const byId = new Map(seen.map((row) => [row.id, row]))
  const deliveredValue = (row: ResolvableVariable): Pick<SnapshotVariable, 'value' | 'sealed'> =>
    row.isSecret ? { sealed: row.valueSealed?.toString('base64') ?? '' } : { value: row.value ?? '' }

  const variables = [...winners.values()]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((row): SnapshotVariable => {
      let source = row
      if (row.variableType === 'ALIAS') {
        const target = row.aliased ? byId.get(row.aliased.id) : undefined
        const effective = target && winners.get(target.key)
        source = effective && effective.variableType !== 'ALIAS' ? effective : (target ?? row)
      }
      return {
        key: row.key,
        ...deliveredValue(source),
        isSecret: source.isSecret,
        mountPath: row.variableType === 'ALIAS' ? null : row.mountPath,
        variableId: row.id,
        scope: row.scope,
        variableType: row.variableType,
      }
    })
  const ids = seen.map((row) => `${row.id}:${row.version}`).sort()
  const fingerprint = ids.length === 0 ? '' : createHash('md5').update(ids.join(',')).digest('hex')
  return { variables, fingerprint }
}

/** The variables' values in the clear, for an executor to give to the service; never log them. */
export const revealVariables = (variables: SnapshotVariable[], secrets: SecretBox) => openVariables(variables, opener(secrets))

/** How a log names a deployment's variables: their keys, secrets and files marked, never a value. */
export function variableNames(variables: SnapshotVariable[]): string {
  if (variables.length === 0) return 'none'
  return variables
    .map((variable) => `${variable.key}${variable.isSecret ? ' (secret)' : ''}${variable.mountPath ? ` (file at ${variable.mountPath})` : ''}`)
    .join(', ')
}
