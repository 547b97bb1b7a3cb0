import type { DockerAction, DockerKind } from '#src/modules/executors/docker/docker-executor.ts'
import { ensureNetwork } from '#src/modules/executors/docker/docker-objects.ts'
import { compareWithRunning } from '#src/modules/executors/docker/dry-run-comparisons.ts'
import { removeBuiltImages } from '#src/modules/executors/docker/image-builds.ts'
import type { Rollout } from '#src/modules/executors/docker/service-instances.ts'
import { removeInstances, rollOut, stopInstances } from '#src/modules/executors/docker/service-instances.ts'
import type { ServiceOutcome } from '#src/modules/executors/executor.ts'
import { containerInstanceSpec } from '#src/modules/services/kinds/container/container-instance.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { ApplicationConfig, ApplicationDeployOverrides } from './application.types.ts'
import { containerProbe } from './application-probes.ts'

// What the Docker executor does to an application (docs/docker.md, "Deploying with Docker"): its commit built
// from git, then rolled out as a container service is; its images removed with it. A dry run builds
// it and compares it with the image running.

/** The Docker executor's entry for an application. */
export const applicationDocker: DockerKind<ApplicationConfig> = {
  perform: application,
  dryRun: applicationDryRun,
}

/** The image of the deployment's commit, built unless `reuse` and the engine has it. */
function builtImage(snapshot: ServiceSnapshot<ApplicationConfig>, act: DockerAction, reuse: boolean) {
  const config = snapshot.configuration
  const overrides = snapshot.overrides as ApplicationDeployOverrides
  const commit = overrides.commit?.id ?? overrides.gitCommitId
  return act.builtImage({
    repository: config.gitRepository,
    ref: commit ? { commit } : { branch: config.gitRepository.branch },
    dockerfilePath: config.dockerfilePath,
    dockerfileRaw: null,
    target: config.dockerTargetBuildStage,
    reuse,
  })
}

/** A deploy up to its rollout: the commit checked out and built, and the image compared with what runs now. */
async function applicationDryRun(snapshot: ServiceSnapshot<ApplicationConfig>, act: DockerAction): Promise<ServiceOutcome> {
  const built = await builtImage(snapshot, act, false)
  if (!built.ok) return built
  return compareWithRunning(act, snapshot.name, built.image, Math.max(snapshot.configuration.minRunningInstances, 1))
}

async function application(snapshot: ServiceSnapshot<ApplicationConfig>, act: DockerAction): Promise<Rollout> {
  const { docker, owner, action, say, signal, publish } = act
  const config = snapshot.configuration
  if (action === 'STOP') return stopInstances(docker, owner.serviceId, act.stopGraceSeconds, say)
  if (action === 'UNINSTALL' || action === 'DELETE') {
    const removed = await removeInstances(docker, owner.serviceId, act.stopGraceSeconds, say)
    await removeBuiltImages(docker, owner.serviceId)
    return removed
  }
  // A restart runs what the last deploy built.
  const built = await builtImage(snapshot, act, action === 'RESTART')
  if (!built.ok) return built
  const network = await ensureNetwork(docker, owner.environmentId)
  const outcome = await rollOut(
    docker,
    containerInstanceSpec(snapshot, act, network, built.image, containerProbe(config.healthchecks.readiness_probe)),
    publish,
    say,
    signal,
  )
  // The images of earlier commits go once nothing runs them: once the previous instances, stopping
  // in the background, are gone.
  const { retired, ...result } = outcome
  if (outcome.ok) void (retired ?? Promise.resolve()).then(() => removeBuiltImages(docker, owner.serviceId, built.image)).catch(() => undefined)
  return result
}
