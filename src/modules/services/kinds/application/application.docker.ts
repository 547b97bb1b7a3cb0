import type { DockerAction, DockerKind } from '#src/modules/executors/docker/docker-executor.ts'
import { dnsLabel, ensureNetwork } from '#src/modules/executors/docker/docker-objects.ts'
import { removeBuiltImages } from '#src/modules/executors/docker/image-builds.ts'
import type { Rollout } from '#src/modules/executors/docker/service-instances.ts'
import { removeInstances, rollOut, stopInstances } from '#src/modules/executors/docker/service-instances.ts'
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
  const { env, files } = act.delivered()
  const outcome = await rollOut(
    docker,
    {
      owner,
      labels: snapshot.labels,
      serviceName: snapshot.name,
      networkAlias: dnsLabel(snapshot.name),
      network,
      image: built.image,
      entrypoint: config.entrypoint ? [config.entrypoint] : null,
      command: config.arguments.length > 0 ? config.arguments : null,
      env,
      files,
      cpuMilli: config.cpu,
      memoryMb: config.memory,
      confinement: act.confinement,
      ports: config.ports.map((port) => ({
        internal: port.internalPort,
        protocol: port.protocol === 'UDP' ? 'UDP' : 'TCP',
        publish: port.publiclyAccessible,
      })),
      volumes: config.storage.map((volume) => ({ name: `berth-${owner.serviceId}-${volume.id}`, mountPoint: volume.mountPoint })),
      readiness: containerProbe(config.healthchecks.readiness_probe),
      instances: Math.max(config.minRunningInstances, 1),
      stopGraceSeconds: act.stopGraceSeconds,
    },
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
