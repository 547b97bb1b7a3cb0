import type { ExecutionContext } from '../executor.ts'
import { runHelm } from './helm-program.ts'
import { kubectlSkew, type ProgramVersion, parseVersion } from './program-versions.ts'

// The versions of the cluster's API server and of the runner's kubectl, learned with `kubectl
// version` each time the executor acts on the cluster: the deployment's log says them (a warning
// when they are further apart than Kubernetes supports) and the cluster's status reports them.

export interface ClusterVersions {
  kubernetes: ProgramVersion
  kubectl: ProgramVersion
}

/** How long the cluster may take to say its version before the action goes on without it. */
const VERSION_TIMEOUT_MS = 10_000

interface VersionAnswer {
  clientVersion?: { gitVersion?: string }
  serverVersion?: { gitVersion?: string }
}

/**
 * The versions, or undefined when they cannot be learned (no kubectl, an unreachable cluster):
 * a deployment does not fail for that. Rejects only when `signal` aborts.
 */
export async function clusterVersions(
  call: { kubectlPath: string; kubeconfigPath: string; home: string; signal: AbortSignal },
  log: ExecutionContext['log'],
): Promise<ClusterVersions | undefined> {
  let answer: VersionAnswer
  try {
    const { stdout } = await runHelm(call.kubectlPath, ['version', '--output', 'json', '--kubeconfig', call.kubeconfigPath], {
      signal: AbortSignal.any([call.signal, AbortSignal.timeout(VERSION_TIMEOUT_MS)]),
      env: { HOME: call.home },
      program: 'kubectl',
      quietStdout: true,
    })
    answer = JSON.parse(stdout) as VersionAnswer
  } catch (error) {
    if (call.signal.aborted) throw error
    return undefined
  }
  const kubernetes = parseVersion(answer.serverVersion?.gitVersion ?? '')
  const kubectl = parseVersion(answer.clientVersion?.gitVersion ?? '')
  if (!kubernetes || !kubectl) return undefined
  log('cluster', `the cluster runs Kubernetes ${kubernetes.text}; the runner's kubectl is ${kubectl.text}`)
  const skew = kubectlSkew(kubectl, kubernetes)
  if (skew) log('cluster', skew, 'WARNING')
  return { kubernetes, kubectl }
}
