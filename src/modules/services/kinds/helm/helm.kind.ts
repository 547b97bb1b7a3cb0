import { resolveGitRepository } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { ServiceKind, ServiceLookups, ServiceRecord, ServiceReference } from '#src/modules/services/service-kinds.ts'
import { coreRecordFields, gitTokenNamesOf } from '#src/modules/services/service-records.ts'
import { hasRole, type Role } from '#src/platform/auth/roles.ts'
import { AppError, type FieldError, validationFailed } from '#src/platform/http/errors.ts'
import type { HelmConfig, HelmPort, HelmServiceInput, HelmServiceRecord, HelmSource, ValuesOverride } from './helm.types.ts'
import { type HelmDeployOverrides, helmOverrideErrors, helmPlan, helmPlanning } from './helm-deployments.ts'

/**
 * A write as the route validated it: the service's input plus the field errors of the request's
 * own rules, reported together with the errors only the database can find, after access checks.
 */
export interface HelmWrite {
  input: HelmServiceInput
  ruleErrors: FieldError[]
}

/** The request fields that hold each reference. */
const REFERENCE_PATHS = {
  source: '/source/git_repository/git_token_id',
  values: '/values_override/file/git/git_repository/git_token_id',
  repository: '/source/helm_repository/repository',
}

function requireClusterWideRight(input: HelmServiceInput, role: Role): void {
  if (input.allowClusterWideResources && !hasRole(role, 'ADMIN')) {
    throw new AppError('forbidden', `allow_cluster_wide_resources: true needs the ADMIN role; you have ${role}`)
  }
}

/** What a helm configuration references, as the core keeps it. */
function helmReferences(configuration: HelmConfig): ServiceReference[] {
  const references: ServiceReference[] = []
  const { source } = configuration
  const file = configuration.valuesOverride.file
  if ('git' in source && source.git.gitTokenId) references.push({ field: 'source', gitTokenId: source.git.gitTokenId })
  if ('helmRepository' in source) references.push({ field: 'repository', helmRepositoryId: source.helmRepository.repositoryId })
  if (file && 'git' in file && file.git.repository.gitTokenId) references.push({ field: 'values', gitTokenId: file.git.repository.gitTokenId })
  return references
}

/** Ports keep their id across edits when a port of the same name existed. */
function withPortIds(input: HelmServiceInput, previous: HelmPort[] = []): HelmPort[] {
  const idByName = new Map(previous.map((port) => [port.name, port.id]))
  return input.ports.map((port) => ({ id: idByName.get(port.name) ?? crypto.randomUUID(), ...port }))
}

/** A helm service as its wire mapping reads it: the core's record with the configuration spread and the names of what it references. */
export function toHelmRecord(service: ServiceRecord<HelmConfig>): HelmServiceRecord {
  const repository = service.references.find((reference) => reference.helmRepositoryId)
  const helmRepository = repository ? { id: repository.helmRepositoryId!, name: repository.name, url: repository.url } : null
  return { ...coreRecordFields(service), version: service.version, gitTokenNames: gitTokenNamesOf(service.references), helmRepository }
}

/** The request's references, checked; every error of the request is reported at once. */
async function resolveReferences(deps: ServiceLookups, organizationId: string, { input, ruleErrors }: HelmWrite) {
  const errors = [...ruleErrors]
  let source: HelmSource
  if ('git' in input.source) {
    source = { git: await resolveGitRepository(deps, organizationId, input.source.git, '/source/git_repository', errors) }
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
              repository: await resolveGitRepository(deps, organizationId, file.git.repository, '/values_override/file/git/git_repository', errors),
              paths: file.git.paths,
            },
          },
        }
      : { ...input.valuesOverride, file }
  if (errors.length > 0) throw validationFailed(errors)
  return { source, valuesOverride }
}

/** The helm kind of service (contract 2.10-2.14). */
export const helmKind: ServiceKind<HelmWrite, HelmConfig, HelmDeployOverrides> = {
  ...helmPlanning,
  noun: 'helm',
  referencePaths: REFERENCE_PATHS,

  authorize({ role, previous }, { input }) {
    // The special right is needed to grant it; an edit that keeps it as an ADMIN set it does not.
    if (!previous?.configuration.allowClusterWideResources) requireClusterWideRight(input, role)
  },

  async prepare({ organizationId, lookups, environment, previous }, write) {
    const { input } = write
    const { name, autoPreview, ...rest } = input
    const configuration: HelmConfig = {
      ...rest,
      ...(await resolveReferences(lookups, organizationId, write)),
      autoPreview: autoPreview ?? environment.autoPreview,
      ports: withPortIds(input, previous?.configuration.ports),
    }
    return { name, configuration, references: helmReferences(configuration) }
  },

  cloneInput({ configuration }, name) {
    return { input: { ...configuration, name, ports: configuration.ports.map(({ id: _, ...port }) => port) }, ruleErrors: [] }
  },

  overrideErrors: helmOverrideErrors,
  plan: helmPlan,

  onBranch(configuration, branch) {
    const { source } = configuration
    return 'git' in source ? { ...configuration, source: { ...source, git: { ...source.git, branch } } } : configuration
  },

  /** A chart in git follows its repository's branch (null: the default branch); a chart of a helm repository follows none. */
  followedBranch({ source, autoDeploy }) {
    if (!('git' in source)) return undefined
    const { provider, owner, name, branch } = source.git
    return { provider, owner, name, branch, autoDeploy }
  },
}
