import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type Docker from 'dockerode'
import type { RegistryPullAccess } from '#src/modules/container-registries/registry-pull-access.ts'
import type { RunnableTrigger, ServiceType } from '#src/modules/deployments/deployment-states.ts'
import type { GitRepositoryRef } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { type BuildSource, builtFromGit } from '../docker/built-images.ts'
import { dockerAddress } from '../docker/docker-engine.ts'
import { builtImageRepository, removeBuiltImages } from '../docker/image-builds.ts'
import { pushImage } from '../docker/image-pushes.ts'
import { imageReference } from '../docker/images.ts'
import type { ServiceOutcome } from '../executor.ts'
import type { GitCredentials } from '../git-checkout.ts'
import { BUILTIN_CHART, type ChartOwner, type ChartValues, type IngressSettings, type OpenVariable } from './builtin-chart-values.ts'
import type { ReleaseContext } from './release-context.ts'
import { renderCheckInstall, uninstallRelease } from './release-steps.ts'

// Services on a Kubernetes cluster (docs/kubernetes.md, "Deploying to Kubernetes"): what the executor
// does to a service of each kind is that kind's entry (`KubernetesKind`, written in the kind's folder
// as `<kind>.kubernetes.ts` and handed in at wiring); this file gives the entries what they act with.
// Containers, container databases and jobs: each service is a release of the chart Berth ships, installed by the same steps as
// a helm service's chart (render, the cluster-wide check, `helm upgrade --install`), with `--wait`
// so that the deployment ends when Kubernetes says the workload is ready (a Job: complete).
// Applications and jobs built from git are built by the runner's Docker engine (built-images.ts,
// as the Docker executor builds them) and pushed to the cluster's image registry, which the
// release pulls them from with an imagePullSecret of that registry's credentials.

export interface BuiltinDeps {
  /** Opens a sealed (base64) secret: a variable, a database's password. */
  openSecret(sealed: string): string
  /** A container registry's host and credentials (unsealed), for an image and its pull secret. */
  registry?(organizationId: string, registryId: string): Promise<RegistryPullAccess>
  /** BERTH_DOCKER_DATABASE_IMAGES: where databases' official images are; `docker.io/library` by default. */
  databaseImages?: string
  /** BERTH_IAC_IMAGES: the IAC engines' images; '' (their official ones) by default. */
  iacImages?: string
  /** The runner's Docker engine (DOCKER_HOST, else the local socket), which builds images for the cluster; rejects when it does not answer. */
  docker?(): Promise<Docker>
  /** The environment's cluster's image_registry_id: where images built for it are pushed; null without one. */
  imageRegistry?(organizationId: string, environmentId: string): Promise<string | null>
  /** The credentials a git repository is fetched with (its git token's), unsealed; none by default. */
  gitCredentials?(organizationId: string, repository: GitRepositoryRef): Promise<GitCredentials | undefined>
  /** BERTH_GIT_ALLOW_PRIVATE_URLS; false by default. */
  allowPrivateUrls?: boolean
  /**
   * The environment's cluster's Ingress settings (its advanced settings `berth.ingress.apps_domain`
   * and `berth.ingress.cert_manager_cluster_issuer`, docs/front-door.md); absent: the derived hosts.
   */
  ingressSettings?(organizationId: string, environmentId: string): Promise<IngressSettings>
}

/** How long a rollout may take before helm gives up (services have no timeout of their own). */
export const ROLLOUT_TIMEOUT_SECONDS = 600

/** An image a release pulls: its reference, and the registry's host and credentials for its pull secret. */
export interface PulledImage {
  reference: string
  registry: RegistryPullAccess
}

/** What a kind's entry is handed to do one action to one of its services on a Kubernetes cluster. */
export interface KubernetesAction {
  action: RunnableTrigger
  /** The release's steps: its name, namespace, helm, the deployment's logs (`steps.context.log`). */
  steps: ReleaseContext
  owner: ChartOwner
  /** Opens a sealed (base64) secret (a database's password). */
  openSecret(sealed: string): string
  /** BERTH_DOCKER_DATABASE_IMAGES, `docker.io/library` by default. */
  databaseImages: string
  /** BERTH_IAC_IMAGES; '' for the engines' official images. */
  iacImages: string
  /** The snapshot's variables, secrets opened. */
  variables(): OpenVariable[]
  /** An image of a registry of the organization. */
  image(registryId: string, imageName: string, tag: string): Promise<PulledImage>
  /**
   * The image of `source`, built by the runner's Docker engine and pushed to the cluster's image
   * registry (`what` names it in the errors); an outcome when it cannot be.
   */
  pushed(what: string, source: BuildSource): Promise<{ ok: true; pulled: PulledImage } | { ok: false; message: string }>
  /** Where the release's Ingress hosts are, and the cert-manager issuer of its TLS section. */
  ingress(): Promise<IngressSettings>
  /** Installs the chart Berth ships with `values` (`helm upgrade --install`, with `wait`). */
  installChart(values: ChartValues, timeoutSeconds: number, wait: string[]): Promise<ServiceOutcome>
  /** Uninstalls the service's release. */
  uninstall(): Promise<ServiceOutcome>
  /** The service's own chart (a helm service's configuration): installed, or its workloads stopped or restarted with kubectl. */
  ownChart: { install(): Promise<ServiceOutcome>; workloads(action: 'STOP' | 'RESTART'): Promise<ServiceOutcome> }
}

/** What the Kubernetes executor needs of a kind: how it does an action to one of its services. */
export interface KubernetesKind<Config = unknown> {
  /** Does the action; a dry run (DEPLOY_DRY_RUN) goes through a deploy's steps, and its release is compared instead of installed (release-steps.ts). */
  perform(snapshot: ServiceSnapshot<Config>, act: KubernetesAction): Promise<ServiceOutcome>
  /** The values of its configuration a dry run's comparison must never show (a database's password), besides the secret variables. */
  secretValues?(snapshot: ServiceSnapshot<Config>, openSecret: (sealed: string) => string): string[]
}

/** The Kubernetes executor's table, one entry per kind it deploys, filled by the kinds; a kind without one is refused (docs/adding-a-kind.md). */
export type KubernetesKinds = Partial<Record<ServiceType, KubernetesKind>>

/** Installs the built-in chart with `values`, written to a private values file (they hold the variables in clear). */
async function installChart(steps: ReleaseContext, values: ChartValues, timeoutSeconds: number, wait: string[]): Promise<ServiceOutcome> {
  const file = path.join(steps.dir, 'berth-values.json')
  await writeFile(file, JSON.stringify(values), { mode: 0o600 })
  steps.context.log('render', `the chart Berth ships: a ${values.workload}${values.ports.length > 0 ? ' and its Service' : ''}`)
  return renderCheckInstall(steps, { path: BUILTIN_CHART, values: ['--values', file], allowClusterWide: false, timeoutSeconds, extra: wait })
}

/** What a kind's entry acts with (`KubernetesAction`), but the service's own chart, which the helm executor adds. */
export function kubernetesAction(
  deps: BuiltinDeps,
  steps: ReleaseContext,
  snapshot: ServiceSnapshot,
  action: RunnableTrigger,
  run: { id: string; organizationId: string; environmentId: string },
): Omit<KubernetesAction, 'ownChart'> {
  const owner: ChartOwner = { serviceId: snapshot.serviceId, environmentId: run.environmentId, executionId: run.id }
  const variables = (): OpenVariable[] =>
    snapshot.variables.map((variable) => ({
      key: variable.key,
      value: variable.isSecret ? deps.openSecret(variable.sealed ?? '') : (variable.value ?? ''),
      mountPath: variable.mountPath,
    }))
  const image = async (registryId: string, imageName: string, tag: string): Promise<PulledImage> => {
    if (!deps.registry) throw new Error('this runner cannot read container registries')
    const registry = await deps.registry(run.organizationId, registryId)
    return { reference: imageReference(registry.host, imageName, tag), registry }
  }

  /**
   * The image of `source`, built by the runner's Docker engine and pushed to the cluster's image
   * registry as `{host}/berth/{service id}:{commit}`; an outcome when it cannot be.
   */
  async function pushed(what: string, source: BuildSource): Promise<{ ok: true; pulled: PulledImage } | { ok: false; message: string }> {
    const registryId = deps.imageRegistry ? await deps.imageRegistry(run.organizationId, run.environmentId) : null
    if (!registryId)
      return {
        ok: false,
        message: `${what} built from git on a Kubernetes cluster needs the cluster's image_registry_id: set it (editCluster) to a container registry the cluster pulls from, where Berth pushes the image it builds`,
      }
    let docker: Docker
    try {
      if (!deps.docker) throw new Error('this runner has no Docker engine')
      docker = await deps.docker()
    } catch (error) {
      return {
        ok: false,
        message: `an image build for a Kubernetes cluster needs a Docker engine on the runner, and the one at ${dockerAddress()} does not answer: ${(error as Error).message}`,
      }
    }
    const log = (step: string) => (message: string, level?: 'INFO' | 'WARNING' | 'ERROR') => steps.context.log(step, message, level)
    const git = { docker, gitCredentials: deps.gitCredentials ?? (async () => undefined), allowPrivateUrls: deps.allowPrivateUrls ?? false }
    const built = await builtFromGit(git, snapshot, { organizationId: run.organizationId, runId: run.id }, source, log('build'), steps.signal)
    if (!built.ok) return built
    const pulled = await image(registryId, builtImageRepository(snapshot.serviceId), built.commit)
    await pushImage(docker, built.image, pulled.reference, pulled.registry.auth, log('push'), steps.signal, {
      allowPrivateUrls: deps.allowPrivateUrls ?? false,
    })
    // The registry's tag was only for the push; the runner keeps the last build (a restart reuses it).
    await docker
      .getImage(pulled.reference)
      .remove()
      .catch(() => undefined)
    await removeBuiltImages(docker, snapshot.serviceId, built.image)
    return { ok: true, pulled }
  }

  return {
    action,
    steps,
    owner,
    openSecret: deps.openSecret,
    databaseImages: deps.databaseImages ?? 'docker.io/library',
    iacImages: deps.iacImages ?? '',
    variables,
    image,
    pushed,
    ingress: async () =>
      deps.ingressSettings ? deps.ingressSettings(run.organizationId, run.environmentId) : { appsDomain: undefined, clusterIssuer: null },
    installChart: (values, timeoutSeconds, wait) => installChart(steps, values, timeoutSeconds, wait),
    uninstall: () => uninstallRelease(steps),
  }
}
