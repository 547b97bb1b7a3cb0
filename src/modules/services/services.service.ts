import { createHash } from 'node:crypto'
import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { violatedForeignKey, withUniqueName } from '#src/platform/db/errors.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { type CappedList, DEFAULT_LIST_LIMIT, DEFAULT_LIST_MAX_BYTES } from '#src/platform/http/lists.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import { createKeyedTurns } from '#src/platform/keyed-turns.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { pushTargetOf } from './push-targets.ts'
import type { RequireService } from './require-service.ts'
import type { ResourceCeilingsCheck } from './resource-ceilings.ts'
import { groupIdsOf, prepareWithGroups } from './service-groups.ts'
import type { AnyServiceKind, PreparedService, ServiceKinds, ServiceLookups, ServiceRecord } from './service-kinds.ts'
import type { ServicesRepository } from './services.repository.ts'
import type { DeploymentStagesRepository } from './stages/deployment-stages.repository.ts'

// The one service core: names, access, organization scoping, stage membership, versions and
// references, written once for every kind. A kind only prepares its configuration.

export interface ServicesDeps {
  repo: ServicesRepository
  stages: DeploymentStagesRepository
  kinds: ServiceKinds
  lookups: ServiceLookups
  /** The organizations service's `requireScoped`: the role held where the resource lies (a custom role grants per environment). */
  organizations: Pick<OrganizationsService, 'requireScoped'>
  environments: Pick<EnvironmentsService, 'requireEnvironment'>
  /** BERTH_LIST_LIMIT: the most services a list answers with. */
  listLimit?: number
  /** BERTH_LIST_MAX_BYTES: the most bytes of stored configurations a list answers with (at least one service). */
  listMaxBytes?: number
  /** BERTH_SERVICE_CONFIG_MAX_BYTES and BERTH_SERVICES_PER_ENVIRONMENT. */
  limits?: ServiceLimits
  /** Seals what a clone makes afresh (a database's master password). */
  secrets: SecretBox
  /** The organization's resource ceilings (resource-ceilings.ts), checked on every create, edit and clone. */
  checkCeilings?: ResourceCeilingsCheck
}

/** What a clone of a service stores, checked as a create in its target environment (`prepareClone`). */
export interface PreparedClone {
  id?: string
  name: string
  configuration: unknown
  references: PreparedService<unknown>['references']
  pushRepository: string | null
  pushBranch: string | null
}

/** What one service and one environment may hold (Config['services']). */
export interface ServiceLimits {
  /** The largest configuration a service may store, in bytes of compact JSON (UTF-8). */
  configurationMaxBytes: number
  /** How many services, of every kind, an environment may hold. */
  perEnvironment: number
}

/** The defaults of BERTH_SERVICE_CONFIG_MAX_BYTES and BERTH_SERVICES_PER_ENVIRONMENT. */
export const DEFAULT_SERVICE_LIMITS: ServiceLimits = { configurationMaxBytes: 256 * 1024, perEnvironment: 200 }

const nameTaken = (name: string) => new AppError('conflict', `a service named "${name}" already exists in this environment`)

const environmentFull = (limit: number) =>
  new AppError('conflict', `the environment already holds ${limit} services, the most an environment may (BERTH_SERVICES_PER_ENVIRONMENT)`)

/**
 * 400 when the configuration a create or an edit would store is over the limit, measured as the
 * compact JSON the service core stores. Every kind's configuration goes through here.
 */
function checkConfigurationSize(configuration: unknown, maxBytes: number): void {
  const bytes = Buffer.byteLength(JSON.stringify(configuration))
  if (bytes <= maxBytes) return
  const message = `the service's configuration would be ${bytes} bytes of JSON, over the limit of ${maxBytes} bytes (BERTH_SERVICE_CONFIG_MAX_BYTES)`
  throw new AppError('validation_failed', message, { errors: [{ path: '', message, location: 'body' }] })
}

const stale = (kind: AnyServiceKind) =>
  new AppError('precondition_failed', `the ${kind.noun} service changed since you read it (If-Match); read it again and retry`)

/** The reference each foreign key of `service_references` guards. */
const REFERENCE_COLUMNS = new Map([
  ['service_references_git_token_id_fkey', 'gitTokenId'],
  ['service_references_helm_repository_id_fkey', 'helmRepositoryId'],
  ['service_references_container_registry_id_fkey', 'containerRegistryId'],
  ['service_references_organization_group_id_fkey', 'organizationGroupId'],
])

/**
 * A write that lost a race with a delete: the environment is gone (404), or something the
 * configuration references was deleted after it was checked (400 at the fields that name it).
 */
function referenceGone(kindPaths: Record<string, string>, prepared: PreparedService<unknown>) {
  return (error: unknown): never => {
    const constraint = violatedForeignKey(error)
    // The environment (or its organization) was deleted under the write, the service's default stage with it.
    if (constraint !== undefined && /^(services|deployment_stages)_(environment|organization)_id_fkey$/.test(constraint))
      throw notFound('environment')
    const column = constraint === undefined ? undefined : REFERENCE_COLUMNS.get(constraint)
    if (column === undefined) throw error
    const errors = prepared.references
      .filter((reference) => column in reference)
      .map((reference) => ({
        path: kindPaths[reference.field] ?? `/${reference.field}`,
        message: 'was deleted while this request ran',
        location: 'body' as const,
      }))
    throw validationFailed(errors)
  }
}

/**
 * The service's ETag: its version, plus a digest of the names of what it references, which its
 * representation shows and which change without the service changing.
 */
export function serviceEntityTag(service: Pick<ServiceRecord, 'version' | 'references'>): string {
  const references = JSON.stringify(service.references.map((reference) => [reference.field, reference.name, reference.url]))
  return `${service.version}.${createHash('sha256').update(references).digest('base64url').slice(0, 12)}`
}

export function createServicesService(deps: ServicesDeps) {
  const { repo, stages, kinds, listLimit = DEFAULT_LIST_LIMIT, listMaxBytes = DEFAULT_LIST_MAX_BYTES, limits = DEFAULT_SERVICE_LIMITS } = deps

  // An organization's lists of services are read one at a time in this process: a burst of them
  // (one token asking for 20 pages at once) waits here, holding no pooled connection, and other
  // organizations' requests find connections free. Each credential then holds one page at a time
  // until its caller is done with it (`heldUntil`: its response written out), so that a client
  // that does not read holds up its own credential's lists only, not its organization's (issue 31).
  const listTurns = createKeyedTurns()
  const pageTurns = createKeyedTurns()

  const kindOf = (type: ServiceType): AnyServiceKind => {
    const kind = kinds.get(type)
    if (!kind) throw new Error(`no service kind ${type} is registered`)
    return kind
  }

  // A kind Berth does not serve yet (a per-scope variables route of applications) has no services: 404.
  const nounOf = (type?: ServiceType) => (type ? (kinds.get(type)?.noun ?? type.toLowerCase()) : 'service')

  /** The service, read once; 404 when it does not exist or is of another kind than `type`. No access check: the caller makes one. */
  async function findService(serviceId: string, type?: ServiceType): Promise<ServiceRecord> {
    const service = await repo.findById(serviceId)
    if (!service || (type && service.kind !== type)) throw notFound(nounOf(type))
    return service
  }

  /**
   * The service if the principal holds `needed` in its organization; 404 for no access at all, and
   * for a service of another kind than `type` (a helm route given a container's id).
   */
  const requireService: RequireService = async (principal, serviceId, needed, type) => {
    const service = await findService(serviceId, type)
    const noun = nounOf(type)
    const scope = { kind: 'environmentId', environmentId: service.environmentId } as const
    const role = await deps.organizations.requireScoped(principal, service.organizationId, scope, needed).catch(asNotFound(noun))
    return { service, role }
  }

  return {
    requireService,

    /** BERTH_SERVICES_PER_ENVIRONMENT, and the 409 a write that would go over it answers. */
    perEnvironment: limits.perEnvironment,
    environmentFull: () => environmentFull(limits.perEnvironment),

    /**
     * What a copy of `source` named `name` would store in `environment`, where the caller holds
     * `role`: the kind's create input made from the stored configuration, authorized and prepared
     * as a create there, so that every rule of a create holds again (references must be of the
     * organization and still exist, a helm's cluster-wide right needs ADMIN, sizes). Writes nothing.
     */
    async prepareClone(
      source: ServiceRecord,
      target: { environment: { id: string; organizationId: string; autoPreview: boolean }; role: Role },
      name: string,
    ): Promise<PreparedClone> {
      const kind = kindOf(source.kind)
      const { environment, role } = target
      const context = { organizationId: environment.organizationId, lookups: deps.lookups, role, environment }
      const input = kind.cloneInput(source, name, { secrets: deps.secrets })
      kind.authorize?.(context, input)
      const prepared = await prepareWithGroups(kind, context, input, undefined, source.references)
      checkConfigurationSize(prepared.configuration, limits.configurationMaxBytes)
      await deps.checkCeilings?.(environment.organizationId, prepared.configuration)
      return { ...prepared, ...pushTargetOf(kind, prepared.configuration) }
    },

    /** The 409 a clone whose name is taken in its target environment answers, as a create's. */
    nameTaken,

    /**
     * A page of the environment's services, of one kind or all, by name: at most BERTH_LIST_LIMIT
     * of them and BERTH_LIST_MAX_BYTES of their configurations (at least one service); `startId`
     * (a service of the list) continues after it. 400 when it is not one. The same credential's
     * next list waits until the promise `heldUntil` returns (called once the page is read) settles.
     */
    async list(
      principal: Principal,
      environmentId: string,
      options: { type?: ServiceType; startId?: string; heldUntil?: () => Promise<unknown> } = {},
    ): Promise<CappedList<ServiceRecord>> {
      const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'READ')
      const { type, startId, heldUntil } = options
      const credential = principal.kind === 'api_token' ? `token:${principal.apiTokenId}` : `user:${principal.userId}`
      const page = await pageTurns.run(
        credential,
        () =>
          listTurns.run(environment.organizationId, () =>
            repo.listPage(environment.organizationId, environment.id, { kind: type, limit: listLimit, maxBytes: listMaxBytes, after: startId }),
          ),
        heldUntil,
      )
      if (!page) throw validationFailed([{ path: '/startId', message: 'is not the id of a service of this list', location: 'query' }])
      return page
    },

    async get(principal: Principal, type: ServiceType, serviceId: string): Promise<ServiceRecord> {
      return (await requireService(principal, serviceId, 'READ', type)).service
    },

    /**
     * Creates a service in its kind's default stage of the environment (made when missing): 400
     * when its configuration is over BERTH_SERVICE_CONFIG_MAX_BYTES, 409 when the environment
     * holds BERTH_SERVICES_PER_ENVIRONMENT services already.
     */
    async create(principal: Principal, type: ServiceType, environmentId: string, input: unknown): Promise<ServiceRecord> {
      const kind = kindOf(type)
      const { environment, role } = await deps.environments.requireEnvironment(principal, environmentId, 'WRITE')
      const context = { organizationId: environment.organizationId, lookups: deps.lookups, role, environment }
      kind.authorize?.(context, input)
      const prepared = await prepareWithGroups(kind, context, input, groupIdsOf(input))
      checkConfigurationSize(prepared.configuration, limits.configurationMaxBytes)
      await deps.checkCeilings?.(environment.organizationId, prepared.configuration)
      const id = await withUniqueName(
        'services_name_key',
        () => nameTaken(prepared.name),
        () =>
          repo.insert(
            {
              ...(prepared.id === undefined ? {} : { id: prepared.id }),
              organizationId: environment.organizationId,
              environmentId: environment.id,
              kind: type,
              name: prepared.name,
              configuration: prepared.configuration,
              ...pushTargetOf(kind, prepared.configuration),
            },
            prepared.references,
            (trx) => stages.defaultStageId(trx, environment.organizationId, environment.id, type),
            limits.perEnvironment,
          ),
      ).catch(referenceGone(kind.referencePaths, prepared))
      if (id === undefined) throw environmentFull(limits.perEnvironment)
      return (await repo.findById(id))!
    },

    /**
     * A full replacement (PUT). `ifMatch` (the ETags If-Match accepts) is checked against the
     * service as read; the update then applies only to that version, so that a concurrent edit
     * cannot slip in. Without it the last writer wins, as PUT usually does. 400 when the new
     * configuration is over BERTH_SERVICE_CONFIG_MAX_BYTES.
     */
    async update(principal: Principal, type: ServiceType, serviceId: string, input: unknown, ifMatch?: string[]): Promise<ServiceRecord> {
      const kind = kindOf(type)
      const service = await findService(serviceId, type)
      // One access check, on the environment the kind's rules need anyway.
      const { environment, role } = await deps.environments.requireEnvironment(principal, service.environmentId, 'WRITE').catch(asNotFound(kind.noun))
      const context = { organizationId: service.organizationId, lookups: deps.lookups, role, environment, previous: service }
      kind.authorize?.(context, input)
      if (ifMatch && !ifMatch.includes(serviceEntityTag(service))) throw stale(kind)
      const prepared = await prepareWithGroups(kind, context, input, groupIdsOf(input), service.references)
      checkConfigurationSize(prepared.configuration, limits.configurationMaxBytes)
      await deps.checkCeilings?.(service.organizationId, prepared.configuration, service)
      const updated = await withUniqueName(
        'services_name_key',
        () => nameTaken(prepared.name),
        () =>
          repo.update(
            service.organizationId,
            service.id,
            { ...prepared, ...pushTargetOf(kind, prepared.configuration) },
            ifMatch ? service.version : undefined,
          ),
      ).catch(referenceGone(kind.referencePaths, prepared))
      if (!updated) {
        if (!(await repo.findById(service.id))) throw notFound(kind.noun)
        throw stale(kind)
      }
      return updated
    },

    /** Deletes the row of a service nothing of which is installed (the caller checked WRITE); 404 when it is gone already. */
    async deleteRecord(service: ServiceRecord): Promise<void> {
      if (!(await repo.delete(service.organizationId, service.id))) throw notFound(kindOf(service.kind).noun)
    },
  }
}

export type ServicesService = ReturnType<typeof createServicesService>
