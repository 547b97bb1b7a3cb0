import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { byTime, type FollowedEngine, followOutput, nanosOf } from '../followed-output.ts'
import type { OutputCursor, OutputLine, OutputService, ServiceOutput } from '../service-output.ts'
import { namespaceOf, releaseName } from './helm-executor.ts'
import { HelmFailed, runHelm } from './helm-program.ts'

// The Kubernetes executor's answer to "what did this service print" (service-output.ts): the log
// of each pod of the service in its environment's namespace, found by the `berth.service-id` label
// the built-in chart puts on every pod (a helm service's own chart: by its release's
// `app.kubernetes.io/instance` label, podSelector), read with `kubectl logs --timestamps` (argv only, the
// cluster's kubeconfig in a private temporary file). The kubelet keeps stdout and stderr merged:
// each line's stream is null.

export interface KubernetesServiceOutputDeps {
  /** BERTH_KUBECTL_PATH. */
  kubectlPath: string
  /** Whether the environment's cluster deploys to Kubernetes (one small query; no cluster call when not). */
  deploysToKubernetes(environmentId: string): Promise<boolean>
  /** The kubeconfig of the environment's cluster, in clear; undefined when none is stored. */
  kubeconfig(environmentId: string): Promise<string | undefined>
  /** How often a follower looks for pods that started or stopped (a redeploy's new pods). */
  pollMs?: number
  /** Where the kubeconfig's directory is made; the system's temporary directory by default. */
  workRoot?: string
}

/** A line longer than this is cut. */
const MAX_LINE_LENGTH = 16_384

interface Pod {
  name: string
  uid: string
  labels: Record<string, string>
  createdAt: string
  phase: string
}

type Instance = Pick<OutputLine, 'source' | 'instance' | 'instanceName' | 'executionId'>

/** A pod of the service, with which instance it is. */
type PodInstance = { pod: Pod; instance: Instance }

/**
 * How the service's pods are found: the `berth.service-id` label the built-in chart puts on them, or
 * for a helm service's own chart the label charts put on their release's pods by convention
 * (`app.kubernetes.io/instance=<release>`, as `helm create` writes it).
 */
export const podSelector = (service: OutputService) =>
  service.release
    ? `app.kubernetes.io/instance=${releaseName({ name: service.release.serviceName, serviceId: service.id })}`
    : `berth.service-id=${service.id}`

/**
 * A pod's instance number: a StatefulSet's ordinal, else its rank among the service's pods by age;
 * its deployment, from Berth's label, else (a helm service's chart) the release's last deploy.
 */
function instancesOf(pods: Pod[], release?: OutputService['release']): Map<string, Instance> {
  const ordered = [...pods].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.name.localeCompare(b.name))
  return new Map(
    ordered.map((pod, rank) => [
      pod.uid,
      {
        source: pod.uid.replace(/-/g, '').slice(0, 12).padEnd(12, '0'),
        instance: pod.labels['apps.kubernetes.io/pod-index'] ?? String(rank),
        instanceName: pod.name,
        executionId: pod.labels['berth.execution-id'] ?? release?.executionId ?? '',
      },
    ]),
  )
}

/** `2026-…Z message` (kubectl's --timestamps) as a line; undefined when it has no timestamp. */
function lineOf(raw: string, instance: Instance): OutputLine | undefined {
  const space = raw.indexOf(' ')
  const timestamp = space > 0 ? raw.slice(0, space) : ''
  if (nanosOf(timestamp) < 0n) return undefined
  const message = raw.slice(space + 1).replace(/\r$/, '')
  return { ...instance, stream: null, timestamp, message: message.length > MAX_LINE_LENGTH ? `${message.slice(0, MAX_LINE_LENGTH)} …` : message }
}

export function createKubernetesServiceOutput(deps: KubernetesServiceOutputDeps): ServiceOutput {
  const pollMs = deps.pollMs ?? 1000

  /** A private directory holding the cluster's kubeconfig for `use`; removed after. Undefined when no kubeconfig is stored. */
  async function withKubeconfig<T>(environmentId: string, use: (cluster: { path: string; home: string }) => Promise<T>): Promise<T | undefined> {
    const kubeconfig = await deps.kubeconfig(environmentId)
    if (kubeconfig === undefined) return undefined
    const home = await mkdtemp(path.join(deps.workRoot ?? os.tmpdir(), 'berth-kubectl-logs-'))
    try {
      const file = path.join(home, 'kubeconfig')
      await writeFile(file, kubeconfig, { mode: 0o600 })
      return await use({ path: file, home })
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  }

  const clusterArgs = (environmentId: string, kubeconfigPath: string) => ['--namespace', namespaceOf(environmentId), '--kubeconfig', kubeconfigPath]

  async function pods(service: OutputService, cluster: { path: string; home: string }, signal: AbortSignal): Promise<Pod[]> {
    const { stdout } = await runHelm(
      deps.kubectlPath,
      ['get', 'pods', '--selector', podSelector(service), '--output', 'json', ...clusterArgs(service.environmentId, cluster.path)],
      { signal, env: { HOME: cluster.home }, program: 'kubectl', quietStdout: true },
    )
    const list = JSON.parse(stdout) as {
      items?: {
        metadata?: { name?: string; uid?: string; labels?: Record<string, string>; creationTimestamp?: string }
        status?: { phase?: string }
      }[]
    }
    return (list.items ?? []).flatMap((item) =>
      item.metadata?.name && item.metadata.uid
        ? [
            {
              name: item.metadata.name,
              uid: item.metadata.uid,
              labels: item.metadata.labels ?? {},
              createdAt: item.metadata.creationTimestamp ?? '',
              phase: item.status?.phase ?? '',
            },
          ]
        : [],
    )
  }

  const logArgs = (pod: Pod, environmentId: string, kubeconfigPath: string) => [
    'logs',
    pod.name,
    '--all-containers=true',
    '--timestamps=true',
    ...clusterArgs(environmentId, kubeconfigPath),
  ]

  async function lastOf(pod: Pod, instance: Instance, environmentId: string, cluster: { path: string; home: string }, count: number) {
    try {
      const { stdout } = await runHelm(deps.kubectlPath, [...logArgs(pod, environmentId, cluster.path), `--tail=${count}`], {
        signal: AbortSignal.timeout(30_000),
        env: { HOME: cluster.home },
        program: 'kubectl',
        quietStdout: true,
      })
      return stdout.split('\n').flatMap((raw) => lineOf(raw, instance) ?? [])
    } catch (error) {
      // A pod whose container has not started yet, or that is gone meanwhile: it printed nothing to keep.
      if (error instanceof HelmFailed) return []
      throw error
    }
  }

  async function lastLines(service: OutputService, cluster: { path: string; home: string }, count: number) {
    const found = await pods(service, cluster, AbortSignal.timeout(30_000))
    const instances = instancesOf(found, service.release)
    const all = (await Promise.all(found.map((pod) => lastOf(pod, instances.get(pod.uid)!, service.environmentId, cluster, count)))).flat()
    return all.sort(byTime).slice(-count)
  }

  /** What `followOutput` needs of the cluster: the service's pods, each read with `kubectl logs --follow` from a time on. */
  const followed = (service: OutputService, cluster: { path: string; home: string }): FollowedEngine<PodInstance> => ({
    async look(signal) {
      const found = await pods(service, cluster, signal)
      const instances = instancesOf(found, service.release)
      return {
        found: found.map((pod) => ({ pod, instance: instances.get(pod.uid)! })),
        running: found.some((pod) => pod.phase === 'Running' || pod.phase === 'Pending'),
      }
    },
    id: ({ pod }) => pod.uid,
    source: ({ instance }) => instance.source,
    printsAgain: ({ pod }) => pod.phase === 'Running',
    async read({ pod, instance }, after, line, ended) {
      const stop = new AbortController()
      // The API keeps lines from the second of `--since-time` on: those at or before the position are dropped by the follower.
      const child = spawn(deps.kubectlPath, [...logArgs(pod, service.environmentId, cluster.path), '--follow=true', `--since-time=${after}`], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cluster.home },
        stdio: ['ignore', 'pipe', 'ignore'],
        signal: stop.signal,
      })
      let rest = ''
      child.stdout.on('data', (chunk: Buffer) => {
        const parts = (rest + chunk.toString('utf8')).split('\n')
        rest = parts.pop() ?? ''
        for (const raw of parts) {
          const parsed = lineOf(raw, instance)
          if (parsed) line(parsed)
        }
      })
      child.on('error', () => undefined)
      child.on('close', () => {
        const parsed = rest === '' ? undefined : lineOf(rest, instance)
        if (parsed) line(parsed)
        ended()
      })
      return () => stop.abort()
    },
  })

  const following = (
    service: OutputService,
    cluster: { path: string; home: string },
    cursor: OutputCursor,
    first: OutputLine[],
    signal: AbortSignal,
    deploying: () => Promise<boolean>,
  ) => followOutput(followed(service, cluster), cursor, first, signal, deploying, pollMs)

  return {
    runsHere: deps.deploysToKubernetes,
    // A Job's pods stay once complete (until the Job goes): its runs are read from them.
    keepsJobRuns: deps.deploysToKubernetes,

    async last(service, count) {
      if (!(await deps.deploysToKubernetes(service.environmentId))) return undefined
      return (await withKubeconfig(service.environmentId, (cluster) => lastLines(service, cluster, count))) ?? []
    },

    async follow(service, from, signal, deploying) {
      if (!(await deps.deploysToKubernetes(service.environmentId))) return undefined
      const kubeconfig = await deps.kubeconfig(service.environmentId)
      if (kubeconfig === undefined) return (async function* () {})()
      return (async function* () {
        // The kubeconfig's directory lives as long as the follower.
        const home = await mkdtemp(path.join(deps.workRoot ?? os.tmpdir(), 'berth-kubectl-logs-'))
        try {
          const cluster = { path: path.join(home, 'kubeconfig'), home }
          await writeFile(cluster.path, kubeconfig, { mode: 0o600 })
          if ('cursor' in from) {
            yield* following(service, cluster, from.cursor, [], signal, deploying)
            return
          }
          // The last lines, then what each pod prints after its last of them (after the start, for one that printed none).
          const since = new Date().toISOString()
          const first = await lastLines(service, cluster, from.last)
          const positions: Record<string, string> = {}
          for (const line of first) positions[line.source] = line.timestamp
          yield* following(service, cluster, { since, positions }, first, signal, deploying)
        } finally {
          await rm(home, { recursive: true, force: true })
        }
      })()
    },
  }
}
