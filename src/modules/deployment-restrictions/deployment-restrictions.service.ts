import type { RequireService } from '#src/modules/services/require-service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { isUniqueViolation } from '#src/platform/db/errors.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import type { DeploymentRestrictionsRepository, RestrictionRecord } from './deployment-restrictions.repository.ts'
import { type PathRestriction, pathValueProblem, pushDeploys } from './path-restrictions.ts'

// Deployment restrictions of applications, jobs and helm services (issue 20): reads need READ on
// the service, writes WRITE; a service of another organization, or of another kind, is a 404 as a
// random id is. The git webhooks ask `pushDeploys` which services a push's changed paths deploy.

/** The kinds that have deployment restrictions: those that follow a git branch. */
/** A kind that has deployment restrictions (its descriptor's `features.restrictions`). */
export type RestrictedType = ServiceType

/** At most this many restrictions per service: the list is answered whole. */
export const RESTRICTIONS_PER_SERVICE = 100

export interface DeploymentRestrictionsDeps {
  repo: DeploymentRestrictionsRepository
  requireService: RequireService
}

const duplicate = () => new AppError('conflict', 'the service already has a deployment restriction with this mode, type and value')

function checked(restriction: PathRestriction): PathRestriction {
  const problem = pathValueProblem(restriction.value)
  if (problem) throw validationFailed([{ path: '/value', message: problem, location: 'body' }])
  return restriction
}

async function unique<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isUniqueViolation(error, 'deployment_restrictions_unique')) throw duplicate()
    throw error
  }
}

export function createDeploymentRestrictionsService(deps: DeploymentRestrictionsDeps) {
  const { repo } = deps
  const service = async (principal: Principal, type: RestrictedType, serviceId: string, needed: Role) =>
    (await deps.requireService(principal, serviceId, needed, type)).service.id

  return {
    async list(principal: Principal, type: RestrictedType, serviceId: string): Promise<RestrictionRecord[]> {
      return repo.list(await service(principal, type, serviceId, 'READ'))
    },

    /** 400 for a value the platform refuses, 409 for a duplicate or a service that holds RESTRICTIONS_PER_SERVICE already. */
    async create(principal: Principal, type: RestrictedType, serviceId: string, input: PathRestriction): Promise<RestrictionRecord> {
      const id = await service(principal, type, serviceId, 'WRITE')
      const created = await unique(() => repo.create(id, checked(input), RESTRICTIONS_PER_SERVICE))
      if (created) return created
      // The service was there a moment ago: either it is full, or it was deleted since.
      if ((await repo.list(id)).length >= RESTRICTIONS_PER_SERVICE) {
        throw new AppError('conflict', `a service has at most ${RESTRICTIONS_PER_SERVICE} deployment restrictions`)
      }
      throw notFound(type.toLowerCase())
    },

    /** Replaces mode, type and value; 409 when another restriction of the service has them. */
    async update(principal: Principal, type: RestrictedType, serviceId: string, id: string, input: PathRestriction): Promise<RestrictionRecord> {
      const owner = await service(principal, type, serviceId, 'WRITE')
      const updated = await unique(() => repo.update(owner, id, checked(input)))
      if (!updated) throw notFound('deployment restriction')
      return updated
    },

    async delete(principal: Principal, type: RestrictedType, serviceId: string, id: string): Promise<void> {
      const owner = await service(principal, type, serviceId, 'WRITE')
      if (!(await repo.delete(owner, id))) throw notFound('deployment restriction')
    },

    /** The services among `serviceIds` that a push which changed `changedPaths` (undefined: not known) deploys. */
    async deployedBy(serviceIds: readonly string[], changedPaths: readonly string[] | undefined): Promise<Set<string>> {
      const restrictions = changedPaths === undefined ? new Map<string, RestrictionRecord[]>() : await repo.listOf(serviceIds)
      return new Set(serviceIds.filter((id) => pushDeploys(restrictions.get(id) ?? [], changedPaths)))
    },
  }
}

export type DeploymentRestrictionsService = ReturnType<typeof createDeploymentRestrictionsService>
