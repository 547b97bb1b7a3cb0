import { LABELS } from '#src/modules/executors/docker/docker-objects.ts'
import { AppError } from '#src/platform/http/errors.ts'
import type { ClusterEngine, ClusterEngines } from './cluster-engines.ts'

// A cluster's events (get-cluster-kubernetes-events), asked of its engine: a Kubernetes cluster's
// API server (`/api/v1/events`, every namespace), the Docker engine's event stream for the
// containers of the cluster's environments. The simulator runs nothing, so it has none.

export interface ClusterEvent {
  createdAt: string
  kind: string
  namespace: string | undefined
  name: string
  reason: string
  message: string
  type: string
  reportingComponent: string
  count: number
}

export interface EventFilter {
  from: Date
  to: Date
  nodeName?: string | undefined
  podName?: string | undefined
  reportingComponent?: string | undefined
}

/** The most events one answer holds (the newest kept). */
const MAX_EVENTS = 1000

interface KubeEvent {
  metadata?: { name?: string; namespace?: string; creationTimestamp?: string }
  involvedObject?: { kind?: string; name?: string; namespace?: string }
  reason?: string
  message?: string
  type?: string
  count?: number
  eventTime?: string | null
  lastTimestamp?: string | null
  firstTimestamp?: string | null
  source?: { component?: string; host?: string }
  reportingComponent?: string
}

interface DockerEvent {
  Type?: string
  Action?: string
  Actor?: { ID?: string; Attributes?: Record<string, string> }
  time?: number
  timeNano?: number
}

/** Docker's actions that say something went wrong. */
const WARNING_ACTIONS = new Set(['die', 'oom', 'kill', 'health_status: unhealthy'])

export function clusterEvents(engines: Pick<ClusterEngines, 'kubectl' | 'docker' | 'timed'>) {
  async function kubernetesEvents(kubeconfig: string, filter: EventFilter): Promise<ClusterEvent[]> {
    let list: { items?: KubeEvent[] }
    try {
      list = JSON.parse(await engines.kubectl(kubeconfig, ['get', '--raw', '/api/v1/events?limit=5000'])) as { items?: KubeEvent[] }
    } catch (error) {
      // The stored kubeconfig leads nowhere that answers: the cluster's configuration is at fault (as for readiness, which says not ready).
      throw new AppError(
        'conflict',
        `the cluster's API server did not give its events with the stored kubeconfig: ${(error as Error).message.split('\n')[0]}`,
      )
    }
    return (list.items ?? [])
      .map((event) => {
        const at = event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata?.creationTimestamp ?? ''
        return {
          event,
          createdAt: at,
          record: {
            createdAt: Number.isNaN(Date.parse(at)) ? at : new Date(at).toISOString(),
            kind: event.involvedObject?.kind ?? '',
            namespace: event.involvedObject?.namespace ?? event.metadata?.namespace,
            name: event.involvedObject?.name ?? event.metadata?.name ?? '',
            reason: event.reason ?? '',
            message: event.message ?? '',
            type: event.type ?? 'Normal',
            reportingComponent: event.reportingComponent || event.source?.component || '',
            count: event.count ?? 1,
          } satisfies ClusterEvent,
        }
      })
      .filter(({ createdAt, record, event }) => {
        const at = Date.parse(createdAt)
        if (Number.isNaN(at) || at < filter.from.getTime() || at > filter.to.getTime()) return false
        if (filter.nodeName && !(record.kind === 'Node' && record.name === filter.nodeName) && event.source?.host !== filter.nodeName) return false
        if (filter.podName && !(record.kind === 'Pod' && record.name === filter.podName)) return false
        return !filter.reportingComponent || record.reportingComponent === filter.reportingComponent
      })
      .map(({ record }) => record)
  }

  async function dockerEvents(environmentIds: Set<string>, filter: EventFilter): Promise<ClusterEvent[]> {
    if (environmentIds.size === 0) return []
    const docker = await engines.docker()
    const until = Math.min(filter.to.getTime(), Date.now())
    if (until < filter.from.getTime()) return []
    // A stream bounded by `until`: the engine ends it once it has sent the events up to then.
    const stream = (await engines.timed(
      docker.getEvents({
        since: Math.floor(filter.from.getTime() / 1000),
        until: Math.ceil(until / 1000),
        filters: { label: [LABELS.environment] },
      }),
    )) as NodeJS.ReadableStream
    let text = ''
    await engines.timed(
      new Promise<void>((resolve, reject) => {
        stream.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8')
        })
        stream.on('end', resolve)
        stream.on('error', reject)
      }),
    )
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as DockerEvent)
      .filter((event) => environmentIds.has(event.Actor?.Attributes?.[LABELS.environment] ?? ''))
      .map((event) => {
        const attributes = event.Actor?.Attributes ?? {}
        const action = event.Action ?? ''
        const name = attributes.name ?? event.Actor?.ID ?? ''
        const exitCode = attributes.exitCode
        return {
          createdAt: new Date(event.timeNano ? Math.floor(event.timeNano / 1e6) : (event.time ?? 0) * 1000).toISOString(),
          kind: event.Type ?? '',
          namespace: attributes[LABELS.environment],
          name,
          reason: action,
          message: `${event.Type ?? 'object'} ${name} ${action}${exitCode === undefined ? '' : ` (exit code ${exitCode})`}`,
          type: WARNING_ACTIONS.has(action) && !(action === 'die' && exitCode === '0') ? 'Warning' : 'Normal',
          reportingComponent: 'docker',
          count: 1,
        }
      })
      .filter((event) => !filter.podName || event.name === filter.podName)
      .filter((event) => !filter.reportingComponent || event.reportingComponent === filter.reportingComponent)
  }

  return {
    /** The events of the window, oldest first, at most MAX_EVENTS (the newest). */
    async list(engine: ClusterEngine, environmentIds: Set<string>, filter: EventFilter): Promise<ClusterEvent[]> {
      let events: ClusterEvent[] = []
      if (engine.kind === 'KUBERNETES') {
        if (!engine.kubeconfig) throw new AppError('conflict', 'the cluster has no kubeconfig: Berth cannot ask it for its events')
        events = await kubernetesEvents(engine.kubeconfig, filter)
      } else if (engine.kind === 'DOCKER') events = await dockerEvents(environmentIds, filter)
      return events.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).slice(-MAX_EVENTS)
    },
  }
}

export type ClusterEvents = ReturnType<typeof clusterEvents>
