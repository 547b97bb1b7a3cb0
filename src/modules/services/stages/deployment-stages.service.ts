import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { RequireService } from '#src/modules/services/require-service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import { DEFAULT_SERVICE_LIMITS } from '../services.service.ts'
import type { DeploymentStagesRepository, StageWithServices } from './deployment-stages.repository.ts'

// Deployment stages: an environment's deployment runs them in order, the services of a stage in
// parallel. A new service joins its kind's default stage; people create, rename, order and
// empty stages, and move services between them.

export interface DeploymentStagesDeps {
  repo: DeploymentStagesRepository
  environments: Pick<EnvironmentsService, 'requireEnvironment'>
  /** The organizations service's `requireScoped`: the role held where the resource lies (a custom role grants per environment). */
  organizations: Pick<OrganizationsService, 'requireScoped'>
  requireService: RequireService
  /** BERTH_SERVICES_PER_ENVIRONMENT: how many stages a create may bring an environment to. */
  maxStages?: number
}

export interface StageInput {
  name: string
  description: string | null
}

const environmentFull = (limit: number) =>
  new AppError('conflict', `the environment already holds ${limit} deployment stages, the most an environment may (BERTH_SERVICES_PER_ENVIRONMENT)`)

const nameTaken = (name: string) => new AppError('conflict', `a deployment stage named "${name}" already exists in this environment`)
const guardName = <T>(name: string, write: () => Promise<T>) => withUniqueName('deployment_stages_name_key', () => nameTaken(name), write)

export function createDeploymentStagesService(deps: DeploymentStagesDeps) {
  const { repo, maxStages = DEFAULT_SERVICE_LIMITS.perEnvironment } = deps

  /** The stage if the principal holds `needed` in its organization; 404 for no access at all. */
  async function requireStage(principal: Principal, stageId: string, needed: Role): Promise<StageWithServices> {
    const stage = await repo.findById(stageId)
    if (!stage) throw notFound('deployment stage')
    const scope = { kind: 'environmentId', environmentId: stage.environmentId } as const
    await deps.organizations.requireScoped(principal, stage.organizationId, scope, needed).catch(asNotFound('deployment stage'))
    return stage
  }

  async function reread(stageId: string): Promise<StageWithServices> {
    const stage = await repo.findById(stageId)
    if (!stage) throw notFound('deployment stage')
    return stage
  }

  return {
    async list(principal: Principal, environmentId: string): Promise<StageWithServices[]> {
      const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'READ')
      return repo.list(environment.id)
    },

    get: (principal: Principal, stageId: string) => requireStage(principal, stageId, 'READ'),

    /** The stage a service is in. */
    async ofService(principal: Principal, serviceId: string): Promise<StageWithServices> {
      const { service } = await deps.requireService(principal, serviceId, 'READ')
      const stage = await repo.findByService(service.id)
      if (!stage) throw notFound('service')
      return stage
    },

    /**
     * Adds a stage after the environment's others: 409 when the environment holds
     * BERTH_SERVICES_PER_ENVIRONMENT stages already (a kind's default stage, made with its first
     * service, is made whatever their number).
     */
    async create(principal: Principal, environmentId: string, input: StageInput): Promise<StageWithServices> {
      const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'WRITE')
      const id = await guardName(input.name, () =>
        repo.create({ organizationId: environment.organizationId, environmentId: environment.id, ...input }, maxStages),
      ).catch((error: unknown) => {
        // The environment went while the stage was added.
        if ((error as { code?: string }).code === '23503') throw notFound('environment')
        throw error
      })
      if (id === undefined) throw environmentFull(maxStages)
      return reread(id)
    },

    async update(principal: Principal, stageId: string, input: StageInput): Promise<StageWithServices> {
      const stage = await requireStage(principal, stageId, 'WRITE')
      if (!(await guardName(input.name, () => repo.update(stage.id, input)))) throw notFound('deployment stage')
      return reread(stage.id)
    },

    /** Deletes an empty stage: 409 while services are in it. Deployments already queued keep the stages they were planned with. */
    async delete(principal: Principal, stageId: string): Promise<void> {
      const stage = await requireStage(principal, stageId, 'WRITE')
      const outcome = await repo.deleteIfEmpty(stage.environmentId, stage.id)
      if (outcome === 'gone') throw notFound('deployment stage')
      if (outcome === 'not_empty') {
        throw new AppError('conflict', `the deployment stage "${stage.name}" still holds services; move them to another stage first`)
      }
    },

    /** Moves a stage right before or after another of its environment; answers the environment's stages in their new order. */
    async move(principal: Principal, stageId: string, where: 'before' | 'after', otherId: string): Promise<StageWithServices[]> {
      const stage = await requireStage(principal, stageId, 'WRITE')
      const other = await repo.findById(otherId)
      if (!other || other.environmentId !== stage.environmentId) throw notFound('deployment stage')
      if (!(await repo.move(stage.environmentId, stage.id, where, other.id))) throw notFound('deployment stage')
      return repo.list(stage.environmentId)
    },

    /**
     * Moves a service into the stage; answers the environment's stages. As the reference has it, the
     * service is skipped only when `skipped` is true: a move without it un-skips the service.
     */
    async attachService(principal: Principal, stageId: string, serviceId: string, skipped: boolean | undefined): Promise<StageWithServices[]> {
      const stage = await requireStage(principal, stageId, 'WRITE')
      const { service } = await deps.requireService(principal, serviceId, 'WRITE')
      if (service.environmentId !== stage.environmentId) throw notFound('service')
      if (!(await repo.attachService(stage.environmentId, stage.id, service.id, skipped === true))) throw notFound('service')
      return repo.list(stage.environmentId)
    },
  }
}

export type DeploymentStagesService = ReturnType<typeof createDeploymentStagesService>
