import type { Principal } from '#src/platform/auth/principal.ts'
import { type ResolvedVariables, resolveServiceVariables } from './resolved-variables.ts'
import type { VariableAccess } from './variable-access.ts'
import type { VariablesRepository } from './variables.repository.ts'
import type { ParentScope, VariableRecord } from './variables.types.ts'

// Reads of variables: what a scope sees, what each service deploys with (a deployment's snapshot),
// and the links other services hold to a database's built-ins.

export function createVariableReads(repo: VariablesRepository, access: VariableAccess) {
  return {
    locate: access.locate,

    /** What each of the environment's services deploys with now (for triggers, which checked access). */
    async resolveForDeployment(environmentId: string, serviceIds: string[]): Promise<Map<string, ResolvedVariables>> {
      if (serviceIds.length === 0) return new Map()
      const rows = await repo.resolvableInEnvironment(environmentId)
      return new Map(serviceIds.map((serviceId) => [serviceId, resolveServiceVariables(rows, serviceId)]))
    },

    /** What the scope sees: its own variables and its parents', built-ins included. */
    async list(principal: Principal, scope: ParentScope, parentId: string, isSecret?: boolean): Promise<VariableRecord[]> {
      return repo.visibleFrom(await access.locate(principal, scope, parentId, 'READ'), isSecret)
    },

    /**
     * The service-scoped aliases and overrides in the environment of a built-in whose key starts with
     * `keyPrefix` (a database's: its services' links to it); for callers that checked access there.
     */
    async builtInLinks(environmentId: string, keyPrefix: string): Promise<{ id: string; serviceId: string; key: string; linkedKey: string }[]> {
      return (await repo.resolvableInEnvironment(environmentId)).flatMap((variable) => {
        const linked = variable.aliased ?? variable.overridden
        const isLink = variable.variableType === 'ALIAS' || variable.variableType === 'OVERRIDE'
        if (!isLink || variable.serviceId === null || variable.environmentId !== environmentId) return []
        if (linked?.variableType !== 'BUILT_IN' || !linked.key.startsWith(keyPrefix)) return []
        return [{ id: variable.id, serviceId: variable.serviceId, key: variable.key, linkedKey: linked.key }]
      })
    },
  }
}
