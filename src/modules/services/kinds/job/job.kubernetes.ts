import type { ServiceOutcome } from '#src/modules/executors/executor.ts'
import { jobValues } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import type { KubernetesKind, PulledImage } from '#src/modules/executors/kubernetes/builtin-deployments.ts'
import type { JobConfig } from './job.types.ts'
import { jobBuildSource } from './job-builds.ts'
import { commandFor, type JobDeployOverrides, LIFECYCLE_EVENT } from './job-deployments.ts'

/** What a job's run gets beyond its max_duration_seconds: pulling the image, waiting for a node. */
const JOB_START_SECONDS = 300

/**
 * The Kubernetes executor's entry for a job (docs/kubernetes.md): a release of the chart Berth ships
 * holding a Job that runs the event's command, or a CronJob that runs the ticks of its schedule.
 */
export const jobKubernetes: KubernetesKind<JobConfig> = {
  async perform(snapshot, act): Promise<ServiceOutcome> {
    const { action, steps } = act
    const isRemoval = action === 'UNINSTALL' || action === 'DELETE'
    const config = snapshot.configuration
    const overrides = snapshot.overrides as JobDeployOverrides
    const delivers = action === 'DEPLOY' || action === 'RESTART'
    const { schedule, source } = config
    const forced = delivers ? overrides.forceEvent : undefined
    // A tick of the scheduler: the cluster's CronJob runs it on its own.
    if (forced === 'CRON' && overrides.scheduledFor && 'cronjob' in schedule) {
      steps.context.log('schedule', 'the CronJob on the cluster runs the ticks of this schedule: nothing to do')
      return { ok: true }
    }
    const event = forced ?? ('cronjob' in schedule ? undefined : LIFECYCLE_EVENT[action])
    const command = event ? commandFor(config, event) : undefined
    if (isRemoval && !command) return act.uninstall()
    if (!('cronjob' in schedule) && !command) {
      steps.context.log('run', 'no command for this event: nothing to run')
      return { ok: true }
    }
    let pulled: PulledImage
    if ('image' in source) pulled = await act.image(source.image.registryId, source.image.imageName, overrides.imageTag || source.image.tag)
    else {
      const built = await act.pushed('a job', jobBuildSource(source.docker, overrides, action))
      if (!built.ok) return built
      pulled = built.pulled
    }
    const wait = ['--wait', '--wait-for-jobs']
    const timeout = config.maxDurationSeconds + JOB_START_SECONDS
    if ('cronjob' in schedule) {
      const { scheduledAt, timezone } = schedule.cronjob
      const values = jobValues(snapshot, act.owner, act.variables(), pulled, {
        cron: { scheduledAt, timezone, command: schedule.cronjob },
        stopped: action === 'STOP',
        runNow: forced === 'CRON',
      })
      return act.installChart(values, timeout, wait)
    }
    if (!command) return { ok: true }
    const outcome = await act.installChart(jobValues(snapshot, act.owner, act.variables(), pulled, { command }), timeout, wait)
    // The on_delete event ran: the release goes with the service.
    return outcome.ok && isRemoval ? act.uninstall() : outcome
  },
}
