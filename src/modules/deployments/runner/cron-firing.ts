import { randomUUID } from 'node:crypto'
import type { Transaction } from 'kysely'
import { createAdvancedSettingsRepository } from '#src/modules/services/advanced-settings/advanced-settings.repository.ts'
import { settingsForDeployment } from '#src/modules/services/advanced-settings/advanced-settings.service.ts'
import type { KindSchedule, ServiceKinds, ServiceTiming } from '#src/modules/services/service-kinds.ts'
import { createServicesRepository } from '#src/modules/services/services.repository.ts'
import { createDeploymentStagesRepository } from '#src/modules/services/stages/deployment-stages.repository.ts'
import { resolveServiceVariables } from '#src/modules/variables/resolved-variables.ts'
import { createVariablesRepository } from '#src/modules/variables/variables.repository.ts'
import type { Database } from '#src/platform/db/schema.ts'
import { plannedService } from '../queue/deployment-plan.ts'
import { databaseNow, includes } from '../queue/deployment-rows.ts'
import { lockEnvironmentIn } from '../queue/environment-queue.ts'
import { queuedRun, snapshotOf, stageOfService } from '../queue/queued-runs.ts'

// The cron scheduler's tick (docs/architecture.md, "Cron jobs"): in one transaction, claim each due
// schedule (FOR UPDATE SKIP LOCKED, under its environment's lock), queue one run of its job (origin
// PLATFORM_INTERNAL) and advance its next fire time. A tick is queued exactly once however many runners look: a runner
// skips the rows another holds, and the row's next fire time moves in the transaction that queues
// the run, so a crash before the commit leaves both undone, for the next runner to do.

/**
 * How late a tick may still be fired on its own. A tick later than this was missed while no
 * runner ran (every runner down): the run fired for the oldest missed tick stands for all of them
 * (one catch-up run), and the schedule goes on from now (docs/jobs.md, "Jobs").
 */
export const MISSED_TICK_GRACE_MS = 10_000

/** Who a scheduled run is triggered by, as history shows it. */
export const SCHEDULER_ACTOR = 'cron schedule'

export interface FiringLog {
  warn(fields: object, message: string): void
}

/** The runs that take the job down: a tick that would queue behind one of them is not run. */
const TAKES_DOWN = new Set(['STOP', 'UNINSTALL', 'DELETE'])

/** The next fire time after the tick `firedFor`, skipping past ticks missed for longer than the grace. */
export function nextFireTime(schedule: KindSchedule, timing: ServiceTiming, firedFor: Date, now: Date): Date | null {
  const next = schedule.nextFireAfter(timing, firedFor)
  if (next && next.getTime() <= now.getTime() - MISSED_TICK_GRACE_MS) return schedule.nextFireAfter(timing, now)
  return next
}

/**
 * Fires the schedules due now, at most `limit` of them, in `trx`: how many runs it queued.
 * `changes` is told of each environment whose history it writes; `kinds` say which services run on a
 * schedule (`schedule`), what a tick adds to their configuration, and plan each one's part.
 */
export async function fireDueSchedules(
  trx: Transaction<Database>,
  changes: (environmentId: string) => void,
  limit: number,
  kinds: ServiceKinds,
  log?: FiringLog,
): Promise<number> {
  const now = new Date(await databaseNow(trx))
  // Read without locks, then each one claimed under its environment's lock: the one lock order of
  // everything that deletes or queues in an environment (lockEnvironmentIn). Claiming the schedule
  // rows first would hold a row an environment's delete must cascade to while waiting for the
  // environment that delete holds: a deadlock. Environments are taken in one order (their ids), so
  // that two runners' ticks never wait on each other in a circle either.
  const due = (
    await trx
      .selectFrom('cronJobSchedules')
      .select(['serviceId', 'environmentId'])
      .where('nextFireAt', '<=', now)
      .orderBy('nextFireAt')
      .limit(limit)
      .execute()
  ).sort((a, b) => a.environmentId.localeCompare(b.environmentId) || a.serviceId.localeCompare(b.serviceId))
  if (due.length === 0) return 0
  const services = createServicesRepository(trx)
  const stages = createDeploymentStagesRepository(trx)
  const variables = createVariablesRepository(trx)
  const unschedule = (serviceId: string) => trx.deleteFrom('cronJobSchedules').where('serviceId', '=', serviceId).execute()
  let fired = 0
  for (const { serviceId, environmentId } of due) {
    changes(environmentId)
    const outcome = await lockEnvironmentIn(trx, environmentId, async (queue, nextSeq) => {
      // Another runner's tick holds it, or fired it while this one waited for the environment.
      const schedule = await trx
        .selectFrom('cronJobSchedules')
        .selectAll()
        .where('serviceId', '=', serviceId)
        .where('nextFireAt', '<=', now)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst()
      if (!schedule) return 'not due'
      const service = await services.findById(serviceId)
      const kind = service && kinds.get(service.kind)
      // A service gone, or no longer on a schedule (an edit made it a lifecycle job), is unscheduled.
      if (!service || !kind?.schedule?.timingOf(service.configuration)) {
        await unschedule(serviceId)
        return 'unscheduled'
      }
      const firedAt = new Date(await databaseNow(trx))
      const timing: ServiceTiming = { scheduledAt: schedule.scheduledAt, timezone: schedule.timezone }
      const next = nextFireTime(kind.schedule, timing, schedule.nextFireAt, firedAt)
      const catchUp = next !== null && kind.schedule.nextFireAfter(timing, schedule.nextFireAt)!.getTime() < next.getTime()
      const scheduledFor = schedule.nextFireAt.toISOString()
      const overrides = kind.schedule.tickOverrides(scheduledFor, catchUp)
      const id = randomUUID()
      const unfinished = (await queue.unfinished()).map((stored) => stored.run)
      const queued = !unfinished.some((run) => TAKES_DOWN.has(run.triggerAction) && includes(run, service.id))
      if (queued) {
        const stageOf = stageOfService([service], await stages.list(environmentId))
        const planned = [plannedService(kind, service, 'DEPLOY', overrides, id)]
        const resolved = resolveServiceVariables(await variables.resolvableInEnvironment(environmentId), service.id)
        const { seq, createdAt } = await nextSeq()
        const states = await queue.finishedStates([service.id])
        const environment = { id: environmentId, organizationId: service.organizationId }
        const run = queuedRun({
          id,
          environment,
          serviceId: service.id,
          trigger: 'DEPLOY',
          origin: 'PLATFORM_INTERNAL',
          triggeredBy: SCHEDULER_ACTOR,
          planned,
          states,
          createdAt,
          stageOf,
        })
        const settings = await settingsForDeployment(createAdvancedSettingsRepository(trx), kinds, [service])
        await queue.insert(run, seq, [snapshotOf(service, overrides, resolved, settings.get(service.id))])
      } else {
        log?.warn({ serviceId: service.id, tick: scheduledFor }, 'a cron tick was not run: a stop or a deletion of the job is queued')
      }
      if (next === null) await unschedule(serviceId)
      else {
        await trx
          .updateTable('cronJobSchedules')
          .set((eb) => ({ nextFireAt: next, fired: eb('fired', '+', queued ? 1 : 0), lastFiredAt: queued ? firedAt : schedule.lastFiredAt }))
          .where('serviceId', '=', serviceId)
          .execute()
      }
      return queued ? 'queued' : 'not run'
    })
    // The environment is going: its schedules go with it.
    if (outcome === undefined) await unschedule(serviceId)
    if (outcome === 'queued') fired++
  }
  return fired
}
