import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { loadDockerode } from '#src/modules/executors/docker/docker-engine.ts'
import { runHelm } from '#src/modules/executors/kubernetes/helm-program.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'

// Asking a cluster's engine directly: the Docker engine at DOCKER_HOST through its API, a
// Kubernetes cluster's API server through kubectl with the cluster's kubeconfig (in a private
// temporary directory removed after). Every call has a timeout.

export type EngineKind = 'SIMULATED' | 'DOCKER' | 'KUBERNETES'

/** Where a cluster deploys, and what reaches it. */
export interface ClusterEngine {
  kind: EngineKind
  /** The kubeconfig in clear, for a Kubernetes cluster that has one. */
  kubeconfig?: string | undefined
}

export interface ClusterEngineSettings {
  secrets: SecretBox
  /** What the default clusters deploy with (BERTH_EXECUTOR). */
  defaultExecutor: 'SIMULATED' | 'DOCKER'
  kubectlPath: string
  timeoutMs: number
}

export function clusterEngines({ secrets, defaultExecutor, kubectlPath, timeoutMs }: ClusterEngineSettings) {
  const engineOf = (cluster: { isDefault: boolean; executor: string; kubeconfigSealed: Buffer | null }): ClusterEngine => {
    const kind = (cluster.isDefault ? defaultExecutor : cluster.executor) as EngineKind
    return kind === 'KUBERNETES' ? { kind, kubeconfig: cluster.kubeconfigSealed ? secrets.open(cluster.kubeconfigSealed) : undefined } : { kind }
  }

  /** kubectl with the kubeconfig: its standard output; rejects when it fails or takes longer than the timeout. */
  async function kubectl(kubeconfig: string, args: string[]): Promise<string> {
    const home = await mkdtemp(path.join(os.tmpdir(), 'berth-kubectl-cluster-'))
    try {
      const file = path.join(home, 'kubeconfig')
      await writeFile(file, kubeconfig, { mode: 0o600 })
      const { stdout } = await runHelm(kubectlPath, [...args, '--kubeconfig', file], {
        signal: AbortSignal.timeout(timeoutMs),
        env: { HOME: home },
        program: 'kubectl',
        quietStdout: true,
      })
      return stdout
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  }

  async function docker() {
    const Docker = await loadDockerode()
    return new Docker()
  }

  /** `work` unless it takes longer than the timeout. */
  const timed = <T>(work: Promise<T>): Promise<T> =>
    Promise.race([
      work,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the engine did not answer in time')), timeoutMs).unref()),
    ])

  return {
    engineOf,
    kubectl,
    docker,
    timed,

    /** Whether the engine answers: the simulator always; Docker to a ping; Kubernetes with its version. */
    async engineReady(engine: ClusterEngine): Promise<boolean> {
      try {
        if (engine.kind === 'SIMULATED') return true
        if (engine.kind === 'DOCKER') {
          await timed((await docker()).ping())
          return true
        }
        if (!engine.kubeconfig) return false
        const answer = JSON.parse(await kubectl(engine.kubeconfig, ['version', '--output', 'json'])) as { serverVersion?: { gitVersion?: string } }
        return typeof answer.serverVersion?.gitVersion === 'string'
      } catch {
        return false
      }
    },
  }
}

export type ClusterEngines = ReturnType<typeof clusterEngines>
