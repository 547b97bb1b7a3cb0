import type { PlannedStep, ServiceKind, ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { RunnableTrigger } from '#src/platform/deployment-states.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { JobForceEvent } from './job.schemas.ts'
import type { JobCommand, JobConfig, LifecycleType } from './job.types.ts'
import { jobType } from './job.types.ts'

// What deploying a job means: the overrides a deploy request may add, the history `details`
// (contract 2.7, job shape), and the steps an executor goes through. A lifecycle job runs its
// on_start when deployed, its on_stop when stopped, its on_delete when uninstalled or deleted; a
// cron job is scheduled when deployed and unscheduled when stopped, and each tick of its schedule
// is a deployment of its own (docs/jobs.md, "Jobs").

/** What a job deploy asks for beyond the configuration (reference JobDeployRequest and forceEvent). */
export interface JobDeployOverrides {
  imageTag?: string | undefined
  gitCommitId?: string | undefined
  /** Runs this event's command now, whatever the action would do otherwise (force-run; the scheduler's ticks: CRON). */
  forceEvent?: JobForceEvent | undefined
  /** Set by the scheduler: the tick this run is for, and whether it stands for ticks missed while no runner ran. */
  scheduledFor?: string | undefined
  catchUp?: boolean | undefined
}

/**
 * The argument that makes the simulated executor fail the run of a job's event: an event whose
 * `arguments` hold it fails when it runs (docs/deployments.md, "Simulated deployments").
 */
export const SIMULATE_FAILURE_ARGUMENT = 'berth.simulate.fail'

const EVENT_FIELD: Record<JobForceEvent, string> = { START: 'on_start', STOP: 'on_stop', DELETE: 'on_delete', CRON: 'cronjob' }

/** The command a job runs for an event; undefined when it has none. */
export function commandFor(job: Pick<JobConfig, 'schedule'>, event: JobForceEvent): JobCommand | undefined {
  const { schedule } = job
  if ('cronjob' in schedule) return event === 'CRON' ? schedule.cronjob : undefined
  const { onStart, onStop, onDelete } = schedule.lifecycle
  const command = { START: onStart, STOP: onStop, DELETE: onDelete, CRON: null }[event]
  return command ?? undefined
}

/** What a job deploy request asks for that the job cannot give. */
export function jobOverrideErrors(job: Pick<JobConfig, 'source' | 'schedule'>, overrides: JobDeployOverrides): FieldError[] {
  const errors: FieldError[] = []
  const error = (field: string, message: string) => errors.push({ path: `/${field}`, message, location: 'body' })
  const fromImage = 'image' in job.source
  const { imageTag, gitCommitId, forceEvent } = overrides
  if (imageTag && gitCommitId) error('git_commit_id', 'cannot be set together with image_tag')
  // An empty image_tag is what the Terraform provider sends for a job built from git: it names nothing.
  else if (imageTag && !fromImage) error('image_tag', 'applies to a job from an image; this job builds a Dockerfile from git')
  else if (gitCommitId && fromImage) error('git_commit_id', 'applies to a job built from git; this job runs an image')
  if (forceEvent && !commandFor(job, forceEvent)) {
    errors.push({
      path: '/forceEvent',
      message: `this ${jobType(job.schedule).toLowerCase()} job has no ${EVENT_FIELD[forceEvent]} event to run`,
      location: 'query',
    })
  }
  return errors
}

const LIFECYCLE_TYPE_IN_HISTORY: Record<LifecycleType, string> = { GENERIC: 'GENERIC', TERRAFORM: 'IAC', CLOUDFORMATION: 'CLOUDTEMPLATE' }

const historyCommand = (command: JobCommand) => ({
  arguments: command.arguments,
  ...(command.entrypoint === null ? {} : { entrypoint: command.entrypoint }),
})

/** The image a job runs, as its history names it: a registry's image, or the one built from git. */
function imageOf(job: Pick<JobConfig, 'source'>, overrides: JobDeployOverrides): { image_name: string; tag: string } {
  const { source } = job
  if ('image' in source) return { image_name: source.image.imageName, tag: overrides.imageTag || source.image.tag }
  const { git } = source.docker
  return { image_name: `${git.owner}/${git.name}`, tag: overrides.gitCommitId || git.branch || 'default-branch' }
}

/**
 * A job's `details` (contract 2.7, job shape): its image, its schedule and type; `build_pod_name`
 * `build-{execution_id}-0` for a job built from git, null for one from an image.
 */
export function jobDetails(
  job: Pick<JobConfig, 'source' | 'schedule'>,
  overrides: JobDeployOverrides,
  context?: { executionId: string },
): Record<string, unknown> {
  const { schedule } = job
  let historySchedule: Record<string, unknown>
  if ('cronjob' in schedule) {
    const { scheduledAt, timezone } = schedule.cronjob
    historySchedule = { cron_job: { ...historyCommand(schedule.cronjob), scheduled_at: scheduledAt, timezone } }
  } else {
    const { onStart, onStop, onDelete, lifecycleType } = schedule.lifecycle
    historySchedule = {
      ...(onStart ? { on_start: historyCommand(onStart) } : {}),
      ...(onStop ? { on_stop: historyCommand(onStop) } : {}),
      ...(onDelete ? { on_delete: historyCommand(onDelete) } : {}),
      ...(lifecycleType ? { lifecycle_type: LIFECYCLE_TYPE_IN_HISTORY[lifecycleType] } : {}),
    }
  }
  const fromGit = 'docker' in job.source
  return {
    ...imageOf(job, overrides),
    schedule: historySchedule,
    job_type: jobType(schedule),
    build_pod_name: fromGit && context ? `build-${context.executionId}-0` : null,
  }
}

/** The command as a log shows it: the entrypoint and how many arguments, never their values (they may be secrets). */
const commandLine = (command: JobCommand) =>
  `${command.entrypoint === null ? "the image's entrypoint" : `entrypoint ${command.entrypoint}`} with ${command.arguments.length} argument(s)`

/** Where the job's image comes from, as the first step of every run. */
function imageStep({ configuration, overrides }: ServiceSnapshot<JobConfig>): PlannedStep {
  const { source } = configuration
  const given = overrides as JobDeployOverrides
  if ('image' in source) {
    const { image_name, tag } = imageOf(configuration, given)
    return { step: 'image', lines: [`pulling ${image_name}:${tag} from container registry ${source.image.registryId}`] }
  }
  const { git, dockerfilePath, dockerTargetBuildStage } = source.docker
  const at = given.gitCommitId ? `commit ${given.gitCommitId}` : git.branch ? `branch ${git.branch}` : 'the default branch'
  const dockerfile = dockerfilePath === null ? 'the Dockerfile given inline' : `${git.rootPath.replace(/\/$/, '')}/${dockerfilePath}`
  return {
    step: 'build',
    lines: [`building ${dockerfile} of ${git.url} at ${at}${dockerTargetBuildStage ? ` (target ${dockerTargetBuildStage})` : ''}`],
  }
}

/** Running one event's command, failing as the simulator is asked to. */
function runStep(job: JobConfig, event: JobForceEvent, command: JobCommand, note = ''): PlannedStep {
  const lines = [
    `running the ${EVENT_FIELD[event]} event${note}: ${commandLine(command)}`,
    `at most ${job.maxDurationSeconds}s, ${job.maxNbRestart} restart(s) allowed; ${job.cpu}m CPU, ${job.memory}MB memory`,
  ]
  return command.arguments.includes(SIMULATE_FAILURE_ARGUMENT)
    ? {
        step: 'run',
        lines,
        failure: `the ${EVENT_FIELD[event]} event of the job failed (simulated: its arguments hold ${SIMULATE_FAILURE_ARGUMENT})`,
      }
    : { step: 'run', lines }
}

/** The event a lifecycle job runs for an action. */
export const LIFECYCLE_EVENT: Record<RunnableTrigger, JobForceEvent> = {
  DEPLOY: 'START',
  DEPLOY_DRY_RUN: 'START',
  RESTART: 'START',
  STOP: 'STOP',
  UNINSTALL: 'DELETE',
  DELETE: 'DELETE',
}

/** What an executor does for a job, as it reports it. */
export function jobPlan(snapshot: ServiceSnapshot<JobConfig>, action: RunnableTrigger): PlannedStep[] {
  if (action === 'DEPLOY_DRY_RUN')
    return [imageStep(snapshot), { step: 'run', lines: [`saying what a deploy of ${snapshot.name} would run; nothing is run`] }]
  const job = snapshot.configuration
  const given = snapshot.overrides as JobDeployOverrides
  const delivers = action === 'DEPLOY' || action === 'RESTART'
  const forced = delivers ? given.forceEvent : undefined
  if (forced) {
    const command = commandFor(job, forced)
    const note = given.scheduledFor
      ? ` for the tick of ${given.scheduledFor}${given.catchUp ? ' (catching up ticks missed while no runner ran)' : ''}`
      : ''
    if (command) return [imageStep(snapshot), runStep(job, forced, command, note)]
    // The job was edited since the trigger checked it: nothing to run.
    return [{ step: 'run', lines: [`the job has no ${EVENT_FIELD[forced]} event any more: nothing to run`] }]
  }
  const { schedule } = job
  if ('cronjob' in schedule) {
    const { scheduledAt, timezone } = schedule.cronjob
    if (delivers) return [imageStep(snapshot), { step: 'schedule', lines: [`scheduling the cron job: "${scheduledAt}" (${timezone})`] }]
    return [{ step: 'unschedule', lines: ['removing the cron job from the schedule'] }]
  }
  const event = LIFECYCLE_EVENT[action]
  const command = commandFor(job, event)
  if (!command) return [{ step: 'run', lines: [`no ${EVENT_FIELD[event]} event: nothing to run`] }]
  return delivers ? [imageStep(snapshot), runStep(job, event, command)] : [runStep(job, event, command)]
}

/** What a deployment of a job records of it, as the service kind says it. */
export const jobPlanning: Pick<ServiceKind<unknown, JobConfig, JobDeployOverrides>, 'type' | 'details' | 'iconUri' | 'simulatesFailure'> = {
  type: 'JOB',
  details: jobDetails,
  iconUri: (configuration) => configuration.iconUri,
  // Failures are the plan's (an event's arguments ask for one): see SIMULATE_FAILURE_ARGUMENT.
  simulatesFailure: () => false,
}
