import type { Principal } from '#src/platform/auth/principal.ts'
import { validationFailed } from '#src/platform/http/errors.ts'
import { newRow, type ScopeWrites } from './scope-writes.ts'
import { badRequest, TYPE_NOUN, type VariableAccess } from './variable-access.ts'
import { keyErrors, valueErrors } from './variable-rules.ts'
import { isVisibleFrom, levelOf, type ParentScope, type VariableRecord } from './variables.types.ts'

// Aliases and overrides: a variable of a scope that points at another variable its scope sees, under
// another name (an alias) or with another value (an override).

/** What an alias or an override adds beyond the variable it points at. */
export interface LinkInput {
  description: string | null
  enableInterpolationInFile: boolean | null
}

export function createVariableLinks(access: VariableAccess, writes: ScopeWrites) {
  return {
    /**
     * Another name, in `scope`, for a variable that scope sees (its own or a parent's). It has the
     * aliased variable's value and secrecy; an alias of an alias is refused.
     */
    async createAlias(
      principal: Principal,
      variableId: string,
      key: string,
      link: LinkInput,
      scope: ParentScope,
      parentId: string,
      isSecret?: boolean,
    ): Promise<VariableRecord> {
      const target = await access.locate(principal, scope, parentId, 'WRITE')
      const aliased = await access.accessibleVariable(principal, variableId, 'READ', isSecret)
      if (aliased.variableType === 'ALIAS') throw badRequest('', 'an alias cannot be aliased; alias the variable it aliases')
      if (!isVisibleFrom(aliased, target)) {
        throw badRequest('', 'an alias is created in the scope of the variable it aliases or in a scope below it (project > environment > service)')
      }
      const errors = keyErrors(key, '/key')
      if (errors.length > 0) throw validationFailed(errors)
      return writes.insert(
        target,
        newRow({
          variableType: 'ALIAS',
          key,
          isSecret: aliased.isSecret,
          description: link.description,
          enableInterpolationInFile: link.enableInterpolationInFile,
          aliasedVariableId: aliased.id,
        }),
        0,
      )
    },

    /**
     * A value that replaces, in `scope`, the value of a variable of a parent scope: same key, same
     * secrecy, same mount path.
     */
    async createOverride(
      principal: Principal,
      variableId: string,
      value: string,
      link: LinkInput,
      scope: ParentScope,
      parentId: string,
      isSecret?: boolean,
    ): Promise<VariableRecord> {
      const target = await access.locate(principal, scope, parentId, 'WRITE')
      const overridden = await access.accessibleVariable(principal, variableId, 'READ', isSecret)
      if (overridden.variableType !== 'VALUE' && overridden.variableType !== 'FILE') {
        throw badRequest('', `only a variable's own value can be overridden, not ${TYPE_NOUN[overridden.variableType]}'s`)
      }
      if (!isVisibleFrom(overridden, target) || levelOf(overridden) >= levelOf(target)) {
        throw badRequest('', 'an override is created in a scope below the variable it overrides (project > environment > service)')
      }
      const errors = valueErrors(value, '/value')
      if (errors.length > 0) throw validationFailed(errors)
      return writes.insert(
        target,
        newRow({
          variableType: 'OVERRIDE',
          key: overridden.key,
          ...writes.stored(value, overridden.isSecret),
          isSecret: overridden.isSecret,
          mountPath: overridden.mountPath,
          description: link.description,
          enableInterpolationInFile: link.enableInterpolationInFile,
          overriddenVariableId: overridden.id,
        }),
        Buffer.byteLength(value),
      )
    },
  }
}
