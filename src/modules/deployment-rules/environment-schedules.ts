import { sql } from 'kysely'
import type { DeploymentRulesDb } from './deployment-rules.tables.ts'
import { type AutoStopSchedule, latestEvent, type ScheduleAction } from './schedule-events.ts'

// The auto-stop schedules at work (docs/deployment-rules.md, "Sleeping environments"): every tick,
// each environment whose deployment rule has `auto_stop` is looked at; when an event of its schedule
// passed since the last one acted on (or since the rule was set), the platform stops the environment
// (a stop time) or deploys it again (a start time, when the platform's stop is the last thing it did).
// An event is acted on once across all of Berth's processes: its mark row is claimed FOR UPDATE SKIP
// LOCKED and moved past the event in the transaction that decides; the trigger follows the commit
// (a process dying in between leaves that one event undone rather than done twice).

/** Who history says triggered a scheduled stop or start. */
export const SCHEDULE_ACTOR = 'deployment rule schedule'

export interface ScheduledEnvironment {
  id: string
  organizationId: string
}

/** What the schedules ask of deployments: 'nothing' when there was nothing to stop or start. */
export type ScheduledTrigger = (environment: ScheduledEnvironment, action: ScheduleAction, triggeredBy: string) => Promise<'queued' | 'nothing'>

export interface ScheduleLog {
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
}

interface Deps {
  db: DeploymentRulesDb
  trigger: ScheduledTrigger
  log: ScheduleLog
  /** The most environments one tick looks at. */
  batch?: number
}

export function createEnvironmentSchedules({ db, trigger, log, batch = 500 }: Deps) {
  /** Claims the environment's due event, if any, moving its mark past it: the event to act on. */
  async function claimDueEvent(environmentId: string, schedule: AutoStopSchedule, setAt: Date) {
    return db.transaction().execute(async (trx) => {
      await trx
        .insertInto('environmentScheduleMarks')
        .values({ environmentId, actedThrough: setAt })
        .onConflict((oc) => oc.column('environmentId').doNothing())
        .execute()
      const mark = await trx
        .selectFrom('environmentScheduleMarks')
        .selectAll()
        .where('environmentId', '=', environmentId)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst()
      if (!mark) return undefined
      const { rows } = await sql<{ now: Date }>`select now() as now`.execute(trx)
      const since = mark.actedThrough.getTime() > setAt.getTime() ? mark.actedThrough : setAt
      const event = latestEvent(schedule, since, rows[0]!.now)
      if (!event) return undefined
      await trx
        .updateTable('environmentScheduleMarks')
        .set({ actedThrough: event.at, updatedAt: new Date() })
        .where('environmentId', '=', environmentId)
        .execute()
      return { event, lastAction: mark.lastAction }
    })
  }

  async function act(environment: ScheduledEnvironment, action: ScheduleAction, lastAction: string | null): Promise<void> {
    // The platform starts what it stopped: not an environment its users stopped, nor one never deployed.
    if (action === 'START' && lastAction !== 'STOPPED') return
    let outcome: 'queued' | 'nothing' = 'nothing'
    try {
      outcome = await trigger(environment, action, SCHEDULE_ACTOR)
    } catch (error) {
      // An environment deleted or being deleted meanwhile, or a locked cluster: nothing to do now.
      log.warn({ err: error, environmentId: environment.id, action }, 'a deployment rule schedule could not act on its environment')
    }
    const lastActionNow = action === 'STOP' && outcome === 'queued' ? 'STOPPED' : null
    await db
      .updateTable('environmentScheduleMarks')
      .set({ lastAction: lastActionNow, updatedAt: new Date() })
      .where('environmentId', '=', environment.id)
      .execute()
    if (outcome === 'queued') log.info({ environmentId: environment.id, action }, 'a deployment rule schedule acted on its environment')
  }

  return {
    /** One look at every scheduled environment: how many it acted on. */
    async tick(): Promise<number> {
      const scheduled = await db
        .selectFrom('environmentDeploymentRules as r')
        .innerJoin('environments as e', 'e.id', 'r.environmentId')
        .select(['r.environmentId', 'e.organizationId', 'r.timezone', 'r.startTime', 'r.stopTime', 'r.weekdays', 'r.createdAt', 'r.updatedAt'])
        .where('r.autoStop', '=', true)
        .orderBy('r.environmentId')
        .limit(batch)
        .execute()
      let acted = 0
      for (const row of scheduled) {
        const claimed = await claimDueEvent(row.environmentId, row, row.updatedAt ?? row.createdAt)
        if (!claimed) continue
        await act({ id: row.environmentId, organizationId: row.organizationId }, claimed.event.action, claimed.lastAction)
        acted++
      }
      return acted
    },
  }
}

export type EnvironmentSchedules = ReturnType<typeof createEnvironmentSchedules>
