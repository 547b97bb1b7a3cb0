import type { ImageSource, KindWorkload, Workload } from '#src/modules/executors/workload.ts'
import type { JobCommand, JobConfig } from './job.types.ts'
import { jobBuildSource } from './job-builds.ts'
import { commandFor, type JobDeployOverrides, LIFECYCLE_EVENT } from './job-deployments.ts'

// What a job runs (docs/jobs.md, docs/docker.md, docs/kubernetes.md): a lifecycle job runs the
// command of the action's event (on_start at deploy, on_stop at stop, on_delete at uninstall or
// delete) to its end; a cron job is scheduled at deploy and suspended at stop, and each tick runs
// its command. A forced event runs now whatever the action would do.

export const jobWorkload: KindWorkload<JobConfig> = {
  describe({ configuration: config, overrides }, { action }): Workload {
    const given = overrides as JobDeployOverrides
    const { schedule, source } = config
    const forced = action === 'DEPLOY' || action === 'RESTART' ? given.forceEvent : undefined
    const image: ImageSource =
      'image' in source
        ? { registry: { registryId: source.image.registryId, imageName: source.image.imageName, tag: given.imageTag || source.image.tag } }
        : { build: jobBuildSource(source.docker, given, action) }
    const limits = {
      resources: { cpuMilli: config.cpu, memoryMb: config.memory },
      timeout: { seconds: config.maxDurationSeconds, setting: 'max_duration_seconds' },
      retries: config.maxNbRestart,
    }
    const command = (what: string, { entrypoint, arguments: args }: JobCommand) => ({ what, entrypoint: entrypoint ? [entrypoint] : null, args })
    if ('cronjob' in schedule) {
      const cron = command('the CRON event', schedule.cronjob)
      // A tick of the schedule (Berth's cron queued it): a run of its own.
      if (forced === 'CRON' && given.scheduledFor) return { type: 'run', image, command: cron, ...limits, tick: true }
      const { scheduledAt, timezone } = schedule.cronjob
      return { type: 'schedule', image, command: cron, ...limits, cron: scheduledAt, timezone, runNow: forced === 'CRON' }
    }
    const event = forced ?? LIFECYCLE_EVENT[action]
    const found = commandFor(config, event)
    if (found) return { type: 'run', image, command: command(`the ${event} event`, found), ...limits }
    if (action === 'DEPLOY_DRY_RUN')
      return { type: 'nothing', say: { step: 'run', message: `the job has no command for its ${event} event: a deploy would run nothing` } }
    return { type: 'nothing', say: { step: 'run', message: 'no command for this event: nothing to run' } }
  },
}
