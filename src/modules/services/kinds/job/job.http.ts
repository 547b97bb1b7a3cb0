import type { KindRoutes } from '#src/modules/services/kind-routes.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { toJobRecord } from './job.kind.ts'
import { type JobDeployRequest as JobDeployBody, JobDeployRequest, type JobForceEvent, JobForceEventQuery, JobResponse } from './job.schemas.ts'
import type { JobConfig } from './job.types.ts'
import { toJobResponse } from './job.wire.ts'
import type { JobDeployOverrides } from './job-deployments.ts'

/** What a job deploy request (alone, or in a bulk deploy's `jobs`) asks for beyond the configuration. */
export const jobDeployOverrides = (body: JobDeployBody | undefined): JobDeployOverrides => ({
  // An empty tag or commit names nothing (the Terraform provider sends an empty image_tag).
  imageTag: body?.image_tag || undefined,
  gitCommitId: body?.git_commit_id || undefined,
})

/** Jobs on the wire, for the routes every kind shares. */
export const jobRoutes: KindRoutes = {
  type: 'JOB',
  segment: 'job',
  param: 'jobId',
  name: 'Job',
  tags: { actions: 'Job Actions', main: 'Job Main Calls', history: 'Job Deployment History' },
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
  uninstall: true,
  response: { schema: JobResponse, of: (service) => toJobResponse(toJobRecord(service as ServiceRecord<JobConfig>)) },
  bulk: { statuses: 'jobs', ids: 'job_ids' },
}
