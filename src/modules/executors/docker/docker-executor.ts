import type Docker from 'dockerode'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { maskedLogLine, secretMask } from '#src/platform/secrets/secret-masking.ts'
import { type SpanLog, spans } from '#src/platform/spans.ts'
import type { DeploymentExecutor, ServiceOutcome, ServiceSnapshot } from '../executor.ts'
import { type GitCredentials, removeRunCheckouts } from '../git-checkout.ts'
import { type OpenSecret, openVariables, snapshotSecretValues } from '../snapshot-secrets.ts'
import {
  type GitRepository,
  type ImageSource,
  type KindWorkloads,
  removes,
  stopGraceSeconds,
  type Workload,
  type WorkloadSettings,
} from '../workload.ts'
import { builtFromGit } from './built-images.ts'
import type { DockerJob, OpenStateEndpoint, ReadyImage } from './docker-job.ts'
import { type Confinement, networkName, removeNetworkIfUnused } from './docker-objects.ts'
import type { DeliveredFile } from './file-archive.ts'
import { removeBuiltImages } from './image-builds.ts'
import { ensureImage, imageReference, PullRefused, type RegistryAccess } from './images.ts'
import { instances } from './instance-workloads.ts'
import { run, schedule } from './run-workloads.ts'
import { type PublishSettings, type Rollout, removeAbandoned } from './service-instances.ts'
import { removeScratch, steps } from './step-workloads.ts'

// The Docker executor (docs/docker.md, "Deploying with Docker"): services really run in the Docker
// engine of BERTH_EXECUTOR=docker. What a service runs is its kind's workload (`KindWorkload`, the
// kinds' table handed in at wiring): this executor names no kind. Helm charts need Kubernetes.

export interface DockerExecutorDeps {
  docker: Docker
  /** What a service of each kind runs (the kinds' workloads). */
  kinds: KindWorkloads
  /** The operator's settings the kinds' workloads read. */
  settings: WorkloadSettings
  /** Opens the snapshot's sealed secrets (variables, a database's password), to hand to the engine only. */
  openSecret: OpenSecret
  /** Where a registry's images are and how to pull them; the registry's credentials unsealed. */
  registry(organizationId: string, registryId: string): Promise<RegistryAccess>
  /** The host address public ports are published on (BERTH_DOCKER_PUBLISH_HOST). */
  publishHost: string
  /** The host ports they may take (BERTH_DOCKER_PUBLISH_PORTS, `from-to`); empty: any free port. */
  publishPorts?: string
  /** The credentials a repository is fetched with: its git token's (else the organization's only one of its provider), unsealed; undefined without one. */
  gitCredentials(organizationId: string, repository: GitRepository): Promise<GitCredentials | undefined>
  /** BERTH_ALLOW_PRIVATE_URLS: whether repositories and registries on loopback, private, link-local or metadata addresses (or plain http) may be reached. */
  allowPrivateUrls: boolean
  /** BERTH_DOCKER_PIDS_LIMIT and BERTH_DOCKER_CAP_DROP; absent: their defaults. */
  confinement?: Confinement
  /** BERTH_BUILD_CONTEXT_MAX_BYTES; absent: its default. */
  contextMaxBytes?: number
  /** The front door (docs/front-door.md), when it runs: told of ready instances and of every change to what runs. */
  frontDoor?:
    | {
        instanceReady(instance: { containerId: string; serviceId: string }): Promise<void>
        sync(reason: string): Promise<void>
        /** How long replaced instances keep answering after the front door stopped sending them traffic. */
        drainMs?: number
        /** Loads the routes again once the replaced instances are gone (and `berth serve` waits for them before it stops Caddy). */
        followRetirement(retired: Promise<void>, reason: string): void
      }
    | undefined
  /** Serves an IAC run's state to it alone (docs/iac.md, "State"); absent: runs that keep their state in Berth fail. */
  stateEndpoint?: OpenStateEndpoint
  /** What an external kind's action reads its own credentials with (an Argo CD's); absent: such kinds are refused. */
  external?: { db: Db; secrets: SecretBox }
  /** Debug lines timing each step of a deployment (docs/performance.md, "Where a deploy's time goes"); absent: none. */
  log?: SpanLog | undefined
}

export function createDockerExecutor(deps: DockerExecutorDeps): DeploymentExecutor {
  const { docker } = deps
  const publish: PublishSettings = {
    host: deps.publishHost,
    ports: deps.publishPorts ?? '',
    instanceReady: deps.frontDoor?.instanceReady,
    drainMs: deps.frontDoor?.drainMs ?? 0,
  }

  /** The snapshot's variables as the engine takes them: KEY=value lines, and files for file variables. */
  function delivered(snapshot: ServiceSnapshot): { env: string[]; files: DeliveredFile[] } {
    const open = openVariables(snapshot.variables, deps.openSecret)
    return {
      env: open.filter((variable) => !variable.mountPath).map((variable) => `${variable.key}=${variable.value}`),
      files: open.flatMap((variable) => (variable.mountPath ? [{ path: variable.mountPath, content: variable.value }] : [])),
    }
  }

  /** The image of `source` in the engine: present, pulled from its registry, or built from git. */
  async function readyImage(source: ImageSource, job: DockerJob): Promise<ReadyImage> {
    const pull = (message: string) => job.say('pull', message)
    const pulls = { allowPrivateUrls: deps.allowPrivateUrls }
    if ('public' in source) {
      await job.span('image', () => ensureImage(docker, source.public, undefined, pull, job.signal, pulls))
      return { ok: true, image: source.public, built: false }
    }
    if ('registry' in source) {
      const { registryId, imageName, tag } = source.registry
      const registry = await job.span('registry credentials', () => deps.registry(job.run.organizationId, registryId))
      const image = imageReference(registry.host, imageName, tag)
      await job.span('image', () => ensureImage(docker, image, registry.auth, pull, job.signal, pulls))
      return { ok: true, image, built: false }
    }
    const run = { organizationId: job.run.organizationId, runId: job.run.id }
    const built = await builtFromGit(deps, job.snapshot, run, source.build, (message, level) => job.say('build', message, level), job.signal)
    return built.ok ? { ok: true, image: built.image, built: true } : built
  }

  /** Does the job's action to the workload; a rollout's `retired` (instances still stopping in the background) is not waited for. */
  function perform(workload: Workload, job: DockerJob): Promise<Rollout> {
    switch (workload.type) {
      case 'instances':
        return instances(workload, job)
      case 'run':
        return run(workload, job)
      case 'schedule':
        return schedule(workload, job)
      case 'steps':
        return steps(workload, job)
      case 'nothing':
        job.say(workload.say.step, workload.say.message)
        return Promise.resolve({ ok: true })
      case 'chart':
        return Promise.resolve({
          ok: false,
          message: `a ${job.snapshot.kind.toLowerCase()} service needs a Kubernetes cluster; this environment's cluster deploys to Docker`,
        })
      case 'refused':
        return Promise.resolve({ ok: false, message: workload.message })
      case 'external':
        if (!deps.external)
          return Promise.resolve({ ok: false, message: `this runner cannot reach what deploys ${job.snapshot.kind.toLowerCase()} services` })
        return workload.perform({ ...deps.external, action: job.action, run: job.run, log: job.say, signal: job.signal })
    }
  }

  return {
    async abandoned(run, say) {
      await removeAbandoned(docker, run.id, say)
      await removeRunCheckouts(run.id, say)
    },
    /**
     * One action to one service, step by step: its kind describes the workload; the logs are masked
     * of the service's secrets; the workload is done (its image pulled or built, networked, rolled
     * out or run); the front door follows what runs; what an uninstall or delete leaves goes.
     */
    async run(service, action, signal, context): Promise<ServiceOutcome> {
      const { snapshot, run } = context
      if (!snapshot || !run) return { ok: false, message: 'the deployment has no snapshot of the service' }
      const kind = deps.kinds[snapshot.kind]
      if (!kind) return { ok: false, message: `the Docker executor does not deploy ${snapshot.kind.toLowerCase()} services yet` }
      let mask = (text: string) => text
      try {
        const workload = kind.describe(snapshot, { action, settings: deps.settings, openSecret: deps.openSecret, namespace: undefined })
        // What containers and builds print, in the logs and in a failure's message, may hold the
        // service's secrets: none of them reaches either.
        const secretValues = snapshotSecretValues(snapshot, deps.openSecret, (of, open) => kind.secretValues?.(of as ServiceSnapshot, open) ?? [])
        mask = secretMask([...secretValues, ...(workload.type === 'steps' ? workload.masked : [])])
        const logLine = maskedLogLine(mask)
        const job: DockerJob = {
          docker,
          action,
          snapshot,
          run,
          owner: { serviceId: service.id, environmentId: run.environmentId, executionId: run.id, kind: snapshot.kind },
          say: (step, message, level, at) => context.log(step, logLine(message), level, at),
          signal,
          publish,
          confinement: deps.confinement,
          stopGraceSeconds: stopGraceSeconds(snapshot),
          delivered: () => delivered(snapshot),
          image: (source) => readyImage(source, job),
          stateEndpoint: deps.stateEndpoint,
          span: spans(deps.log, { executionId: run.id, serviceId: service.id }),
        }
        const { retired, routed, ...outcome } = await perform(workload, job)
        // What runs changed (or may have, on a failure): the front door's routes follow, and again once
        // the replaced instances are gone. A rollout that switched the front door to each new instance
        // left nothing for the deployment to wait for: that load runs in the background (a stop, a
        // delete, a failed rollout or a service without web ports waits for it).
        if (deps.frontDoor && action !== 'DEPLOY_DRY_RUN') {
          const { frontDoor } = deps
          const synced = job.span('front door sync', () => frontDoor.sync(`${action.toLowerCase()} of ${service.id}`))
          if (!routed) await synced
          if (retired) frontDoor.followRetirement(retired, `instances of ${service.id} retired`)
        }
        // An uninstalled or deleted service leaves no image built for it, no scratch volume, and no network nothing else uses.
        if (outcome.ok && removes(action)) {
          await removeBuiltImages(docker, service.id)
          if (workload.type === 'steps') await removeScratch(docker, snapshot.kind, service.id)
          if (await removeNetworkIfUnused(docker, run.environmentId))
            job.say('uninstall', `removed the network of the environment (${networkName(run.environmentId)}): nothing of it runs any more`)
        }
        return outcome.ok ? outcome : { ok: false, message: mask(outcome.message) }
      } catch (error) {
        if (signal.aborted) throw error
        if (error instanceof PullRefused) return { ok: false, message: mask(error.message) }
        const message = error instanceof Error ? error.message : String(error)
        return { ok: false, message: mask(`the Docker engine refused: ${message}`) }
      }
    },
  }
}
