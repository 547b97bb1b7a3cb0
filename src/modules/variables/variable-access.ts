import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { CheckedScope, OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { ProjectsService } from '#src/modules/projects/projects.service.ts'
import type { RequireService } from '#src/modules/services/require-service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { notFound, validationFailed } from '#src/platform/http/errors.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import type { ResolvableVariable, VariablesRepository } from './variables.repository.ts'
import type { ParentScope, ScopeTarget } from './variables.types.ts'

// Who reaches a variable: the scope it lives in, located through the project, environment and
// service modules, and a variable checked against the caller's role. Also how errors name them.

export interface VariableAccessDeps {
  repo: VariablesRepository
  /** The organizations service's `requireScoped`: the role held where the resource lies (a custom role grants per environment). */
  organizations: Pick<OrganizationsService, 'requireScoped'>
  projects: Pick<ProjectsService, 'requireProject'>
  environments: Pick<EnvironmentsService, 'requireEnvironment'>
  requireService: RequireService
}

/** Where a per-scope route expects the variable it names: in its scope, a secret or not. */
export interface Expectation {
  target: ScopeTarget
  isSecret: boolean
}

/** How errors name a scope: "project", "application". */
export const scopeNoun = (scope: ParentScope): string => scope.toLowerCase()

/** How errors name a variable: as the route that names it does. */
export const nounOf = (isSecret?: boolean) => (isSecret === undefined ? 'variable' : isSecret ? 'secret' : 'environment variable')

/** How a message names a variable of that type. */
export const TYPE_NOUN: Record<string, string> = { ALIAS: 'an alias', OVERRIDE: 'an override', BUILT_IN: 'a built-in variable' }

export const badRequest = (path: string, message: string) => validationFailed([{ path, message, location: 'body' }])

export function createVariableAccess(deps: VariableAccessDeps) {
  /** The project, environment or service a variable lives in, if the principal holds `needed` in its organization. */
  async function locate(principal: Principal, scope: ParentScope, parentId: string, needed: Role): Promise<ScopeTarget> {
    if (scope === 'PROJECT') {
      const { project } = await deps.projects.requireProject(principal, parentId, needed)
      return { scope, parentId, organizationId: project.organizationId, projectId: project.id, environmentId: null, serviceId: null }
    }
    if (scope === 'ENVIRONMENT') {
      const { environment } = await deps.environments.requireEnvironment(principal, parentId, needed)
      return {
        scope,
        parentId,
        organizationId: environment.organizationId,
        projectId: environment.projectId,
        environmentId: environment.id,
        serviceId: null,
      }
    }
    const { service } = await deps.requireService(principal, parentId, needed, scope)
    const { environment } = await deps.environments.requireEnvironment(principal, service.environmentId, 'READ').catch(asNotFound(scopeNoun(scope)))
    return {
      scope,
      parentId,
      organizationId: service.organizationId,
      projectId: environment.projectId,
      environmentId: environment.id,
      serviceId: service.id,
    }
  }

  /**
   * A variable the principal holds `needed` for, a secret or not as `isSecret` asks when it does;
   * 404 as for a variable that does not exist otherwise.
   */
  async function accessibleVariable(principal: Principal, variableId: string, needed: Role, isSecret?: boolean): Promise<ResolvableVariable> {
    const noun = nounOf(isSecret)
    const variable = await deps.repo.findById(variableId)
    if (!variable) throw notFound(noun)
    const scope: CheckedScope = variable.environmentId
      ? { kind: 'environmentId', environmentId: variable.environmentId }
      : variable.projectId
        ? { kind: 'project', projectId: variable.projectId }
        : { kind: 'organization' }
    await deps.organizations.requireScoped(principal, variable.organizationId, scope, needed).catch(asNotFound(noun))
    if (isSecret !== undefined && variable.isSecret !== isSecret) throw notFound(noun)
    return variable
  }

  /** A variable to change: accessible, and in the scope a per-scope route names. */
  async function requireVariable(principal: Principal, variableId: string, needed: Role, expected?: Expectation): Promise<ResolvableVariable> {
    const variable = await accessibleVariable(principal, variableId, needed, expected?.isSecret)
    const target = expected?.target
    if (
      target &&
      !(variable.projectId === target.projectId && variable.environmentId === target.environmentId && variable.serviceId === target.serviceId)
    ) {
      throw notFound(nounOf(expected.isSecret))
    }
    return variable
  }

  return { locate, accessibleVariable, requireVariable }
}

export type VariableAccess = ReturnType<typeof createVariableAccess>
