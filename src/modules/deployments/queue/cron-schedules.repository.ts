import type { Transaction } from 'kysely'
import type { KindSchedule, ServiceKinds, ServiceTiming } from '#src/modules/services/service-kinds.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { Database } from '#src/platform/db/schema.ts'
import type { DeploymentRun } from './deployment-progress.ts'
import { databaseNow } from './deployment-rows.ts'

// Which cron jobs are scheduled, and when each fires next (migration 0015; docs/architecture.md,
// "Cron jobs"). A schedule is written when a deployment of the job succeeds and removed when a
// stop or an uninstall of it does; the scheduler (cron-firing.ts) fires and advances it.

type Queries = Db | Transaction<Database>

/** The service a finished run scheduled or unscheduled, read from what the run deployed. */
interface ScheduleOutcome {
  serviceId: string
  schedule: KindSchedule
  timing: ServiceTiming | undefined
  forced: boolean
}

/** Writes a service's schedule: a new one, or a changed expression or timezone, fires next from now; an unchanged one keeps its next fire time. */
async function upsertSchedule(
  trx: Queries,
  serviceId: string,
  environmentId: string,
  schedule: KindSchedule,
  timing: ServiceTiming,
  now: Date,
): Promise<void> {
  const existing = await trx.selectFrom('cronJobSchedules').selectAll().where('serviceId', '=', serviceId).forUpdate().executeTakeFirst()
  if (existing && existing.scheduledAt === timing.scheduledAt && existing.timezone === timing.timezone) return
  const next = schedule.nextFireAfter(timing, now)
  if (!next) {
    await trx.deleteFrom('cronJobSchedules').where('serviceId', '=', serviceId).execute()
    return
  }
  await trx
    .insertInto('cronJobSchedules')
    .values({ serviceId, environmentId, scheduledAt: timing.scheduledAt, timezone: timing.timezone, nextFireAt: next })
    .onConflict((conflict) =>
      conflict
        .column('serviceId')
        .doUpdateSet({ scheduledAt: timing.scheduledAt, timezone: timing.timezone, nextFireAt: next, updatedAt: new Date() }),
    )
    .execute()
}

/**
 * What a finished run changes in the schedules, in the transaction that writes its end: a service
 * on a schedule (a cron job) it deployed (or redeployed) is scheduled; one it stopped, uninstalled
 * or deleted is not any more; one of a kind that may be scheduled but is not (a lifecycle job) has
 * no schedule. Runs the scheduler queued and forced events change nothing. `kinds` say which kinds
 * run on a schedule, and how.
 */
export async function recordFinishedRun(trx: Transaction<Database>, run: DeploymentRun, kinds: ServiceKinds): Promise<void> {
  if (run.origin === 'PLATFORM_INTERNAL') return
  const scheduleOf = new Map<string, KindSchedule>()
  for (const service of run.progress.stages.flatMap((stage) => stage.services)) {
    const schedule = kinds.get(service.type)?.schedule
    if (schedule && service.phase === 'SUCCESS') scheduleOf.set(service.id, schedule)
  }
  const succeeded = [...scheduleOf.keys()]
  if (succeeded.length === 0) return
  const snapshots = await trx
    .selectFrom('deploymentSnapshots')
    .select(['serviceId', 'configuration', 'overrides'])
    .where('executionId', '=', run.id)
    .where('serviceId', 'in', succeeded)
    .execute()
  const outcomes: ScheduleOutcome[] = snapshots.map((row) => {
    const schedule = scheduleOf.get(row.serviceId)!
    return {
      serviceId: row.serviceId,
      schedule,
      timing: schedule.timingOf(row.configuration),
      forced: schedule.forced(row.overrides as Record<string, unknown>),
    }
  })
  const delivers = run.triggerAction === 'DEPLOY' || run.triggerAction === 'RESTART'
  const now = new Date(await databaseNow(trx))
  for (const outcome of outcomes) {
    if (outcome.forced) continue
    if (delivers && outcome.timing) await upsertSchedule(trx, outcome.serviceId, run.environmentId, outcome.schedule, outcome.timing, now)
    else await trx.deleteFrom('cronJobSchedules').where('serviceId', '=', outcome.serviceId).execute()
  }
}

export function createCronSchedulesRepository(db: Db) {
  return {
    /**
     * An edit of a service on a schedule takes effect at once: a scheduled cron job whose expression
     * or timezone changed fires next by the new one; one no longer on a schedule (a job made a
     * lifecycle job) is unscheduled. One that is not scheduled (never deployed, stopped) stays so.
     */
    async reschedule(serviceId: string, schedule: KindSchedule, configuration: unknown): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const existing = await trx
          .selectFrom('cronJobSchedules')
          .select('environmentId')
          .where('serviceId', '=', serviceId)
          .forUpdate()
          .executeTakeFirst()
        if (!existing) return
        const timing = schedule.timingOf(configuration)
        if (!timing) {
          await trx.deleteFrom('cronJobSchedules').where('serviceId', '=', serviceId).execute()
          return
        }
        await upsertSchedule(trx, serviceId, existing.environmentId, schedule, timing, new Date(await databaseNow(trx)))
      })
    },

    /** The job's schedule row; undefined when it is not scheduled. */
    find(serviceId: string) {
      return db.selectFrom('cronJobSchedules').selectAll().where('serviceId', '=', serviceId).executeTakeFirst()
    },
  }
}

export type CronSchedulesRepository = ReturnType<typeof createCronSchedulesRepository>
