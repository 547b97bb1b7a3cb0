import type { DockerAction, DockerKind } from '#src/modules/executors/docker/docker-executor.ts'
import { ensureNetwork } from '#src/modules/executors/docker/docker-objects.ts'
import { removeBuiltImages } from '#src/modules/executors/docker/image-builds.ts'
import { ensureImage, imageReference } from '#src/modules/executors/docker/images.ts'
import { runToCompletion } from '#src/modules/executors/docker/job-runs.ts'
import type { Rollout } from '#src/modules/executors/docker/service-instances.ts'
import type { ServiceOutcome } from '#src/modules/executors/executor.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { JobCommand, JobConfig } from './job.types.ts'
import { jobBuildSource } from './job-builds.ts'
import { commandFor, type JobDeployOverrides, LIFECYCLE_EVENT } from './job-deployments.ts'

// What the Docker executor does to a job (docs/docker.md, "Deploying with Docker"): the event's command run to
// completion in its image (pulled, or built from git); a cron job's ticks are runs of their own. A dry
// run pulls or builds the image and says what a deploy would run, running nothing.

/** The Docker executor's entry for a job. */
export const jobDocker: DockerKind<JobConfig> = {
  perform: job,
  dryRun: jobDryRun,
}

/** The image a deploy of the job would run: pulled from its registry, or built from git. */
async function jobImage(
  snapshot: ServiceSnapshot<JobConfig>,
  act: DockerAction,
): Promise<{ ok: true; image: string } | { ok: false; message: string }> {
  const config = snapshot.configuration
  const overrides = snapshot.overrides as JobDeployOverrides
  if ('docker' in config.source) return act.builtImage(jobBuildSource(config.source.docker, overrides, act.action))
  const { imageName, tag, registryId } = config.source.image
  const registry = await act.registry(act.organizationId, registryId)
  const image = imageReference(registry.host, imageName, overrides.imageTag || tag)
  await ensureImage(act.docker, image, registry.auth, (message) => act.say('pull', message), act.signal, act.pulls)
  return { ok: true, image }
}

/** A deploy up to its run: the image pulled or built, and what a deploy would run said; nothing is run. */
async function jobDryRun(snapshot: ServiceSnapshot<JobConfig>, act: DockerAction): Promise<ServiceOutcome> {
  const config = snapshot.configuration
  const overrides = snapshot.overrides as JobDeployOverrides
  const found = await jobImage(snapshot, act)
  if (!found.ok) return found
  const say = (message: string) => act.say('run', message)
  if ('cronjob' in config.schedule && !overrides.forceEvent) {
    const { scheduledAt, timezone } = config.schedule.cronjob
    say(`a deploy would schedule the cron job "${scheduledAt}" (${timezone}): each tick runs ${found.image}`)
  } else {
    const event = overrides.forceEvent ?? LIFECYCLE_EVENT.DEPLOY
    const command = commandFor(config, event)
    if (!command) say(`the job has no command for its ${event} event: a deploy would run nothing`)
    else
      say(
        `a deploy would run the ${event} event in ${found.image}: entrypoint ${command.entrypoint ?? '(image default)'}, ${command.arguments.length} argument(s)`,
      )
  }
  say('dry run: the job was not run')
  return { ok: true }
}

async function job(snapshot: ServiceSnapshot<JobConfig>, act: DockerAction): Promise<Rollout> {
  const { docker, owner, organizationId, action, say, signal } = act
  const config = snapshot.configuration
  const overrides = snapshot.overrides as JobDeployOverrides
  const delivers = action === 'DEPLOY' || action === 'RESTART'
  const event = delivers && overrides.forceEvent ? overrides.forceEvent : 'cronjob' in config.schedule ? undefined : LIFECYCLE_EVENT[action]
  // A cron job's deploy only readies its image: each tick is a run of its own (forceEvent CRON).
  const command = event ? commandFor(config, event) : undefined
  let image: string | undefined
  if ('image' in config.source) {
    const { imageName, tag, registryId } = config.source.image
    const registry = await act.registry(organizationId, registryId)
    image = imageReference(registry.host, imageName, overrides.imageTag || tag)
    if (delivers || command) await ensureImage(docker, image, registry.auth, (message) => say('pull', message), signal, act.pulls)
  } else if (delivers || command) {
    const built = await act.builtImage(jobBuildSource(config.source.docker, overrides, action))
    if (!built.ok) return built
    image = built.image
  }
  // An uninstalled or deleted job built from git leaves no image once its on_delete ran.
  const removesImages = 'docker' in config.source && (action === 'UNINSTALL' || action === 'DELETE')
  const outcome = await runJobEvent(snapshot, act, delivers, image, command)
  if (removesImages) await removeBuiltImages(docker, owner.serviceId)
  return outcome
}

async function runJobEvent(
  snapshot: ServiceSnapshot<JobConfig>,
  act: DockerAction,
  delivers: boolean,
  image: string | undefined,
  command: JobCommand | undefined,
): Promise<Rollout> {
  const { docker, owner, say, signal } = act
  const config = snapshot.configuration
  if (!command || !image) {
    if ('cronjob' in config.schedule)
      say('schedule', delivers ? 'the cron job runs a container at each tick of its schedule' : 'the cron job no longer runs')
    else say('run', 'no command for this event: nothing to run')
    return { ok: true }
  }
  const network = await ensureNetwork(docker, owner.environmentId)
  const { env, files } = act.delivered()
  return runToCompletion(
    docker,
    {
      owner,
      labels: snapshot.labels,
      serviceName: snapshot.name,
      network,
      image,
      entrypoint: command.entrypoint ? [command.entrypoint] : null,
      command: command.arguments,
      env,
      files,
      cpuMilli: config.cpu,
      memoryMb: config.memory,
      confinement: act.confinement,
      maxDurationSeconds: config.maxDurationSeconds,
      maxRestarts: config.maxNbRestart,
    },
    say,
    signal,
  )
}
