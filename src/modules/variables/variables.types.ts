import type { ServiceType } from '#src/platform/service-types.ts'

// The words of variables and secrets, as the reference spells them (APIVariableScopeEnum, APIVariableTypeEnum).

/**
 * A service kind that holds variables, each its own scope: one whose descriptor has
 * `features.variables`. The routes are handed those kinds (`isServiceScope`).
 */
export type ServiceScope = ServiceType

/** Where a variable may be created. */
export type ParentScope = 'PROJECT' | 'ENVIRONMENT' | ServiceScope

export const isServiceScope = (scopes: readonly ServiceScope[], scope: string): scope is ServiceScope => (scopes as readonly string[]).includes(scope)

/** Words as an error lists them: "A, B or C". */
export const listedWords = (words: readonly string[]): string =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`

export type VariableType = 'VALUE' | 'FILE' | 'ALIAS' | 'OVERRIDE' | 'BUILT_IN'

/** A project, an environment or a service, as the place a variable lives. */
export interface ScopeTarget {
  scope: ParentScope
  /** The project's, environment's or service's id. */
  parentId: string
  organizationId: string
  projectId: string
  environmentId: string | null
  serviceId: string | null
}

/** A variable another one aliases or overrides, as a response names it. */
export interface LinkedVariable {
  id: string
  key: string
  /** Null for a secret. */
  value: string | null
  mountPath: string | null
  scope: string
  variableType: VariableType
  isSecret: boolean
}

/** A stored variable as reads return it; a secret's value is never among its fields. */
export interface VariableRecord {
  id: string
  organizationId: string
  projectId: string
  environmentId: string | null
  serviceId: string | null
  scope: string
  variableType: VariableType
  key: string
  /** Null for a secret and an alias. */
  value: string | null
  isSecret: boolean
  mountPath: string | null
  description: string | null
  enableInterpolationInFile: boolean | null
  version: number
  createdAt: Date
  updatedAt: Date
  serviceName: string | null
  serviceKind: string | null
  aliased: LinkedVariable | null
  overridden: LinkedVariable | null
}

/** 1 for a project's variables, 2 for an environment's, 3 for a service's: a higher level wins. */
export const levelOf = (variable: { environmentId: string | null; serviceId: string | null }): number =>
  variable.serviceId ? 3 : variable.environmentId ? 2 : 1

/** Whether a variable of `variable`'s place is seen from `target` (its own scope or a parent's). */
export const isVisibleFrom = (variable: Pick<VariableRecord, 'projectId' | 'environmentId' | 'serviceId'>, target: ScopeTarget): boolean =>
  variable.projectId === target.projectId &&
  (variable.environmentId === null || variable.environmentId === target.environmentId) &&
  (variable.serviceId === null || variable.serviceId === target.serviceId)
