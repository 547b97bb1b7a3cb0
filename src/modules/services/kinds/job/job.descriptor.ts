import { SETTING_GROUPS as g } from '#src/modules/services/advanced-settings/advanced-settings.schemas.ts'
import { defineKind } from '#src/modules/services/kind-descriptor.ts'
import { BOTH_LIMITS, CONFIG_SIZE_LIMIT, capitalized, ifMatchEdit } from '#src/modules/services/kind-docs.ts'
import { groupIdsOfBody } from '#src/modules/services/service-groups.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { validationFailed } from '#src/platform/http/errors.ts'
import { type JobWrite, jobKind, toJobRecord } from './job.kind.ts'
import {
  type JobDeployRequest as JobDeployBody,
  JobDeployRequest,
  type JobForceEvent,
  JobForceEventQuery,
  JobRequest,
  JobResponse,
} from './job.schemas.ts'
import type { JobConfig, JobServiceRecord } from './job.types.ts'
import { jobInput, toJobResponse } from './job.wire.ts'
import { jobWorkload } from './job.workload.ts'
import type { JobDeployOverrides } from './job-deployments.ts'
import { jobRequestErrors } from './job-request-rules.ts'

/** What a job deploy request (alone, or in a bulk deploy's `jobs`) asks for beyond the configuration. */
export const jobDeployOverrides = (body: JobDeployBody | undefined): JobDeployOverrides => ({
  // An empty tag or commit names nothing (the Terraform provider sends an empty image_tag).
  imageTag: body?.image_tag || undefined,
  gitCommitId: body?.git_commit_id || undefined,
})

/**
 * The validated body as the service's input, with what it breaks of the rules the schema cannot
 * say. A source or a schedule that names nothing to run leaves no input to build: a 400 at once.
 */
function jobWrite(body: JobRequest): JobWrite {
  const ruleErrors = jobRequestErrors(body)
  const { source, schedule } = body
  const hasSource = source.image != null || source.docker != null
  const hasSchedule = schedule.cronjob != null || schedule.on_start != null || schedule.on_stop != null || schedule.on_delete != null
  if (!hasSource || !hasSchedule) throw validationFailed(ruleErrors)
  return { input: jobInput(body), ruleErrors, groups: groupIdsOfBody(body) }
}

/** Jobs: a command of an image or of a build, run on a cron schedule or on the environment's start, stop and delete. */
export const jobDescriptor = defineKind<JobServiceRecord, JobWrite>({
  kind: jobKind,
  names: { name: 'Job', plural: 'Jobs', aNoun: 'a job', etagNoun: 'the job service', list: 'listJobs' },
  deploy: {
    body: JobDeployRequest,
    description:
      '`image_tag` applies to a job from an image, `git_commit_id` to one built from git. With `forceEvent`, runs that event of the job now ' +
      '(force-run): START, STOP or DELETE for a lifecycle job that has it, CRON for a cron job (once, besides its schedule).',
    overrides: (body) => jobDeployOverrides(body as JobDeployBody | undefined),
  },
  actionQuery: JobForceEventQuery,
  queryOverrides: (query) => {
    const forceEvent = (query as { forceEvent?: JobForceEvent } | undefined)?.forceEvent
    return forceEvent ? { forceEvent } : {}
  },
  statusList: true,
  bulk: { deploy: { rank: 4, fields: ['image_tag', 'git_commit_id'] }, idsRank: 4, idsDescription: 'jobs' },
  schemas: { request: JobRequest, response: JobResponse },
  descriptions: {
    create: `Needs the WRITE role. A cron job is scheduled once deployed (README, "Jobs"). Berth limits: ${BOTH_LIMITS}`,
    edit:
      'A full replacement. Needs the WRITE role. A deployed cron job whose schedule changes fires by the new one at once. ' +
      `${ifMatchEdit('the service')} ${capitalized(CONFIG_SIZE_LIMIT)}.`,
  },
  createWrite: (body) => jobWrite(body as JobRequest),
  toRecord: (service) => toJobRecord(service as ServiceRecord<JobConfig>),
  toResponse: toJobResponse,
  // A scheduled cron job fires by its new schedule at once.
  afterEdit: (job, hooks) => hooks.reschedule(job.id, job),
  features: {
    documentOrder: 3,
    variables: true,
    advancedSettings: {
      get: 'getJobAdvancedSettings',
      edit: 'editJobAdvancedSettings',
      title: 'JobAdvancedSettings',
      settings: { ...g.build, ...g.placement, ...g.job, ...g.security },
    },
    restrictions: true,
    scopedVariables: { importOperation: 'importJobEnvironmentVariable' },
  },
  executors: { workload: jobWorkload },
})
