import type Docker from 'dockerode'
import type { RunnableTrigger, ServiceType } from '#src/modules/deployments/deployment-states.ts'
import type { GitRepositoryRef } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { snapshotSecretValues } from '#src/modules/services/snapshot-secrets.ts'
import { revealVariables } from '#src/modules/variables/resolved-variables.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { maskedLogLine, secretMask } from '#src/platform/secrets/secret-masking.ts'
import type { DeploymentExecutor, ExecutionContext, ServiceOutcome } from '../executor.ts'
import { type GitCredentials, removeRunCheckouts } from '../git-checkout.ts'
import { type BuildSource, type BuiltImage, builtFromGit } from './built-images.ts'
import { type Confinement, networkName, type Owner, removeNetworkIfUnused } from './docker-objects.ts'
import type { DeliveredFile } from './file-archive.ts'
import { type PullAuth, PullRefused } from './images.ts'
import { type PublishSettings, type Rollout, removeAbandoned, type Say } from './service-instances.ts'

// The Docker executor (docs/docker.md, "Deploying with Docker"): containers, container databases and jobs
// from an image really run in the Docker engine of BERTH_EXECUTOR=docker. Helm services need
// Kubernetes. Applications and jobs built from git are built first: the deployment's commit fetched
// from the repository with the git token, its Dockerfile built by the engine (docs/docker.md, "Deploying
// with Docker"). What it does to a service of each kind is that kind's entry (`DockerKind`), which
// the kind's folder writes (`<kind>.docker.ts`) and the wiring hands in: the executor names no kind.

/** A database's storage (docker-objects.ts), where tests look for it. */
export { databaseVolume } from './docker-objects.ts'

/** The settings of IAC services' runs: the engines' images (`ENGINE=image-with-{version},…`) and the PostgreSQL their `pg` backend uses. */
export interface IacSettings {
  images: string
  stateUrl: string
}

/** What a kind's entry is handed to do one action to one of its services in the Docker engine. */
export interface DockerAction {
  docker: Docker
  action: RunnableTrigger
  owner: Owner
  organizationId: string
  /** Reports a line of the deployment's logs (masked). */
  say: Say
  signal: AbortSignal
  /** Where public ports are published. */
  publish: PublishSettings
  /** Opens the snapshot's sealed secrets (a database's password), to hand to the engine only. */
  secrets: SecretBox
  /** Where a registry's images are and how to pull them. */
  registry: DockerExecutorDeps['registry']
  /** BERTH_DOCKER_DATABASE_IMAGES. */
  databaseImages: string
  /** BERTH_IAC_IMAGES and BERTH_IAC_STATE_URL: what IAC services' runs are built from and keep their state in (docs/iac.md). */
  iac: IacSettings
  /** The PID limit and dropped capabilities every instance and run gets (BERTH_DOCKER_PIDS_LIMIT, BERTH_DOCKER_CAP_DROP). */
  confinement: Confinement | undefined
  /** How images are pulled: whether registries on private addresses may be reached (BERTH_GIT_ALLOW_PRIVATE_URLS). */
  pulls: { allowPrivateUrls: boolean }
  /** How long a stopping instance gets before it is killed: the service's `deployment.termination_grace_period_seconds`, else 10 s. */
  stopGraceSeconds: number
  /** The snapshot's variables as the engine takes them: KEY=value lines, and files for file variables. */
  delivered(): { env: string[]; files: DeliveredFile[] }
  /** The image of `source` at its commit (built-images.ts), the build's lines under `build`. */
  builtImage(source: BuildSource): Promise<BuiltImage>
}

/** What the Docker executor needs of a kind: how it does an action to one of its services. */
export interface DockerKind<Config = unknown> {
  /** Does the action; a rollout's `retired` (instances still stopping in the background) is not waited for. */
  perform(snapshot: ServiceSnapshot<Config>, act: DockerAction): Promise<Rollout>
  /**
   * A dry run (DEPLOY_DRY_RUN): what `perform` does for a deploy up to changing what runs, saying
   * what would change. A kind without one cannot be dry-run: its dry run fails, changing nothing.
   */
  dryRun?(snapshot: ServiceSnapshot<Config>, act: DockerAction): Promise<ServiceOutcome>
  /** The values of its configuration the logs must never show (a database's password), besides the secret variables. */
  secretValues?(snapshot: ServiceSnapshot<Config>, secrets: SecretBox): string[]
}

/** The Docker executor's table, one entry per kind it deploys, filled by the kinds; a kind without one is refused (docs/adding-a-kind.md). */
export type DockerKinds = Partial<Record<ServiceType, DockerKind>>

export interface DockerExecutorDeps {
  docker: Docker
  /** What it does to a service of each kind (the kinds' `docker` entries). */
  kinds: DockerKinds
  /** Opens the snapshot's sealed secrets (variables, a database's password), to hand to the engine only. */
  secrets: SecretBox
  /** Where a registry's images are and how to pull them; the registry's credentials unsealed. */
  registry(organizationId: string, registryId: string): Promise<{ host: string | undefined; auth: PullAuth | undefined }>
  /** The host address public ports are published on (BERTH_DOCKER_PUBLISH_HOST). */
  publishHost: string
  /** The host ports they may take (BERTH_DOCKER_PUBLISH_PORTS, `from-to`); empty: any free port. */
  publishPorts?: string
  /** Where databases' official images are (BERTH_DOCKER_DATABASE_IMAGES): `docker.io/library`, or a mirror. */
  databaseImages: string
  /** BERTH_IAC_IMAGES and BERTH_IAC_STATE_URL; absent: the engines' official images, and no state store of Berth's. */
  iac?: IacSettings
  /** The credentials a repository is fetched with: its git token's (else the organization's only one of its provider), unsealed; undefined without one. */
  gitCredentials(organizationId: string, repository: GitRepositoryRef): Promise<GitCredentials | undefined>
  /** BERTH_GIT_ALLOW_PRIVATE_URLS: whether repositories on loopback, private, link-local or metadata addresses (or plain http) may be fetched. */
  allowPrivateUrls: boolean
  /** BERTH_DOCKER_PIDS_LIMIT and BERTH_DOCKER_CAP_DROP; absent: their defaults. */
  confinement?: Confinement
  /** BERTH_BUILD_CONTEXT_MAX_BYTES; absent: its default. */
  contextMaxBytes?: number
  /** The front door (docs/front-door.md), when it runs: told of ready instances and of every change to what runs. */
  frontDoor?: { instanceReady(instance: { containerId: string; serviceId: string }): Promise<void>; sync(reason: string): Promise<void> } | undefined
}

/** How long a stopping instance gets before it is killed, when its settings do not say (databases have none). */
const STOP_GRACE_SECONDS = 10

/** The service's `deployment.termination_grace_period_seconds` (its advanced settings, as of the trigger). */
function stopGrace(snapshot: ServiceSnapshot): number {
  const seconds = snapshot.advancedSettings?.['deployment.termination_grace_period_seconds']
  return typeof seconds === 'number' ? seconds : STOP_GRACE_SECONDS
}

export function createDockerExecutor(deps: DockerExecutorDeps): DeploymentExecutor {
  const { docker } = deps
  const publish: PublishSettings = { host: deps.publishHost, ports: deps.publishPorts ?? '', instanceReady: deps.frontDoor?.instanceReady }

  /** The snapshot's variables as the engine takes them: KEY=value lines, and files for file variables. */
  function delivered(snapshot: ServiceSnapshot): { env: string[]; files: DeliveredFile[] } {
    const revealed = revealVariables(snapshot.variables, deps.secrets)
    return {
      env: revealed.filter((variable) => !variable.mountPath).map((variable) => `${variable.key}=${variable.value}`),
      files: revealed.flatMap((variable) => (variable.mountPath ? [{ path: variable.mountPath, content: variable.value }] : [])),
    }
  }

  /** The values the logs must never show: the secret variables, and what its kind names (a database's password). */
  const secretValues = (snapshot: ServiceSnapshot) =>
    snapshotSecretValues(snapshot, deps.secrets, (of, secrets) => deps.kinds[of.kind]?.secretValues?.(of as ServiceSnapshot, secrets) ?? [])

  /** Does `action` to the service, by its kind's entry. */
  function perform(
    snapshot: ServiceSnapshot,
    owner: Owner,
    organizationId: string,
    action: RunnableTrigger,
    say: Say,
    signal: AbortSignal,
  ): Promise<Rollout> {
    const kind = deps.kinds[snapshot.kind]
    if (!kind) return Promise.resolve({ ok: false, message: `the Docker executor does not deploy ${snapshot.kind.toLowerCase()} services yet` })
    if (action === 'DEPLOY_DRY_RUN' && !kind.dryRun)
      return Promise.resolve({
        ok: false,
        message: `the Docker executor cannot dry-run ${snapshot.kind.toLowerCase()} services yet: nothing was changed`,
      })
    const act: DockerAction = {
      docker,
      action,
      owner,
      organizationId,
      say,
      signal,
      publish,
      secrets: deps.secrets,
      registry: deps.registry,
      databaseImages: deps.databaseImages,
      iac: deps.iac ?? { images: '', stateUrl: '' },
      confinement: deps.confinement,
      pulls: { allowPrivateUrls: deps.allowPrivateUrls },
      stopGraceSeconds: stopGrace(snapshot),
      delivered: () => delivered(snapshot),
      builtImage: (source) =>
        builtFromGit(deps, snapshot, { organizationId, runId: owner.executionId }, source, (message, level) => say('build', message, level), signal),
    }
    return action === 'DEPLOY_DRY_RUN' && kind.dryRun ? kind.dryRun(snapshot, act) : kind.perform(snapshot, act)
  }

  return {
    async abandoned(run, say) {
      await removeAbandoned(docker, run.id, say)
      await removeRunCheckouts(run.id, say)
    },
    async run(service, action, signal, context: ExecutionContext): Promise<ServiceOutcome> {
      const { snapshot, run } = context
      if (!snapshot || !run) return { ok: false, message: 'the deployment has no snapshot of the service' }
      const owner: Owner = { serviceId: service.id, environmentId: run.environmentId, executionId: run.id, kind: snapshot.kind }
      let mask = (text: string) => text
      try {
        // What containers and builds print, in the logs and in a failure's message, may hold the
        // service's secrets: none of them reaches either.
        mask = secretMask(secretValues(snapshot))
        const logLine = maskedLogLine(mask)
        const say: Say = (step, message, level, at) => context.log(step, logLine(message), level, at)
        // What is still stopping in the background is not the runner's to wait for.
        const { retired, ...outcome }: Rollout = await perform(snapshot, owner, run.organizationId, action, say, signal)
        // What runs changed (or may have, on a failure): the front door's routes follow, and again once the replaced instances are gone.
        if (deps.frontDoor && action !== 'DEPLOY_DRY_RUN') {
          const { frontDoor } = deps
          await frontDoor.sync(`${action.toLowerCase()} of ${service.id}`)
          void retired?.then(() => frontDoor.sync(`instances of ${service.id} retired`))
        }
        if (outcome.ok && (action === 'UNINSTALL' || action === 'DELETE') && (await removeNetworkIfUnused(docker, run.environmentId)))
          say('uninstall', `removed the network of the environment (${networkName(run.environmentId)}): nothing of it runs any more`)
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
