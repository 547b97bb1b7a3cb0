import type { Transaction } from 'kysely'
import { nextFireAfter } from '#src/modules/services/kinds/job/cron-expressions.ts'
import type { CronSchedule, JobConfig } from '#src/modules/services/kinds/job/job.types.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'
import type { DeploymentRun } from './deployment-progress.ts'
import { databaseNow } from './deployment-rows.ts'

// Which cron jobs are scheduled, and when each fires next (migration 0015; docs/architecture.md,
// "Cron jobs"). A schedule is written when a deployment of the job succeeds and removed when a
// stop or an uninstall of it does; the scheduler (cron-firing.ts) fires and advances it.

type Queries = Db | Transaction<Database>

/** The job a finished run scheduled or unscheduled, read from what the run deployed. */
interface JobOutcome {
  serviceId: string
  schedule: CronSchedule | null
  forced: boolean
}

/** Writes a cron job's schedule: a new one, or a changed expression or timezone, fires next from now; an unchanged one keeps its next fire time. */
async function upsertSchedule(trx: Queries, serviceId: string, environmentId: string, schedule: CronSchedule, now: Date): Promise<void> {
  const existing = await trx.selectFrom('cronJobSchedules').selectAll().where('serviceId', '=', serviceId).forUpdate().executeTakeFirst()
  if (existing && existing.scheduledAt === schedule.scheduledAt && existing.timezone === schedule.timezone) return
  const next = nextFireAfter(schedule.scheduledAt, schedule.timezone, now)
  if (!next) {
    await trx.deleteFrom('cronJobSchedules').where('serviceId', '=', serviceId).execute()
    return
  }
  await trx
    .insertInto('cronJobSchedules')
    .values({ serviceId, environmentId, scheduledAt: schedule.scheduledAt, timezone: schedule.timezone, nextFireAt: next })
    .onConflict((conflict) =>
      conflict
        .column('serviceId')
        .doUpdateSet({ scheduledAt: schedule.scheduledAt, timezone: schedule.timezone, nextFireAt: next, updatedAt: new Date() }),
    )
    .execute()
}

/**
 * What a finished run changes in the schedules, in the transaction that writes its end: a cron
 * job it deployed (or redeployed) is scheduled; one it stopped, uninstalled or deleted is not any
 * more; a lifecycle job has no schedule. Runs the scheduler queued and force-runs change nothing.
 */
export async function recordFinishedRun(trx: Transaction<Database>, run: DeploymentRun): Promise<void> {
  if (run.origin === 'PLATFORM_INTERNAL') return
  const succeeded = run.progress.stages.flatMap((stage) => stage.services).filter((service) => service.type === 'JOB' && service.phase === 'SUCCESS')
  if (succeeded.length === 0) return
  const snapshots = await trx
    .selectFrom('deploymentSnapshots')
    .select(['serviceId', 'configuration', 'overrides'])
    .where('executionId', '=', run.id)
    .where(
      'serviceId',
      'in',
      succeeded.map((service) => service.id),
    )
    .execute()
  const outcomes: JobOutcome[] = snapshots.map((row) => {
    const { schedule } = row.configuration as JobConfig
    return {
      serviceId: row.serviceId,
      schedule: 'cronjob' in schedule ? schedule.cronjob : null,
      forced: (row.overrides as { forceEvent?: string }).forceEvent !== undefined,
    }
  })
  const delivers = run.triggerAction === 'DEPLOY' || run.triggerAction === 'RESTART'
  const now = new Date(await databaseNow(trx))
  for (const outcome of outcomes) {
    if (outcome.forced) continue
    if (delivers && outcome.schedule) await upsertSchedule(trx, outcome.serviceId, run.environmentId, outcome.schedule, now)
    else await trx.deleteFrom('cronJobSchedules').where('serviceId', '=', outcome.serviceId).execute()
  }
}

export function createCronSchedulesRepository(db: Db) {
  return {
    /**
     * An edit of a job takes effect on its schedule at once: a scheduled cron job whose expression
     * or timezone changed fires next by the new one; a job that is no longer a cron job is
     * unscheduled. A job that is not scheduled (never deployed, stopped) stays so.
     */
    async reschedule(serviceId: string, configuration: JobConfig): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const existing = await trx
          .selectFrom('cronJobSchedules')
          .select('environmentId')
          .where('serviceId', '=', serviceId)
          .forUpdate()
          .executeTakeFirst()
        if (!existing) return
        const { schedule } = configuration
        if (!('cronjob' in schedule)) {
          await trx.deleteFrom('cronJobSchedules').where('serviceId', '=', serviceId).execute()
          return
        }
        await upsertSchedule(trx, serviceId, existing.environmentId, schedule.cronjob, new Date(await databaseNow(trx)))
      })
    },

    /** The job's schedule row; undefined when it is not scheduled. */
    find(serviceId: string) {
      return db.selectFrom('cronJobSchedules').selectAll().where('serviceId', '=', serviceId).executeTakeFirst()
    },
  }
}

export type CronSchedulesRepository = ReturnType<typeof createCronSchedulesRepository>
