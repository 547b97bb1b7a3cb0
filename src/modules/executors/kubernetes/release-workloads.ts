import type { ServiceOutcome } from '../executor.ts'
import { HelmFailed, runHelm } from './helm-program.ts'
import { renderedObjects } from './rendered-objects.ts'

// STOP and RESTART of a helm release (docs/kubernetes.md, "Deploying to Kubernetes"): its workloads are the
// Deployments, StatefulSets (and, for a restart, DaemonSets) of `helm get manifest`, what helm
// installed whatever labels the chart gives them; kubectl scales them to zero (`kubectl scale
// --replicas=0`) or restarts them (`kubectl rollout restart`), argv only, with the cluster's
// kubeconfig file. A later deploy's `helm upgrade` puts back the replicas the chart sets.

export interface ReleaseCall {
  helmPath: string
  kubectlPath: string
  kubeconfigPath: string
  /** The private work directory, HOME of both programs. */
  home: string
  release: string
  namespace: string
  signal: AbortSignal
  log: (step: string, message: string, level?: 'INFO' | 'WARNING' | 'ERROR') => void
}

const STOPPED_KINDS = new Set(['Deployment', 'StatefulSet'])
const RESTARTED_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet'])

/** The release's objects as helm installed them; undefined when there is no such release. */
async function releaseObjects(call: ReleaseCall) {
  try {
    const { stdout } = await runHelm(
      call.helmPath,
      ['get', 'manifest', call.release, '--namespace', call.namespace, '--kubeconfig', call.kubeconfigPath],
      // The manifest holds the values (secrets among them): never in the log.
      { signal: call.signal, env: { HOME: call.home }, quietStdout: true },
    )
    return renderedObjects(stdout)
  } catch (error) {
    if (error instanceof HelmFailed && /release: not found/.test(error.message)) return undefined
    throw error
  }
}

/** Scales the release's Deployments and StatefulSets to zero (STOP), or restarts its workloads (RESTART). */
export async function releaseWorkloadAction(action: 'STOP' | 'RESTART', call: ReleaseCall): Promise<ServiceOutcome> {
  const step = action === 'STOP' ? 'stop' : 'restart'
  const objects = await releaseObjects(call)
  if (!objects) {
    call.log(step, `release ${call.release} is not installed in ${call.namespace}: nothing to ${step}`, 'WARNING')
    return { ok: true }
  }
  const kinds = action === 'STOP' ? STOPPED_KINDS : RESTARTED_KINDS
  if (action === 'STOP') {
    for (const object of objects.filter((found) => found.kind === 'DaemonSet')) {
      call.log(step, `DaemonSet/${object.name} cannot be scaled to zero: it keeps running`, 'WARNING')
    }
  }
  // One kubectl call per namespace (another than the release's only with allow_cluster_wide_resources).
  const byNamespace = new Map<string, string[]>()
  for (const object of objects) {
    if (!kinds.has(object.kind) || object.name === '') continue
    const namespace = object.namespace ?? call.namespace
    byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), `${object.kind.toLowerCase()}.apps/${object.name}`])
  }
  if (byNamespace.size === 0) {
    call.log(step, `release ${call.release} has no ${[...kinds].join(', ')}: nothing to ${step}`)
    return { ok: true }
  }
  for (const [namespace, targets] of byNamespace) {
    const verb = action === 'STOP' ? ['scale', '--replicas=0'] : ['rollout', 'restart']
    call.log(step, `kubectl ${verb.join(' ')} ${targets.join(' ')} --namespace ${namespace}`)
    await runHelm(call.kubectlPath, [...verb, ...targets, '--namespace', namespace, '--kubeconfig', call.kubeconfigPath], {
      signal: call.signal,
      env: { HOME: call.home },
      program: 'kubectl',
      onLine: (line, stream) => call.log(step, line, stream === 'stderr' ? 'WARNING' : 'INFO'),
    })
  }
  return { ok: true }
}
