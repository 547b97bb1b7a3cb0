import type { PortRange } from './config.ts'
import { serviceAlerting } from './modules/alerting/service-alerting.ts'
import { clusterAccess } from './modules/clusters/cluster-access.ts'
import { connectDocker, loadDockerode } from './modules/executors/docker/docker-engine.ts'
import { createDockerExecutor, type DockerExecutorDeps } from './modules/executors/docker/docker-executor.ts'
import type { Confinement } from './modules/executors/docker/docker-objects.ts'
import type { DeploymentExecutor } from './modules/executors/executor.ts'
import { repositoryCredentials } from './modules/executors/git-credentials.ts'
import { createKubernetesExecutor } from './modules/executors/kubernetes/helm-executor.ts'
import { type KubernetesSettings, kubernetesOutput } from './modules/executors/kubernetes/kubernetes-engine.ts'
import type { ServiceOutput } from './modules/executors/service-output.ts'
import { opener } from './modules/executors/snapshot-secrets.ts'
import type { KindWorkloads } from './modules/executors/workload.ts'
import { registryPullAccess } from './modules/organization-credentials/container-registries/registry-pull-access.ts'
import { chartRepositoryAccess } from './modules/organization-credentials/helm-repositories/chart-repository-access.ts'
import { openStateEndpoint } from './modules/services/kinds/iac/iac-state-endpoint.ts'
import { createIacStatesRepository } from './modules/services/kinds/iac/iac-states.repository.ts'
import type { Db } from './platform/db/database.ts'
import type { SecretBox } from './platform/secrets/secret-box.ts'

// The executors as Berth's processes run them: each handed what it reads of other modules (the
// organization's registries, helm repositories and git tokens, the environment's cluster), their
// secrets opened with the server's SecretBox. The executors import none of those modules.

/** What an external kind's action reads its own credentials with. */
const externals = (db: Db, secrets: SecretBox) => ({ db, secrets })

/**
 * The Docker executor on the engine at DOCKER_HOST; rejects, saying why, when the engine does not
 * answer (the process must not start).
 */
export async function connectDockerExecutor(
  db: Db,
  secrets: SecretBox,
  settings: {
    publishHost: string
    publishPorts: PortRange | undefined
    databaseImages: string
    iac?: { images: string }
    allowPrivateUrls: boolean
    confinement?: Confinement
    contextMaxBytes?: number
    kinds: KindWorkloads
    frontDoor?: DockerExecutorDeps['frontDoor']
    log?: DockerExecutorDeps['log']
  },
): Promise<{ executor: DeploymentExecutor; version: string }> {
  const { docker, version } = await connectDocker()
  const { publishPorts, databaseImages, iac, ...rest } = settings
  const iacStates = createIacStatesRepository(db)
  const executor = createDockerExecutor({
    docker,
    ...rest,
    settings: { databaseImages, iacImages: iac?.images ?? '' },
    stateEndpoint: (serviceId, host) => openStateEndpoint(iacStates, serviceId, host),
    publishPorts: publishPorts ? `${publishPorts.from}-${publishPorts.to}` : '',
    openSecret: opener(secrets),
    gitCredentials: repositoryCredentials(db, secrets),
    registry: registryPullAccess(db, secrets),
    external: externals(db, secrets),
  })
  return { executor, version }
}

/**
 * The executor of KUBERNETES clusters. It needs nothing to start: helm and kubectl are run, the
 * cluster reached, and the runner's Docker engine (DOCKER_HOST) asked to build an image, per
 * deployment. `kinds`: what a service of each kind runs (the registry's table).
 */
export function connectKubernetesExecutor(db: Db, secrets: SecretBox, settings: KubernetesSettings, kinds: KindWorkloads): DeploymentExecutor {
  const cluster = clusterAccess(db, secrets)
  return createKubernetesExecutor({
    ...settings,
    kinds,
    gitCredentials: repositoryCredentials(db, secrets),
    registry: registryPullAccess(db, secrets),
    chartRepository: chartRepositoryAccess(db, secrets),
    openSecret: opener(secrets),
    async docker() {
      const docker = new (await loadDockerode())()
      await docker.version()
      return docker
    },
    kubeconfig: cluster.kubeconfig,
    imageRegistry: cluster.imageRegistry,
    ingressSettings: cluster.ingressSettings,
    alerting: serviceAlerting(db, secrets, { groupWaitMs: settings.alertGroupWaitMs ?? 30_000 }),
    recordClusterVersions: cluster.recordClusterVersions,
    external: externals(db, secrets),
  })
}

/** What the services of environments whose cluster deploys to Kubernetes print, from their pods, for the service logs. */
export function kubernetesServiceOutput(db: Db, secrets: SecretBox, settings: Pick<KubernetesSettings, 'kubectlPath'>): ServiceOutput {
  return kubernetesOutput(clusterAccess(db, secrets).kubernetesCluster, settings)
}
