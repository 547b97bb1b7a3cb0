import type { EnvironmentRecord } from '#src/modules/environments/environments.repository.ts'
import type { Mode } from '#src/modules/environments/environments.schemas.ts'
import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { ProjectsService } from '#src/modules/projects/projects.service.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { ServicesService } from '#src/modules/services/services.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { violatedForeignKey, withUniqueName } from '#src/platform/db/errors.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import type { ClonesRepository, ServiceClone } from './clones.repository.ts'

// Cloning an environment, or one service into an environment of the same organization (docs/cloning.md,
// "Cloning"). Each service is checked again as a create through the service core; configurations,
// stages, variables (secrets sealed as stored) and job settings are copied; deployment history is not.

export interface ClonesDeps {
  repo: ClonesRepository
  core: ServicesService
  environments: EnvironmentsService
  projects: ProjectsService
  /** Every service of the environment, configurations included. */
  listServices(organizationId: string, environmentId: string): Promise<ServiceRecord[]>
  findService(serviceId: string): Promise<ServiceRecord | undefined>
  /** The environment's stages in deploy order. */
  listStages(environmentId: string): Promise<{ id: string; name: string; description: string | null; position: number }[]>
  /** The stage a service is in. */
  findStageOf(serviceId: string): Promise<{ id: string; name: string } | undefined>
  findEnvironment(environmentId: string): Promise<EnvironmentRecord | undefined>
  findCluster(organizationId: string, clusterId: string): Promise<object | undefined>
}

/** A cloneEnvironment request, as the route read it. */
export interface EnvironmentCloneInput {
  name: string
  clusterId?: string | undefined
  mode?: Mode | undefined
  projectId?: string | undefined
}

const environmentNameTaken = (name: string) => new AppError('conflict', `an environment named "${name}" already exists in this project`)

const unknownCluster = () => validationFailed([{ path: '/cluster_id', message: 'is not a cluster of this organization', location: 'body' }])

/** A write that lost a race with a delete: what it copies from, or into, went (404), or something a configuration references did (400). */
function goneMeanwhile(noun: string) {
  return (error: unknown): never => {
    const constraint = violatedForeignKey(error)
    if (constraint === undefined) throw error
    if (constraint.startsWith('service_references_')) {
      throw validationFailed([{ path: '', message: 'something the source references was deleted while this request ran', location: 'body' }])
    }
    throw notFound(noun)
  }
}

export function createClonesService(deps: ClonesDeps) {
  const { repo, core } = deps

  /** Writes the clone of `source` where `into` says, its services prepared as `role` would create them. */
  async function writeClone(
    source: EnvironmentRecord,
    into: { projectId: string; clusterId: string; name: string; mode: Mode },
    role: Role,
    adjust: (service: ServiceRecord) => ServiceRecord = (service) => service,
  ): Promise<EnvironmentRecord> {
    const services = (await deps.listServices(source.organizationId, source.id)).map(adjust)
    if (services.length > core.perEnvironment) throw core.environmentFull()
    const target = { environment: { id: source.id, organizationId: source.organizationId, autoPreview: source.autoPreview }, role }
    const clones: (ServiceClone & { sourceStageId: string })[] = []
    for (const service of services) {
      const prepared = await core.prepareClone(service, target, service.name)
      clones.push({
        sourceId: service.id,
        sourceStageId: service.deploymentStageId,
        kind: service.kind,
        prepared,
        deploymentSkipped: service.deploymentSkipped,
      })
    }
    const stages = await deps.listStages(source.id)
    const variables = await repo.sourceVariables(
      source.id,
      services.map((service) => service.id),
    )
    const { name } = into
    const id = await withUniqueName(
      'environments_name_key',
      () => environmentNameTaken(name),
      () =>
        repo.cloneEnvironment(
          {
            organizationId: source.organizationId,
            projectId: into.projectId,
            clusterId: into.clusterId,
            name,
            mode: into.mode,
            autoPreview: source.autoPreview,
          },
          stages,
          clones,
          variables,
        ),
    ).catch(goneMeanwhile('environment'))
    return (await deps.findEnvironment(id))!
  }

  return {
    /**
     * A new environment named `input.name` in `input.projectId` (the source's project when absent,
     * else another project of its organization), on `input.clusterId` (the source's cluster when
     * absent), in `input.mode` (the source's when absent), with a copy of every service, stage and
     * variable of the source. WRITE on the source and on the target project.
     */
    async cloneEnvironment(principal: Principal, environmentId: string, input: EnvironmentCloneInput): Promise<EnvironmentRecord> {
      const { environment: source } = await deps.environments.requireEnvironment(principal, environmentId, 'WRITE')
      const { project, role } = await deps.projects.requireProject(principal, input.projectId ?? source.projectId, 'WRITE')
      // Another organization's project is reported as one that does not exist.
      if (project.organizationId !== source.organizationId) throw notFound('project')
      const clusterId = input.clusterId ?? source.clusterId
      if (!(await deps.findCluster(source.organizationId, clusterId))) throw unknownCluster()
      return writeClone(source, { projectId: project.id, clusterId, name: input.name.trim(), mode: input.mode ?? (source.mode as Mode) }, role)
    },

    /**
     * A preview of `sourceEnvironmentId` (docs/previews.md): its clone named `name`, of mode
     * PREVIEW, in its project and on its cluster, asked for by a pull request or an image's tag
     * rather than a principal. Each service's configuration goes through `adjust` first (an
     * image's new tag). Every rule of a create holds again, as for any clone; the source's
     * configurations were authorized when written, so they are prepared as an ADMIN's.
     */
    async clonePreview(
      sourceEnvironmentId: string,
      name: string,
      adjust: (service: ServiceRecord) => ServiceRecord = (service) => service,
    ): Promise<EnvironmentRecord> {
      const source = await deps.findEnvironment(sourceEnvironmentId)
      if (!source) throw notFound('environment')
      return writeClone(source, { projectId: source.projectId, clusterId: source.clusterId, name, mode: 'PREVIEW' }, 'ADMIN', adjust)
    },

    /**
     * A copy of the service named `name` in `environmentId`, an environment of its organization
     * (its own included). WRITE on the service and on the target environment.
     */
    async cloneService(
      principal: Principal,
      type: ServiceType,
      serviceId: string,
      target: { name: string; environmentId: string },
    ): Promise<ServiceRecord> {
      const { service } = await core.requireService(principal, serviceId, 'WRITE', type)
      const { environment, role } = await deps.environments.requireEnvironment(principal, target.environmentId, 'WRITE')
      if (environment.organizationId !== service.organizationId) throw notFound('environment')
      const name = target.name.trim()
      const prepared = await core.prepareClone(service, { environment, role }, name)
      const stage = (await deps.findStageOf(service.id)) ?? { id: service.deploymentStageId, name: '' }
      const variables = await repo.sourceVariables(null, [service.id])
      const id = await withUniqueName(
        'services_name_key',
        () => core.nameTaken(prepared.name),
        () =>
          repo.cloneService(
            { sourceId: service.id, kind: service.kind, prepared, deploymentSkipped: service.deploymentSkipped },
            { organizationId: environment.organizationId, projectId: environment.projectId, environmentId: environment.id },
            stage,
            variables,
            core.perEnvironment,
          ),
      ).catch(goneMeanwhile('environment'))
      if (id === undefined) throw core.environmentFull()
      return (await deps.findService(id))!
    },
  }
}

export type ClonesService = ReturnType<typeof createClonesService>
