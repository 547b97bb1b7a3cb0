import type { GitCommit } from '#src/modules/git-providers/git-provider-adapter.ts'
import { resolveGitRepository } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { ServiceGroupIds } from '#src/modules/services/service-groups.ts'
import { attachedGroups } from '#src/modules/services/service-groups.ts'
import type { ServiceKind, ServiceRecord, ServiceReference } from '#src/modules/services/service-kinds.ts'
import { coreRecordFields, gitTokenNamesOf } from '#src/modules/services/service-records.ts'
import { type FieldError, validationFailed } from '#src/platform/http/errors.ts'
import type {
  ApplicationConfig,
  ApplicationDeployOverrides,
  ApplicationInput,
  ApplicationPort,
  ApplicationRecord,
  ApplicationStorage,
} from './application.types.ts'
import { applicationPlanning } from './application-deployments.ts'

/**
 * A write as the route validated it: the application's input plus the field errors of the
 * request's own rules, reported together with the errors only the database can find.
 */
export interface ApplicationWrite {
  input: ApplicationInput
  ruleErrors: FieldError[]
  /** The labels and annotations groups the request attaches (service-groups.ts). */
  groups?: ServiceGroupIds
}

const REFERENCE_PATHS = { source: '/git_repository/git_token_id' }

/** Items keep their id when the request names one they had, else when one had the same key (a port's name, a storage's mount point). */
function keepIds<T extends { id: string }, I extends { requestedId: string | null }>(
  given: I[],
  previous: T[],
  key: (item: T | Omit<I, 'requestedId'>) => string,
): (Omit<I, 'requestedId'> & { id: string })[] {
  const byId = new Set(previous.map((item) => item.id))
  const idByKey = new Map(previous.map((item) => [key(item), item.id]))
  const used = new Set<string>()
  return given.map(({ requestedId, ...item }) => {
    let id = requestedId !== null && byId.has(requestedId) && !used.has(requestedId) ? requestedId : idByKey.get(key(item))
    if (id === undefined || used.has(id)) id = crypto.randomUUID()
    used.add(id)
    return { id, ...item }
  })
}

/** An application as its wire mapping reads it: the core's record with the configuration spread and the names of its git token. */
export function toApplicationRecord(service: ServiceRecord<ApplicationConfig>, deployedCommit: GitCommit | null = null): ApplicationRecord {
  return {
    ...coreRecordFields(service),
    groups: attachedGroups(service.references),
    version: service.version,
    gitTokenNames: gitTokenNamesOf(service.references),
    deployedCommit,
  }
}

/** The application kind of service. */
export const applicationKind: ServiceKind<ApplicationWrite, ApplicationConfig, ApplicationDeployOverrides> = {
  ...applicationPlanning,
  noun: 'application',
  longRunning: true,
  referencePaths: REFERENCE_PATHS,

  async prepare({ organizationId, lookups, environment, previous }, { input, ruleErrors }) {
    const errors = [...ruleErrors]
    const { name, autoPreview, gitRepository, ports, storage, ...rest } = input
    // An edit without a name or repository keeps them; a create always has them (its schema requires them).
    const current = previous?.configuration.gitRepository
    const repository = gitRepository ? await resolveGitRepository(lookups, organizationId, gitRepository, '/git_repository', errors) : current
    if (errors.length > 0 || !repository)
      throw validationFailed(errors.length > 0 ? errors : [{ path: '/git_repository', message: 'is required', location: 'body' }])
    const configuration: ApplicationConfig = {
      ...rest,
      gitRepository: repository,
      autoPreview: autoPreview ?? environment.autoPreview,
      ports: keepIds<ApplicationPort, (typeof ports)[number]>(ports, previous?.configuration.ports ?? [], (port) => port.name),
      storage: keepIds<ApplicationStorage, (typeof storage)[number]>(storage, previous?.configuration.storage ?? [], (item) => item.mountPoint),
    }
    const references: ServiceReference[] = repository.gitTokenId ? [{ field: 'source', gitTokenId: repository.gitTokenId }] : []
    return { name: name ?? previous?.name ?? '', configuration, references }
  },

  cloneInput({ configuration }, name) {
    const ports = configuration.ports.map(({ id: _, ...port }) => ({ ...port, requestedId: null }))
    const storage = configuration.storage.map(({ id: _, ...item }) => ({ ...item, requestedId: null }))
    return { input: { ...configuration, name, ports, storage }, ruleErrors: [] }
  },

  overrideErrors: () => [],

  onBranch: (configuration, branch) => ({ ...configuration, gitRepository: { ...configuration.gitRepository, branch } }),

  followedBranch({ gitRepository, autoDeploy }) {
    // Without a branch the repository's default branch is built, which only the provider knows: such
    // an application follows no branch for pushes (docs/applications.md, "Applications").
    if (gitRepository.branch === null) return undefined
    return { provider: gitRepository.provider, owner: gitRepository.owner, name: gitRepository.name, branch: gitRepository.branch, autoDeploy }
  },
}
