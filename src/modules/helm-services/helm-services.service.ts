import type { GitProvider } from '#src/modules/git-tokens/git-tokens.schemas.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { hasRole, type Role } from '#src/platform/auth/roles.ts'
import { violatedForeignKey, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, type FieldError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import { parseGitUrl } from './git-repository-url.ts'
import { type HelmServicesRepository, helmServiceColumns } from './helm-services.repository.ts'
import type {
  GitRepositoryInput,
  GitRepositoryRef,
  HelmPort,
  HelmServiceInput,
  HelmServiceRecord,
  HelmSource,
  ValuesOverride,
} from './helm-services.types.ts'

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

/**
 * A write as the route validated it: the service's input plus the field errors of the request's
 * own rules, reported together with the errors only the database can find, after access checks.
 */
export interface HelmWrite {
  input: HelmServiceInput
  ruleErrors: FieldError[]
}

const nameTaken = (name: string) => new AppError('conflict', `a service named "${name}" already exists in this environment`)

const stale = () => new AppError('precondition_failed', 'the helm service changed since you read it (If-Match); read it again and retry')

/** The request field a reference column holds, for a reference deleted while the write ran. */
const REFERENCE_FIELDS: Record<string, string> = {
  helm_services_source_git_token_id_fkey: '/source/git_repository/git_token_id',
  helm_services_values_git_token_id_fkey: '/values_override/file/git/git_repository/git_token_id',
  helm_services_helm_repository_id_fkey: '/source/helm_repository/repository',
}

/** A write that lost a race with a delete: the reference it checked is gone. */
function referenceGone(error: unknown): never {
  const constraint = violatedForeignKey(error)
  if (constraint === 'helm_services_environment_id_fkey') throw notFound('environment')
  const path = constraint === undefined ? undefined : REFERENCE_FIELDS[constraint]
  if (path) throw validationFailed([{ path, message: 'was deleted while this request ran', location: 'body' }])
  throw error
}

export function createHelmServicesService(deps: HelmServicesDeps) {
  const { repo } = deps

  /** The helm service if the principal holds `needed` in its organization; 404 for no access at all. */
  async function requireHelm(principal: Principal, helmId: string, needed: Role) {
    const helm = await repo.findById(helmId)
    if (!helm) throw notFound('helm')
    const { role } = await deps.requireOrganizationRole(principal, helm.organizationId, needed).catch(asNotFound('helm'))
    return { helm, role }
  }

  function requireClusterWideRight(input: HelmServiceInput, role: Role): void {
    if (input.allowClusterWideResources && !hasRole(role, 'ADMIN')) {
      throw new AppError('forbidden', `allow_cluster_wide_resources: true needs the ADMIN role; you have ${role}`)
    }
  }

  /** Checks a repository's git token and derives its provider; owner and name come from the URL. */
  async function resolveRepository(
    organizationId: string,
    repository: GitRepositoryInput,
    path: string,
    errors: FieldError[],
  ): Promise<GitRepositoryRef> {
    const parsed = parseGitUrl(repository.url)
    const token = repository.gitTokenId === null ? undefined : await deps.findGitToken(organizationId, repository.gitTokenId)
    if (repository.gitTokenId !== null && !token) {
      errors.push({ path: `${path}/git_token_id`, message: 'no git token with this id in the organization', location: 'body' })
    }
    const tokenProvider = token?.type as GitProvider | undefined
    const provider = repository.provider ?? tokenProvider ?? parsed?.hostProvider
    // An unreadable URL is already reported by the request's rules.
    if (parsed && !provider) {
      errors.push({ path: `${path}/url`, message: 'cannot tell the git provider of this host: give provider or a git_token_id', location: 'body' })
    } else if (parsed?.hostProvider && provider !== parsed.hostProvider) {
      const field = repository.provider ? 'provider' : 'git_token_id'
      errors.push({ path: `${path}/${field}`, message: `is ${provider}, but the repository is on ${parsed.hostProvider}`, location: 'body' })
    } else if (tokenProvider && tokenProvider !== provider) {
      errors.push({ path: `${path}/git_token_id`, message: `is a ${tokenProvider} token; the repository is on ${provider}`, location: 'body' })
    }
    return { ...repository, provider: provider ?? 'GITHUB', owner: parsed?.owner ?? '', name: parsed?.name ?? '' }
  }

  /** The request's references, checked; every error of the request is reported at once. */
  async function resolveReferences(organizationId: string, { input, ruleErrors }: HelmWrite) {
    const errors = [...ruleErrors]
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
    const valuesOverride: ValuesOverride =
      file && 'git' in file
        ? {
            ...input.valuesOverride,
            file: {
              git: {
                repository: await resolveRepository(organizationId, file.git.repository, '/values_override/file/git/git_repository', errors),
                paths: file.git.paths,
              },
            },
          }
        : { ...input.valuesOverride, file }
    if (errors.length > 0) throw validationFailed(errors)
    return { source, valuesOverride }
  }

  /** Ports keep their id across edits when a port of the same name existed. */
  function withPortIds(input: HelmServiceInput, previous: HelmPort[] = []): HelmPort[] {
    const idByName = new Map(previous.map((port) => [port.name, port.id]))
    return input.ports.map((port) => ({ id: idByName.get(port.name) ?? crypto.randomUUID(), ...port }))
  }

  return {
    requireHelm,

    async list(principal: Principal, environmentId: string): Promise<HelmServiceRecord[]> {
      const { environment } = await deps.requireEnvironment(principal, environmentId, 'READ')
      return repo.listByEnvironment(environment.organizationId, environment.id)
    },

    async get(principal: Principal, helmId: string): Promise<HelmServiceRecord> {
      return (await requireHelm(principal, helmId, 'READ')).helm
    },

    async create(principal: Principal, environmentId: string, write: HelmWrite): Promise<HelmServiceRecord> {
      const { input } = write
      const { environment, role } = await deps.requireEnvironment(principal, environmentId, 'WRITE')
      requireClusterWideRight(input, role)
      const resolved = await resolveReferences(environment.organizationId, write)
      const autoPreview = input.autoPreview ?? environment.autoPreview
      const columns = helmServiceColumns({ ...input, ...resolved, autoPreview, ports: withPortIds(input) })
      const id = await withUniqueName(
        'helm_services_name_key',
        () => nameTaken(input.name),
        () => repo.insert({ organizationId: environment.organizationId, environmentId: environment.id, ...columns }),
      ).catch(referenceGone)
      return (await repo.findById(id))!
    },

    /**
     * A full replacement (PUT). `precondition` (If-Match) is checked against the service as read;
     * the update then applies only to that version, so that a concurrent edit cannot slip in.
     */
    async update(
      principal: Principal,
      helmId: string,
      write: HelmWrite,
      precondition?: (current: HelmServiceRecord) => boolean,
    ): Promise<HelmServiceRecord> {
      const { input } = write
      const { helm, role } = await requireHelm(principal, helmId, 'WRITE')
      // The special right is needed to grant it; an edit that keeps it as an ADMIN set it does not.
      if (!helm.allowClusterWideResources) requireClusterWideRight(input, role)
      if (precondition && !precondition(helm)) throw stale()
      const resolved = await resolveReferences(helm.organizationId, write)
      const autoPreview = input.autoPreview ?? (await deps.requireEnvironment(principal, helm.environmentId, 'READ')).environment.autoPreview
      const columns = helmServiceColumns({ ...input, ...resolved, autoPreview, ports: withPortIds(input, helm.ports) })
      // Without If-Match the last writer wins, as PUT usually does.
      const expectedVersion = precondition ? helm.version : undefined
      const updated = await withUniqueName(
        'helm_services_name_key',
        () => nameTaken(input.name),
        () => repo.update(helm.organizationId, helm.id, columns, expectedVersion),
      ).catch(referenceGone)
      if (!updated) {
        if (!(await repo.findById(helm.id))) throw notFound('helm')
        throw stale()
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
