import { violatedForeignKey, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { scopeNoun } from './variable-access.ts'
import type { VariableLimits } from './variable-rules.ts'
import type { NewVariable, ResolvableVariable, VariablesRepository } from './variables.repository.ts'
import type { ScopeTarget, VariableRecord } from './variables.types.ts'

// Writes within one scope's limits: values as stored (a secret's sealed), under the scope's lock so
// that the per-scope limits hold; a taken key is a 409, a write that lost a race with a delete a 404.

export interface ScopeWritesDeps {
  repo: VariablesRepository
  secrets: SecretBox
  limits: VariableLimits
}

export const keyTaken = (key: string, target: ScopeTarget) =>
  new AppError('conflict', `a variable named "${key}" already exists in this ${scopeNoun(target.scope)}; edit it or choose another key`)

/** The bytes a stored value takes in its scope's budget. */
export const storedBytes = (variable: ResolvableVariable) =>
  variable.isSecret ? (variable.valueSealed?.length ?? 0) : Buffer.byteLength(variable.value ?? '')

/** A row to insert: what `row` says, nothing for the rest. */
export const newRow = (row: Pick<NewVariable, 'variableType' | 'key' | 'isSecret'> & Partial<NewVariable>): NewVariable => ({
  value: null,
  valueSealed: null,
  mountPath: null,
  description: null,
  enableInterpolationInFile: null,
  aliasedVariableId: null,
  overriddenVariableId: null,
  ...row,
})

/** A byte count for people. */
const bytesText = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`)

export function createScopeWrites({ repo, secrets, limits }: ScopeWritesDeps) {
  /** Refuses a write that would take the scope past its limits. */
  function checkUsage(target: ScopeTarget, usage: { count: number; bytes: number }, added: { count: number; bytes: number }) {
    const noun = scopeNoun(target.scope)
    if (usage.count + added.count > limits.perScope) {
      throw new AppError(
        'conflict',
        `this ${noun} holds ${usage.count} variables, and at most ${limits.perScope} are allowed (BERTH_VARIABLES_PER_SCOPE)`,
      )
    }
    if (usage.bytes + added.bytes > limits.bytesPerScope) {
      throw new AppError(
        'conflict',
        `the values of this ${noun} would take more than ${bytesText(limits.bytesPerScope)} (BERTH_VARIABLE_BYTES_PER_SCOPE); a scope's variables are delivered together`,
      )
    }
  }

  /** A value as stored: in the clear, or sealed when it is a secret's. */
  const stored = (value: string, isSecret: boolean) =>
    isSecret ? { value: null, valueSealed: secrets.seal(value) } : { value, valueSealed: null as Buffer | null }

  /** A write that lost a race with the delete of its scope, or of the variable it points at: 404. */
  const whenGone = (target: ScopeTarget, linked?: string) => (error: unknown) => {
    const constraint = violatedForeignKey(error)
    if (constraint === undefined) throw error
    throw notFound(/aliased|overridden/.test(constraint) && linked ? linked : scopeNoun(target.scope))
  }

  /** Inserts a variable in its locked scope, within the scope's limits; a taken key is 409. */
  async function insert(target: ScopeTarget, variable: NewVariable, bytes: number): Promise<VariableRecord> {
    const id = await withUniqueName(
      'variables_key',
      () => keyTaken(variable.key, target),
      () =>
        repo.withScopeLocked(target, async (trx) => {
          if (await repo.findInScope(trx, target, variable.key)) throw keyTaken(variable.key, target)
          checkUsage(target, await repo.usage(trx, target), { count: 1, bytes })
          return repo.insert(trx, target, variable)
        }),
    ).catch(whenGone(target, 'variable'))
    return (await repo.findById(id))!
  }

  return { checkUsage, stored, whenGone, insert }
}

export type ScopeWrites = ReturnType<typeof createScopeWrites>
