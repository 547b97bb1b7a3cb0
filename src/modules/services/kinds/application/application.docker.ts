import type { DockerAction, DockerKind } from '#src/modules/executors/docker/docker-executor.ts'
import { ensureNetwork } from '#src/modules/executors/docker/docker-objects.ts'
import { removeBuiltImages } from '#src/modules/executors/docker/image-builds.ts'
import type { Rollout } from '#src/modules/executors/docker/service-instances.ts'
import { removeInstances, rollOut, stopInstances } from '#src/modules/executors/docker/service-instances.ts'
import { containerInstanceSpec } from '#src/modules/services/kinds/container/container-instance.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { ApplicationConfig, ApplicationDeployOverrides } from './application.types.ts'
import { containerProbe } from './application-probes.ts'

// What the Docker executor does to an application (docs/docker.md, "Deploying with Docker"): its commit built
// from git, then rolled out as a container service is; its images removed with it.

/** The Docker executor's entry for an application. */
export const applicationDocker: DockerKind<ApplicationConfig> = {
  perform: application,
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
  const overrides = snapshot.overrides as ApplicationDeployOverrides
  const commit = overrides.commit?.id ?? overrides.gitCommitId
  const built = await act.builtImage({
    repository: config.gitRepository,
    ref: commit ? { commit } : { branch: config.gitRepository.branch },
    dockerfilePath: config.dockerfilePath,
    dockerfileRaw: null,
    target: config.dockerTargetBuildStage,
    // A restart runs what the last deploy built.
    reuse: action === 'RESTART',
  })
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
