// The words of variables and secrets, as the reference spells them (APIVariableScopeEnum, APIVariableTypeEnum).

/** The service kinds that hold variables, each its own scope. */
export const SERVICE_SCOPES = ['APPLICATION', 'CONTAINER', 'JOB', 'HELM'] as const
export type ServiceScope = (typeof SERVICE_SCOPES)[number]

/** Where a variable may be created. */
export type ParentScope = 'PROJECT' | 'ENVIRONMENT' | ServiceScope

export const isServiceScope = (scope: string): scope is ServiceScope => (SERVICE_SCOPES as readonly string[]).includes(scope)

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
