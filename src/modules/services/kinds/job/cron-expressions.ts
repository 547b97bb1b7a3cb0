import { Cron } from 'croner'

// A cron job's schedule: which expressions Berth takes, and when one fires next. The reference
// takes the five fields of crontab (minute hour day-of-month month day-of-week) and the nicknames
// (@hourly, @daily…); Berth also takes six fields, seconds first (docs/jobs.md, "Jobs").

const NICKNAMES = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'])

/** The reference's default timezone. */
export const DEFAULT_TIMEZONE = 'Etc/UTC'

/** Why a timezone cannot be used; undefined when it names an IANA zone. */
export function timezoneProblem(timezone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone })
    return undefined
  } catch {
    return `is not a timezone identifier of the IANA database (like Etc/UTC or Europe/Paris)`
  }
}

function cronOf(expression: string, timezone: string): Cron {
  return new Cron(expression.trim(), { timezone, paused: true })
}

/** Why a cron expression cannot be scheduled (in a valid timezone); undefined when it fires some day. */
export function cronExpressionProblem(expression: string, timezone: string): string | undefined {
  const trimmed = expression.trim()
  const fields = trimmed.split(/\s+/)
  if (!NICKNAMES.has(trimmed.toLowerCase()) && fields.length !== 5 && fields.length !== 6) {
    return 'must be a cron expression of five fields (minute hour day-of-month month day-of-week), or six with seconds first'
  }
  let cron: Cron
  try {
    cron = cronOf(trimmed, timezone)
  } catch (error) {
    return `is not a valid cron expression: ${(error as Error).message.replace(/^CronPattern: /, '')}`
  }
  return cron.nextRun() === null ? 'never fires (no date matches it)' : undefined
}

/** The first time strictly after `after` at which the expression fires; null when it never does again. */
export function nextFireAfter(expression: string, timezone: string, after: Date): Date | null {
  return cronOf(expression, timezone).nextRun(after)
}
