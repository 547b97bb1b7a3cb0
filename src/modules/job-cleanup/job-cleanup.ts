import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { RequireService } from '#src/modules/services/require-service.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { validationFailed } from '#src/platform/http/errors.ts'

// cleanFailedJob and cleanFailedJobs (docs/jobs.md, "Failed runs"): a job's failed runs are left
// stopped by the executor for inspection (on Docker: the run's container, exited, with its logs);
// cleaning removes them. The job's status and history stay what its last deployment says.

export interface JobCleanupDeps {
  /** The services core's check of one service: the module asks it for a JOB. */
  requireService: RequireService
  environments: Pick<EnvironmentsService, 'requireEnvironment'>
  /** The environment's services, every kind: the module keeps its jobs. */
  listServices(organizationId: string, environmentId: string): Promise<ServiceRecord[]>
  /** The executor's removal of a job's failed runs: the names of what went; undefined when nothing runs it for real. */
  cleanFailedRuns?(service: { id: string; environmentId: string }): Promise<string[] | undefined>
}

export function createJobCleanupService(deps: JobCleanupDeps) {
  const clean = async (job: ServiceRecord) => (await deps.cleanFailedRuns?.({ id: job.id, environmentId: job.environmentId })) ?? []
  return {
    /** What the job's failed runs left, removed. DEPLOY: it changes what runs, not the configuration. */
    async cleanJob(principal: Principal, jobId: string): Promise<string[]> {
      return clean((await deps.requireService(principal, jobId, 'DEPLOY', 'JOB')).service)
    },

    /** The same for the environment's jobs (those of `jobIds` when given): the jobs something was removed for, and what. */
    async cleanEnvironment(principal: Principal, environmentId: string, jobIds: string[] | undefined) {
      const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'DEPLOY')
      const jobs = (await deps.listServices(environment.organizationId, environment.id)).filter((service) => service.kind === 'JOB')
      const unknown = (jobIds ?? []).flatMap((id, index) => (jobs.some((job) => job.id === id) ? [] : [index]))
      if (unknown.length > 0) {
        throw validationFailed(unknown.map((index) => ({ path: `/job_ids/${index}`, message: 'is not a job of this environment', location: 'body' })))
      }
      const cleanedJobs: string[] = []
      const removed: string[] = []
      for (const job of jobs.filter((candidate) => !jobIds || jobIds.includes(candidate.id))) {
        const names = await clean(job)
        if (names.length > 0) cleanedJobs.push(job.id)
        removed.push(...names)
      }
      return { cleanedJobs, removed }
    },
  }
}

const WHAT =
  'A failed run of a job (another exit code than 0, or killed at `max_duration_seconds`) is left stopped for inspection: on Docker, its run container, exited, ' +
  "until the job's next run or this clean. `clean_kubernetes_jobs` names what was removed (on Docker, the run containers). " +
  'Status and history stay what the last deployment says. Needs the DEPLOY role. Environments of the simulator have nothing to clean.'

/** cleanFailedJob and cleanFailedJobs. */
export function jobCleanupRoutes(service: ReturnType<typeof createJobCleanupService>): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/job/:jobId/cleanFailedJob',
      {
        schema: {
          operationId: 'cleanFailedJob',
          summary: 'Clean a failed job',
          description: WHAT,
          tags: ['Job Actions'],
          params: Type.Object({ jobId: Uuid }),
          response: { 200: Type.Object({ clean_kubernetes_jobs: Type.Array(Type.String()) }) },
        },
      },
      async (req) => ({ clean_kubernetes_jobs: await service.cleanJob(req.principal, req.params.jobId) }),
    )

    app.post(
      '/environment/:environmentId/cleanFailedJobs',
      {
        schema: {
          operationId: 'cleanFailedJobs',
          summary: 'Clean failed jobs within an environment',
          description: `${WHAT} Every job of the environment, or those of \`job_ids\` (each must be one of its jobs); \`clean_job_ids\`: the jobs something was removed for.`,
          tags: ['Environment Actions'],
          params: Type.Object({ environmentId: Uuid }),
          body: Type.Optional(Type.Object({ job_ids: Type.Optional(Type.Array(Uuid, { maxItems: 1000 })) })),
          response: { 200: Type.Object({ clean_job_ids: Type.Array(Uuid), clean_kubernetes_jobs: Type.Array(Type.String()) }) },
        },
      },
      async (req) => {
        const { cleanedJobs, removed } = await service.cleanEnvironment(req.principal, req.params.environmentId, req.body?.job_ids)
        return { clean_job_ids: cleanedJobs, clean_kubernetes_jobs: removed }
      },
    )
  }
}
