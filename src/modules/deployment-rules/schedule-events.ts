import { Cron } from 'croner'
import type { Weekday } from './deployment-rules.schemas.ts'

// When an auto-stop schedule stops and starts its environments: on each of its weekdays, at the time
// of day of `stop_time` and of `start_time` (their UTC hours, minutes and seconds, as the reference
// writes them: 1970-01-01T19:00:00Z), read as a wall-clock time in the schedule's time zone.

export interface AutoStopSchedule {
  timezone: string
  startTime: Date
  stopTime: Date
  weekdays: readonly string[]
}

export type ScheduleAction = 'STOP' | 'START'
export interface ScheduleEvent {
  action: ScheduleAction
  at: Date
}

const CRON_DAYS: Record<Weekday, number> = { SUNDAY: 0, MONDAY: 1, TUESDAY: 2, WEDNESDAY: 3, THURSDAY: 4, FRIDAY: 5, SATURDAY: 6 }

/** Whether `timezone` is one the runtime knows (IANA names, `UTC`). */
export function isKnownTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone })
    return true
  } catch {
    return false
  }
}

function cronAt(time: Date, schedule: AutoStopSchedule): Cron | undefined {
  const days = [...new Set(schedule.weekdays.map((day) => CRON_DAYS[day as Weekday]).filter((day) => day !== undefined))]
  if (days.length === 0 || !isKnownTimezone(schedule.timezone)) return undefined
  const pattern = `${time.getUTCSeconds()} ${time.getUTCMinutes()} ${time.getUTCHours()} * * ${days.join(',')}`
  return new Cron(pattern, { timezone: schedule.timezone, paused: true })
}

/**
 * The newest event of the schedule after `since` and at or before `now`, if any: the one to act
 * on (events missed while no process looked are not replayed one by one; the newest says the
 * state the environment should be in). A stop and a start at the same instant: the start wins.
 */
export function latestEvent(schedule: AutoStopSchedule, since: Date, now: Date): ScheduleEvent | undefined {
  let latest: ScheduleEvent | undefined
  for (const action of ['STOP', 'START'] as const) {
    const cron = cronAt(action === 'STOP' ? schedule.stopTime : schedule.startTime, schedule)
    if (!cron) return undefined
    // Not further back than a week: a week holds every event of a weekly schedule.
    const weekAgo = new Date(now.getTime() - 7 * 24 * 3_600_000)
    let from = since.getTime() > weekAgo.getTime() ? since : weekAgo
    let found: Date | undefined
    for (let next = cron.nextRun(from); next && next.getTime() <= now.getTime(); next = cron.nextRun(from)) {
      found = next
      from = next
    }
    if (found && (!latest || found.getTime() >= latest.at.getTime())) latest = { action, at: found }
  }
  return latest
}
