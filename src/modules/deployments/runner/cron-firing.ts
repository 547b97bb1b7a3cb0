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

// The cron scheduler's tick (docs/architecture.md, "Cron jobs"): in one transaction, claim the due
// schedules with FOR UPDATE SKIP LOCKED, queue one run of each job (origin PLATFORM_INTERNAL) and
// advance its next fire time. A tick is queued exactly once however many runners look: a runner
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
  const due = await trx
    .selectFrom('cronJobSchedules')
    .selectAll()
    .where('nextFireAt', '<=', new Date(await databaseNow(trx)))
    .orderBy('nextFireAt')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute()
  if (due.length === 0) return 0
  const services = createServicesRepository(trx)
  const stages = createDeploymentStagesRepository(trx)
  const variables = createVariablesRepository(trx)
  let fired = 0
  for (const schedule of due) {
    const now = new Date(await databaseNow(trx))
    const service = await services.findById(schedule.serviceId)
    const kind = service && kinds.get(service.kind)
    // A service gone, or no longer on a schedule (an edit made it a lifecycle job), is unscheduled.
    if (!service || !kind?.schedule?.timingOf(service.configuration)) {
      await trx.deleteFrom('cronJobSchedules').where('serviceId', '=', schedule.serviceId).execute()
      continue
    }
    const timing: ServiceTiming = { scheduledAt: schedule.scheduledAt, timezone: schedule.timezone }
    const next = nextFireTime(kind.schedule, timing, schedule.nextFireAt, now)
    const catchUp = next !== null && kind.schedule.nextFireAfter(timing, schedule.nextFireAt)!.getTime() < next.getTime()
    const scheduledFor = schedule.nextFireAt.toISOString()
    const overrides = kind.schedule.tickOverrides(scheduledFor, catchUp)
    const id = randomUUID()
    changes(service.environmentId)
    const queued = await lockEnvironmentIn(trx, service.environmentId, async (queue, nextSeq) => {
      const unfinished = (await queue.unfinished()).map((stored) => stored.run)
      if (unfinished.some((run) => TAKES_DOWN.has(run.triggerAction) && includes(run, service.id))) return false
      const stageOf = stageOfService([service], await stages.list(service.environmentId))
      const planned = [plannedService(kind, service, 'DEPLOY', overrides, id)]
      const resolved = resolveServiceVariables(await variables.resolvableInEnvironment(service.environmentId), service.id)
      const { seq, createdAt } = await nextSeq()
      const states = await queue.finishedStates([service.id])
      const environment = { id: service.environmentId, organizationId: service.organizationId }
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
      return true
    })
    if (queued === undefined) {
      // The environment is going: its schedules go with it.
      await trx.deleteFrom('cronJobSchedules').where('serviceId', '=', schedule.serviceId).execute()
      continue
    }
    if (!queued) log?.warn({ serviceId: service.id, tick: scheduledFor }, 'a cron tick was not run: a stop or a deletion of the job is queued')
    if (next === null) await trx.deleteFrom('cronJobSchedules').where('serviceId', '=', schedule.serviceId).execute()
    else {
      await trx
        .updateTable('cronJobSchedules')
        .set((eb) => ({ nextFireAt: next, fired: eb('fired', '+', queued ? 1 : 0), lastFiredAt: queued ? now : schedule.lastFiredAt }))
        .where('serviceId', '=', schedule.serviceId)
        .execute()
    }
    if (queued) fired++
  }
  return fired
}
