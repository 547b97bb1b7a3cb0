import type { ServiceOutcome } from '../executor.ts'
import type { RunWorkload, ScheduleWorkload } from '../workload.ts'
import type { DockerJob } from './docker-job.ts'
import { ensureNetwork } from './docker-objects.ts'
import { runToCompletion } from './job-runs.ts'

// Commands run to their end on Docker (docs/docker.md, "Deploying with Docker"): a job's event, a
// tick of its schedule. Berth's cron fires a schedule's ticks, each a deployment of its own: a
// schedule's deploy only readies its image.

/** A run, step by step: its image (pulled, or built from git), the environment's network, the command tried until it succeeds or its retries are spent. */
export async function run(workload: RunWorkload | ScheduleWorkload, job: DockerJob): Promise<ServiceOutcome> {
  const image = await job.image(workload.image)
  if (!image.ok) return image
  const say = (message: string) => job.say('run', message)
  if (job.action === 'DEPLOY_DRY_RUN') {
    const { what, entrypoint, args } = workload.command
    say(`a deploy would run ${what} in ${image.image}: entrypoint ${entrypoint?.join(' ') ?? '(image default)'}, ${args.length} argument(s)`)
    say(`dry run: the ${job.snapshot.kind.toLowerCase()} was not run`)
    return { ok: true }
  }
  const network = await ensureNetwork(job.docker, job.owner.environmentId)
  const { env, files } = job.delivered()
  const { snapshot, owner, confinement } = job
  return runToCompletion(
    job.docker,
    {
      owner,
      labels: snapshot.labels,
      serviceName: snapshot.name,
      network,
      image: image.image,
      entrypoint: workload.command.entrypoint,
      command: workload.command.args,
      env,
      files,
      cpuMilli: workload.resources.cpuMilli,
      memoryMb: workload.resources.memoryMb,
      confinement,
      timeout: workload.timeout,
      retries: workload.retries,
      keepFailed: job.action !== 'DELETE' && job.action !== 'UNINSTALL',
    },
    job.say,
    job.signal,
  )
}

/** A schedule: a forced run runs now; a deploy readies the image its ticks run; a stop, an uninstall or a delete ends it. */
export async function schedule(workload: ScheduleWorkload, job: DockerJob): Promise<ServiceOutcome> {
  if (workload.runNow) return run(workload, job)
  const say = (message: string) => job.say('schedule', message)
  const { action } = job
  if (action !== 'DEPLOY' && action !== 'RESTART' && action !== 'DEPLOY_DRY_RUN') {
    say('the cron job no longer runs')
    return { ok: true }
  }
  const image = await job.image(workload.image)
  if (!image.ok) return image
  if (action !== 'DEPLOY_DRY_RUN') {
    say('the cron job runs a container at each tick of its schedule')
    return { ok: true }
  }
  job.say('run', `a deploy would schedule the cron job "${workload.cron}" (${workload.timezone}): each tick runs ${image.image}`)
  job.say('run', `dry run: the ${job.snapshot.kind.toLowerCase()} was not run`)
  return { ok: true }
}
