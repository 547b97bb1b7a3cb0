import type { CronSchedulesRepository } from '#src/modules/deployments/queue/cron-schedules.repository.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { ServicesService } from '#src/modules/services/services.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { CappedList } from '#src/platform/http/lists.ts'
import { type JobWrite, toJobRecord } from './job.kind.ts'
import type { JobConfig, JobServiceRecord } from './job.types.ts'

/** The service core's operations on jobs, answering job records for the job routes' wire mapping. */
export function createJobServices(core: ServicesService, schedules: Pick<CronSchedulesRepository, 'reschedule'>) {
  const job = (service: ServiceRecord) => toJobRecord(service as ServiceRecord<JobConfig>)
  return {
    /** A page of the environment's jobs; `startId` continues after that one; `heldUntil` as the core's. */
    list: async (
      principal: Principal,
      environmentId: string,
      options: { startId?: string; heldUntil?: () => Promise<unknown> },
    ): Promise<CappedList<JobServiceRecord>> => {
      const page = await core.list(principal, environmentId, { type: 'JOB', ...options })
      return { rows: page.rows.map(job), hasMore: page.hasMore }
    },
    get: async (principal: Principal, jobId: string): Promise<JobServiceRecord> => job(await core.get(principal, 'JOB', jobId)),
    create: async (principal: Principal, environmentId: string, write: JobWrite): Promise<JobServiceRecord> =>
      job(await core.create(principal, 'JOB', environmentId, write)),
    /** A full replacement; `ifMatch`: the ETags If-Match accepts. A scheduled cron job fires by its new schedule at once. */
    update: async (principal: Principal, jobId: string, write: JobWrite, ifMatch?: string[]): Promise<JobServiceRecord> => {
      const updated = job(await core.update(principal, 'JOB', jobId, write, ifMatch))
      await schedules.reschedule(updated.id, updated)
      return updated
    },
    delete: (principal: Principal, jobId: string): Promise<void> => core.delete(principal, 'JOB', jobId),
  }
}

export type JobServices = ReturnType<typeof createJobServices>
