import type { KindSchedule } from '#src/modules/services/service-kinds.ts'
import { nextFireAfter } from './cron-expressions.ts'
import type { JobConfig } from './job.types.ts'
import type { JobDeployOverrides } from './job-deployments.ts'

/** What cron needs of a job (docs/jobs.md, "Jobs"): a cron job's schedule, its ticks' overrides (forceEvent CRON). */
export const jobSchedule: KindSchedule<JobConfig, JobDeployOverrides> = {
  timingOf: ({ schedule }) =>
    'cronjob' in schedule ? { scheduledAt: schedule.cronjob.scheduledAt, timezone: schedule.cronjob.timezone } : undefined,
  nextFireAfter: (timing, after) => nextFireAfter(timing.scheduledAt, timing.timezone, after),
  tickOverrides: (scheduledFor, catchUp) => ({ forceEvent: 'CRON', scheduledFor, ...(catchUp ? { catchUp } : {}) }),
  forced: (overrides) => overrides.forceEvent !== undefined,
}
