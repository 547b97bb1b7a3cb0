import type { Principal } from '#src/platform/auth/principal.ts'
import { withUniqueName } from '#src/platform/db/errors.ts'
import { type FieldError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { keyTaken, newRow, type ScopeWrites, storedBytes } from './scope-writes.ts'
import { badRequest, type Expectation, nounOf, TYPE_NOUN, type VariableAccess } from './variable-access.ts'
import { keyErrors, mountPathErrors, valueErrors } from './variable-rules.ts'
import type { VariableChanges, VariablesRepository } from './variables.repository.ts'
import type { ParentScope, ScopeTarget, VariableRecord } from './variables.types.ts'

// A variable's own life: created with its value, edited (a built-in cannot be), deleted with its
// aliases and overrides.

/** A variable or secret as created. */
export interface VariableInput {
  key: string
  value: string
  isSecret: boolean
  mountPath: string | null
  description: string | null
  enableInterpolationInFile: boolean | null
}

/** An edit: what is absent is kept; a description given as null is cleared. */
export interface VariableEdit {
  key: string
  value?: string | null | undefined
  mountPath?: string | null | undefined
  description?: string | null | undefined
  enableInterpolationInFile?: boolean | null | undefined
}

function inputErrors(input: { key: string; value: string; mountPath: string | null }): FieldError[] {
  return [
    ...keyErrors(input.key, '/key'),
    ...valueErrors(input.value, '/value'),
    ...(input.mountPath === null ? [] : mountPathErrors(input.mountPath, '/mount_path')),
  ]
}

export function createVariableEdits(repo: VariablesRepository, access: VariableAccess, writes: ScopeWrites) {
  return {
    async create(principal: Principal, scope: ParentScope, parentId: string, input: VariableInput): Promise<VariableRecord> {
      const target = await access.locate(principal, scope, parentId, 'WRITE')
      const errors = inputErrors(input)
      if (errors.length > 0) throw validationFailed(errors)
      return writes.insert(
        target,
        newRow({
          variableType: input.mountPath === null ? 'VALUE' : 'FILE',
          key: input.key,
          ...writes.stored(input.value, input.isSecret),
          isSecret: input.isSecret,
          mountPath: input.mountPath,
          description: input.description,
          enableInterpolationInFile: input.enableInterpolationInFile,
        }),
        Buffer.byteLength(input.value),
      )
    },

    /**
     * Edits a variable (reference editVariable): a built-in cannot be edited, an override's key is
     * its parent's, an alias's value is its target's key. A secret's value is replaced, never read.
     */
    async edit(principal: Principal, variableId: string, edit: VariableEdit, expected?: Expectation): Promise<VariableRecord> {
      const variable = await access.requireVariable(principal, variableId, 'WRITE', expected)
      const errors: FieldError[] = []
      if (variable.variableType === 'BUILT_IN') throw badRequest('', 'a BUILT_IN variable cannot be edited')
      if (variable.variableType === 'OVERRIDE' && edit.key !== variable.key) {
        errors.push({ path: '/key', message: `an override keeps the key of the variable it overrides (${variable.key})`, location: 'body' })
      } else if (edit.key !== variable.key) errors.push(...keyErrors(edit.key, '/key'))
      const value = edit.value ?? undefined
      if (variable.variableType === 'ALIAS' && value !== undefined && value !== variable.aliased?.key) {
        errors.push({ path: '/value', message: `an alias has the value of the variable it aliases (${variable.aliased?.key})`, location: 'body' })
      }
      if (value !== undefined) errors.push(...valueErrors(value, '/value'))
      const mountPath = edit.mountPath ?? undefined
      if (mountPath !== undefined && variable.variableType !== 'FILE' && variable.variableType !== 'VALUE') {
        errors.push({ path: '/mount_path', message: `cannot be set on ${TYPE_NOUN[variable.variableType]}`, location: 'body' })
      } else if (mountPath !== undefined) errors.push(...mountPathErrors(mountPath, '/mount_path'))
      if (errors.length > 0) throw validationFailed(errors)

      const changes: VariableChanges = { key: edit.key }
      if (value !== undefined && variable.variableType !== 'ALIAS') Object.assign(changes, writes.stored(value, variable.isSecret))
      if (mountPath !== undefined) Object.assign(changes, { mountPath, variableType: 'FILE' })
      if (edit.description !== undefined) changes.description = edit.description
      if (edit.enableInterpolationInFile !== undefined) changes.enableInterpolationInFile = edit.enableInterpolationInFile
      const target: ScopeTarget = {
        scope: variable.scope as ParentScope,
        parentId: variable.serviceId ?? variable.environmentId ?? variable.projectId,
        organizationId: variable.organizationId,
        projectId: variable.projectId,
        environmentId: variable.environmentId,
        serviceId: variable.serviceId,
      }
      await withUniqueName(
        'variables_key',
        () => keyTaken(edit.key, target),
        () =>
          repo.withScopeLocked(target, async (trx) => {
            if (!(await repo.findById(variable.id, trx))) throw notFound(nounOf(expected?.isSecret))
            if (value !== undefined && variable.variableType !== 'ALIAS') {
              writes.checkUsage(target, await repo.usage(trx, target), { count: 0, bytes: Buffer.byteLength(value) - storedBytes(variable) })
            }
            await repo.update(trx, variable.id, changes)
          }),
      )
      return (await repo.findById(variable.id))!
    },

    /** Deletes a variable; its aliases and overrides go with it (as the reference's clients expect). */
    async delete(principal: Principal, variableId: string, expected?: Expectation): Promise<void> {
      const variable = await access.requireVariable(principal, variableId, 'WRITE', expected)
      if (variable.variableType === 'BUILT_IN') throw badRequest('', 'a BUILT_IN variable cannot be deleted')
      if (!(await repo.delete(variable.id))) throw notFound(nounOf(expected?.isSecret))
    },

    /** Deletes variables `builtInLinks` listed; for callers that checked WRITE where they lie. */
    async deleteLinks(variableIds: readonly string[]): Promise<void> {
      for (const variableId of variableIds) await repo.delete(variableId)
    },
  }
}
