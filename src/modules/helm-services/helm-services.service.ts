import type { Principal } from '#src/platform/auth/principal.ts'
import { hasRole, type Role } from '#src/platform/auth/roles.ts'
import { isUniqueViolation } from '#src/platform/db/errors.ts'
import { AppError, type FieldError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { parseGitUrl } from './git-repository-url.ts'
import type {
  GitRepositoryInput,
  GitRepositoryRef,
  HelmPort,
  HelmServiceInput,
  HelmServiceRecord,
  HelmSource,
  ValuesOverride,
} from './helm-service.ts'
import { type HelmServicesRepository, helmServiceColumns } from './helm-services.repository.ts'
import type { GitProvider } from './helm-services.schemas.ts'

/** What the helm services need from the modules they build on. */
export interface HelmServicesDeps {
  repo: HelmServicesRepository
  requireOrganizationRole(principal: Principal, organizationId: string, needed: Role): Promise<{ role: Role }>
  requireEnvironment(
    principal: Principal,
    environmentId: string,
    needed: Role,
  ): Promise<{ environment: { id: string; organizationId: string; autoPreview: boolean }; role: Role }>
  findGitToken(organizationId: string, gitTokenId: string): Promise<{ type: string } | undefined>
  findHelmRepository(organizationId: string, helmRepositoryId: string): Promise<object | undefined>
}

const nameTaken = (name: string) => new AppError('conflict', `a service named "${name}" already exists in this environment`)

const stale = (current: number) =>
  new AppError('precondition_failed', `the helm service changed since you read it (its ETag is now "${current}"); read it again and retry`)

export function createHelmServicesService(deps: HelmServicesDeps) {
  const { repo } = deps

  /** The helm service if the principal holds `needed` in its organization; 404 for no access at all. */
  async function requireHelm(principal: Principal, helmId: string, needed: Role) {
    const helm = await repo.findById(helmId)
    if (!helm) throw notFound('helm')
    try {
      const { role } = await deps.requireOrganizationRole(principal, helm.organizationId, needed)
      return { helm, role }
    } catch (error) {
      throw error instanceof AppError && error.code === 'not_found' ? notFound('helm') : error
    }
  }

  function requireClusterWideRight(input: HelmServiceInput, role: Role): void {
    if (input.allowClusterWideResources && !hasRole(role, 'ADMIN')) {
      throw new AppError('forbidden', `allow_cluster_wide_resources: true needs the ADMIN role; you have ${role}`)
    }
  }

  /** Checks what the request references in the organization and derives each repository's provider. */
  async function resolveRepository(
    organizationId: string,
    repository: GitRepositoryInput,
    path: string,
    errors: FieldError[],
  ): Promise<GitRepositoryRef> {
    const parsed = parseGitUrl(repository.url)!
    const token = repository.gitTokenId === null ? undefined : await deps.findGitToken(organizationId, repository.gitTokenId)
    if (repository.gitTokenId !== null && !token) {
      errors.push({ path: `${path}/git_token_id`, message: 'no git token with this id in the organization', location: 'body' })
    }
    const tokenProvider = token?.type as GitProvider | undefined
    const provider = repository.provider ?? tokenProvider ?? parsed.hostProvider
    if (!provider) {
      errors.push({
        path: `${path}/url`,
        message: 'cannot tell the git provider of this host: give provider or a git_token_id',
        location: 'body',
      })
    } else if (parsed.hostProvider && parsed.hostProvider !== provider) {
      const field = repository.provider ? 'provider' : 'git_token_id'
      errors.push({ path: `${path}/${field}`, message: `is ${provider}, but the repository is on ${parsed.hostProvider}`, location: 'body' })
    } else if (tokenProvider && tokenProvider !== provider) {
      errors.push({ path: `${path}/git_token_id`, message: `is a ${tokenProvider} token; the repository is on ${provider}`, location: 'body' })
    }
    return { ...repository, provider: provider ?? 'GITHUB', owner: parsed.owner, name: parsed.name }
  }

  /** The request's references, checked; every broken one is reported at once. */
  async function resolveReferences(organizationId: string, input: HelmServiceInput): Promise<{ source: HelmSource; valuesOverride: ValuesOverride }> {
    const errors: FieldError[] = []
    let source: HelmSource
    if ('git' in input.source) {
      source = { git: await resolveRepository(organizationId, input.source.git, '/source/git_repository', errors) }
    } else {
      source = input.source
      if (!(await deps.findHelmRepository(organizationId, input.source.helmRepository.repositoryId))) {
        errors.push({ path: '/source/helm_repository/repository', message: 'no helm repository with this id in the organization', location: 'body' })
      }
    }
    const file = input.valuesOverride.file
    const valuesOverride: ValuesOverride = {
      ...input.valuesOverride,
      file:
        file && 'git' in file
          ? {
              git: {
                repository: await resolveRepository(organizationId, file.git.repository, '/values_override/file/git/git_repository', errors),
                paths: file.git.paths,
              },
            }
          : file,
    }
    if (errors.length > 0) throw validationFailed(errors)
    return { source, valuesOverride }
  }

  /** Ports keep their id across edits when a port of the same name existed. */
  function withPortIds(input: HelmServiceInput, previous: HelmPort[] = []): HelmPort[] {
    const idByName = new Map(previous.map((port) => [port.name, port.id]))
    return input.ports.map((port) => ({ id: idByName.get(port.name) ?? crypto.randomUUID(), ...port }))
  }

  return {
    async list(principal: Principal, environmentId: string): Promise<HelmServiceRecord[]> {
      const { environment } = await deps.requireEnvironment(principal, environmentId, 'READ')
      return repo.listByEnvironment(environment.organizationId, environment.id)
    },

    async get(principal: Principal, helmId: string): Promise<HelmServiceRecord> {
      return (await requireHelm(principal, helmId, 'READ')).helm
    },

    async create(principal: Principal, environmentId: string, input: HelmServiceInput): Promise<HelmServiceRecord> {
      const { environment, role } = await deps.requireEnvironment(principal, environmentId, 'WRITE')
      requireClusterWideRight(input, role)
      const resolved = await resolveReferences(environment.organizationId, input)
      try {
        const id = await repo.insert({
          organizationId: environment.organizationId,
          environmentId: environment.id,
          ...helmServiceColumns({
            ...input,
            ...resolved,
            autoPreview: input.autoPreview ?? environment.autoPreview,
            ports: withPortIds(input),
          }),
        })
        return (await repo.findById(id))!
      } catch (error) {
        if (isUniqueViolation(error, 'helm_services_name_key')) throw nameTaken(input.name)
        throw error
      }
    },

    /**
     * A full replacement (PUT). With `versions` (If-Match), it applies only to one of those versions of
     * the service, checked again in the update itself so that a concurrent edit cannot slip in.
     */
    async update(principal: Principal, helmId: string, input: HelmServiceInput, versions?: number[]): Promise<HelmServiceRecord> {
      const { helm, role } = await requireHelm(principal, helmId, 'WRITE')
      requireClusterWideRight(input, role)
      if (versions && !versions.includes(helm.version)) throw stale(helm.version)
      const resolved = await resolveReferences(helm.organizationId, input)
      const autoPreview = input.autoPreview ?? (await deps.requireEnvironment(principal, helm.environmentId, 'READ')).environment.autoPreview
      try {
        const columns = helmServiceColumns({ ...input, ...resolved, autoPreview, ports: withPortIds(input, helm.ports) })
        // Without If-Match the last writer wins, as PUT usually does.
        if (!(await repo.update(helm.organizationId, helm.id, columns, versions))) {
          const current = await repo.findById(helm.id)
          if (!current) throw notFound('helm')
          throw stale(current.version)
        }
      } catch (error) {
        if (isUniqueViolation(error, 'helm_services_name_key')) throw nameTaken(input.name)
        throw error
      }
      return (await repo.findById(helm.id))!
    },

    async delete(principal: Principal, helmId: string): Promise<void> {
      const { helm } = await requireHelm(principal, helmId, 'WRITE')
      if (!(await repo.delete(helm.organizationId, helm.id))) throw notFound('helm')
    },
  }
}

export type HelmServicesService = ReturnType<typeof createHelmServicesService>
