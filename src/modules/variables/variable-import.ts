import type { Principal } from '#src/platform/auth/principal.ts'
import { withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, type FieldError, validationFailed } from '#src/platform/http/errors.ts'
import { newRow, type ScopeWrites, storedBytes } from './scope-writes.ts'
import { scopeNoun, type VariableAccess } from './variable-access.ts'
import { keyErrors, valueErrors } from './variable-rules.ts'
import type { VariablesRepository } from './variables.repository.ts'
import type { ScopeTarget, ServiceScope } from './variables.types.ts'

// An import of many variables into a service's scopes at once (reference importEnvironmentVariables).

/** A variable of an import (VariableImportRequest's `vars`). */
export interface ImportedVariable {
  name: string
  value: string
  scope: string
  isSecret: boolean
}

export interface ImportResult {
  total: number
  imported: { name: string; value: string | null; scope: string; isSecret: boolean }[]
}

export function createVariableImport(repo: VariablesRepository, access: VariableAccess, writes: ScopeWrites) {
  return {
    /**
     * Imports variables into a service's scopes: each goes to the service, its environment or its
     * project as its `scope` says. Without `overwrite` a key the scope already has is left as it is;
     * with it, a plain variable of that key and the same secrecy takes the new value (an import never
     * turns a secret into a variable or back). All or nothing: one invalid entry refuses the whole import.
     */
    async import(
      principal: Principal,
      serviceScope: ServiceScope,
      serviceId: string,
      request: { overwrite: boolean; vars: ImportedVariable[] },
    ): Promise<ImportResult> {
      const service = await access.locate(principal, serviceScope, serviceId, 'WRITE')
      const targets: Partial<Record<string, ScopeTarget>> = {
        [serviceScope]: service,
        ENVIRONMENT: { ...service, scope: 'ENVIRONMENT', parentId: service.environmentId!, serviceId: null },
        PROJECT: { ...service, scope: 'PROJECT', parentId: service.projectId, environmentId: null, serviceId: null },
      }
      const errors: FieldError[] = []
      const seen = new Set<string>()
      request.vars.forEach((entry, index) => {
        if (!targets[entry.scope]) {
          errors.push({
            path: `/vars/${index}/scope`,
            message: `must be PROJECT, ENVIRONMENT or ${serviceScope} for this ${scopeNoun(serviceScope)}`,
            location: 'body',
          })
        }
        errors.push(...keyErrors(entry.name, `/vars/${index}/name`), ...valueErrors(entry.value, `/vars/${index}/value`))
        const id = `${entry.scope}:${entry.name}`
        if (seen.has(id)) errors.push({ path: `/vars/${index}/name`, message: 'is given twice for this scope', location: 'body' })
        seen.add(id)
      })
      if (errors.length > 0) throw validationFailed(errors)

      const imported: ImportResult['imported'] = []
      for (const scope of ['PROJECT', 'ENVIRONMENT', serviceScope]) {
        const target = targets[scope]!
        const entries = request.vars.filter((entry) => entry.scope === scope)
        if (entries.length === 0) continue
        await withUniqueName(
          'variables_key',
          () => new AppError('conflict', 'a variable of this import was created by another request meanwhile; import again'),
          () =>
            repo.withScopeLocked(target, async (trx) => {
              const usage = await repo.usage(trx, target)
              for (const entry of entries) {
                const existing = await repo.findInScope(trx, target, entry.name)
                const overwritable = existing?.variableType === 'VALUE' && existing.isSecret === entry.isSecret
                if (existing && !(request.overwrite && overwritable)) continue
                const bytes = Buffer.byteLength(entry.value)
                const before = existing ? storedBytes(existing) : 0
                writes.checkUsage(target, usage, { count: existing ? 0 : 1, bytes: bytes - before })
                usage.count += existing ? 0 : 1
                usage.bytes += bytes - before
                if (existing) await repo.update(trx, existing.id, writes.stored(entry.value, entry.isSecret))
                else
                  await repo.insert(
                    trx,
                    target,
                    newRow({ variableType: 'VALUE', key: entry.name, ...writes.stored(entry.value, entry.isSecret), isSecret: entry.isSecret }),
                  )
                imported.push({ name: entry.name, value: entry.isSecret ? null : entry.value, scope, isSecret: entry.isSecret })
              }
            }),
        ).catch(writes.whenGone(target))
      }
      return { total: request.vars.length, imported }
    },
  }
}
