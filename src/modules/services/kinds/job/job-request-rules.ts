import { bodyError } from '#src/modules/services/field-errors.ts'
import { checkGitRepository } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import { cronExpressionProblem, DEFAULT_TIMEZONE, timezoneProblem } from './cron-expressions.ts'
import type { JobRequest } from './job.schemas.ts'

// The rules of a job request that its JSON schema cannot say. Each broken rule names the request's
// field by JSON pointer, so that one answer lists every mistake.

function checkSource(source: JobRequest['source'], errors: FieldError[]): void {
  const given = [source.image, source.docker].filter((option) => option != null).length
  if (given !== 1) {
    errors.push(bodyError('/source', 'must name exactly one of image and docker'))
    return
  }
  const docker = source.docker
  if (!docker) return
  checkGitRepository(docker.git_repository, '/source/docker/git_repository', errors)
  const path = docker.dockerfile_path
  if (path?.split('/').includes('..')) errors.push(bodyError('/source/docker/dockerfile_path', 'must not contain ..'))
}

function checkSchedule(schedule: JobRequest['schedule'], errors: FieldError[]): void {
  const lifecycle = [schedule.on_start, schedule.on_stop, schedule.on_delete].some((event) => event != null)
  const cron = schedule.cronjob
  if (cron && lifecycle) {
    errors.push(bodyError('/schedule', 'a cron job has only cronjob; a lifecycle job only on_start, on_stop and on_delete'))
    return
  }
  if (!cron && !lifecycle) {
    errors.push(bodyError('/schedule', 'must give cronjob (a cron job) or at least one of on_start, on_stop, on_delete (a lifecycle job)'))
    return
  }
  if (cron && schedule.lifecycle_type != null) errors.push(bodyError('/schedule/lifecycle_type', 'applies to lifecycle jobs only'))
  if (!cron) return
  const timezone = cron.timezone ?? DEFAULT_TIMEZONE
  const badZone = timezoneProblem(timezone)
  if (badZone) errors.push(bodyError('/schedule/cronjob/timezone', badZone))
  const badExpression = cronExpressionProblem(cron.scheduled_at, badZone ? DEFAULT_TIMEZONE : timezone)
  if (badExpression) errors.push(bodyError('/schedule/cronjob/scheduled_at', badExpression))
}

/** Every rule the request breaks beyond its schema; empty when it is valid. */
export function jobRequestErrors(body: JobRequest): FieldError[] {
  const errors: FieldError[] = []
  checkSource(body.source, errors)
  checkSchedule(body.schedule, errors)
  return errors
}
