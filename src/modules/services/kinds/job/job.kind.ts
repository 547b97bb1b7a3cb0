import { resolveGitRepository } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { ServiceGroupIds } from '#src/modules/services/service-groups.ts'
import { attachedGroups } from '#src/modules/services/service-groups.ts'
import type { ServiceKind, ServiceLookups, ServiceRecord, ServiceReference } from '#src/modules/services/service-kinds.ts'
import { coreRecordFields, gitTokenNamesOf } from '#src/modules/services/service-records.ts'
import { type FieldError, validationFailed } from '#src/platform/http/errors.ts'
import type { JobConfig, JobServiceInput, JobServiceRecord, JobSource } from './job.types.ts'
import { type JobDeployOverrides, jobOverrideErrors, jobPlan, jobPlanning } from './job-deployments.ts'
import { jobSchedule } from './job-schedule.ts'

/**
 * A write as the route validated it: the job's input plus the field errors of the request's own
 * rules, reported together with the errors only the database can find, after access checks.
 */
export interface JobWrite {
  input: JobServiceInput
  ruleErrors: FieldError[]
  /** The labels and annotations groups the request attaches (service-groups.ts). */
  groups?: ServiceGroupIds
}

/** The request fields that hold each reference. */
const REFERENCE_PATHS = {
  source: '/source/docker/git_repository/git_token_id',
  image: '/source/image/registry_id',
}

/** What a job configuration references, as the core keeps it. */
function jobReferences(configuration: JobConfig): ServiceReference[] {
  const { source } = configuration
  if ('image' in source) return [{ field: 'image', containerRegistryId: source.image.registryId }]
  return source.docker.git.gitTokenId ? [{ field: 'source', gitTokenId: source.docker.git.gitTokenId }] : []
}

/** A job as its wire mapping reads it: the core's record with the configuration spread and the names of what it references. */
export function toJobRecord(service: ServiceRecord<JobConfig>): JobServiceRecord {
  const reference = service.references.find((candidate) => candidate.containerRegistryId)
  const registry = reference ? { id: reference.containerRegistryId!, name: reference.name, url: reference.url } : null
  return {
    ...coreRecordFields(service),
    groups: attachedGroups(service.references),
    version: service.version,
    gitTokenNames: gitTokenNamesOf(service.references),
    registry,
  }
}

/** The request's references, checked; every error of the request is reported at once. */
async function resolveSource(lookups: ServiceLookups, organizationId: string, { input, ruleErrors }: JobWrite): Promise<JobSource> {
  const errors = [...ruleErrors]
  let source: JobSource
  if ('docker' in input.source) {
    const { git, ...rest } = input.source.docker
    source = { docker: { ...rest, git: await resolveGitRepository(lookups, organizationId, git, '/source/docker/git_repository', errors) } }
  } else {
    const registry = await lookups.findContainerRegistry(organizationId, input.source.image.registryId)
    if (!registry)
      errors.push({ path: '/source/image/registry_id', message: 'no container registry with this id in the organization', location: 'body' })
    source = { image: { ...input.source.image, ...(registry ? { registryKind: registry.kind } : {}) } }
  }
  if (errors.length > 0) throw validationFailed(errors)
  return source
}

/** The job kind of service (reference tags Jobs, Job Main Calls, Job Actions, Job Deployment History). */
export const jobKind: ServiceKind<JobWrite, JobConfig, JobDeployOverrides> = {
  ...jobPlanning,
  noun: 'job',
  referencePaths: REFERENCE_PATHS,

  // A job needs no right beyond the WRITE role every service write needs.
  async prepare({ organizationId, lookups, environment }, write) {
    const { name, autoPreview, ...rest } = write.input
    const configuration: JobConfig = {
      ...rest,
      source: await resolveSource(lookups, organizationId, write),
      autoPreview: autoPreview ?? environment.autoPreview,
    }
    return { name, configuration, references: jobReferences(configuration) }
  },

  cloneInput({ configuration }, name) {
    return { input: { ...configuration, name }, ruleErrors: [] }
  },

  overrideErrors: jobOverrideErrors,
  plan: jobPlan,
  schedule: jobSchedule,

  onBranch(configuration, branch) {
    const { source } = configuration
    if (!('docker' in source)) return configuration
    return { ...configuration, source: { ...source, docker: { ...source.docker, git: { ...source.docker.git, branch } } } }
  },

  followedBranch(configuration) {
    const { source } = configuration
    if (!('docker' in source)) return undefined
    const { git } = source.docker
    if (!git.branch) return undefined
    return { provider: git.provider, owner: git.owner, name: git.name, branch: git.branch, autoDeploy: configuration.autoDeploy }
  },
}
