import type Docker from 'dockerode'
import { loadDockerode } from '#src/modules/executors/docker/docker-engine.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { DatabaseShell } from './database-shell.ts'
import { dockerShell } from './docker-shell.ts'
import { kubernetesShell } from './kubernetes-shell.ts'

// Where a database runs, as backups need to know it: the executor of its environment's cluster (a
// default cluster deploys with BERTH_EXECUTOR's), and the shell of its container or pod there.

export interface ClusterOfDatabase {
  executor: string
  isDefault: boolean
  kubeconfigSealed: Buffer | null
}

/** DOCKER, KUBERNETES or SIMULATED: what runs the database. */
export const executorOf = (cluster: ClusterOfDatabase | undefined, defaultExecutor: 'SIMULATED' | 'DOCKER') =>
  !cluster ? 'SIMULATED' : cluster.isDefault ? defaultExecutor : cluster.executor

/** Why nothing can be dumped from a database that runs nowhere. */
export const SIMULATED_DATABASE = 'the database runs in the simulator (its cluster deploys nothing): there is no data to back up or restore'

export interface DatabaseReachSettings {
  secrets: SecretBox
  defaultExecutor: 'SIMULATED' | 'DOCKER'
  /** BERTH_KUBECTL_PATH. */
  kubectlPath: string
}

/** Reaches databases' containers and pods; the Docker engine is connected at the first use. */
export function createDatabaseReach(settings: DatabaseReachSettings) {
  let docker: Docker | undefined
  return {
    async shellOf(service: { id: string; environmentId: string }, cluster: ClusterOfDatabase | undefined): Promise<DatabaseShell> {
      const executor = executorOf(cluster, settings.defaultExecutor)
      if (executor === 'DOCKER') {
        docker ??= new (await loadDockerode())()
        return dockerShell(docker, service.id)
      }
      if (executor === 'KUBERNETES') {
        if (!cluster?.kubeconfigSealed) throw new Error("the database's cluster has no kubeconfig")
        return kubernetesShell({
          kubectlPath: settings.kubectlPath,
          kubeconfig: settings.secrets.open(cluster.kubeconfigSealed),
          environmentId: service.environmentId,
          serviceId: service.id,
        })
      }
      throw new Error(SIMULATED_DATABASE)
    },
  }
}
