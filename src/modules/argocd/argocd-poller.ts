import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { ArgoCdRepository, CredentialsRow } from './argocd.repository.ts'
import { type ArgoCdApi, type ArgoCdApplication, ArgoCdCallError } from './argocd-api.ts'
import type { ArgoCdSyncRepository, SeenApp } from './argocd-sync.repository.ts'

// Polls each registered Argo CD (docs/argocd.md): every application whose destination maps to a
// Berth cluster is a GITOPS_APP service in the environment of its namespace, and each sync Argo CD
// performed becomes one deployment in that environment's history. One poll per instance at a
// time across Berth's processes (an advisory lock); an Argo CD that does not answer keeps its
// services, their status unknown.

/** What a sync Argo CD performed asks of the GITOPS_APP kind's deploy: record it, do not sync again. */
export interface ObservedSync {
  history_id: number
  revision: string
  initiated_by: string
  phase: string | null
  message: string | null
}

/** How an observed sync reaches the environment's history (the deployment triggers' deployPushed). */
export interface ObservedSyncs<S extends { organizationId: string }> {
  findService(serviceId: string): Promise<S | undefined>
  deployPushed(organizationId: string, selected: { service: S; overrides: object }[], pusher: string): Promise<unknown>
}

interface Deps<S extends { organizationId: string }> {
  repo: ArgoCdRepository
  sync: ArgoCdSyncRepository
  api: ArgoCdApi
  secrets: SecretBox
  history: ObservedSyncs<S>
  intervalMs: number
  log: { warn(details: object, message: string): void }
}

const seen = (app: ArgoCdApplication): SeenApp => {
  const last = app.status?.history?.at(-1)
  const finished = app.status?.operationState?.finishedAt ?? last?.deployedAt
  return {
    name: app.metadata.name,
    destinationServer: app.spec?.destination?.server ?? app.spec?.destination?.name ?? '',
    destinationNamespace: app.spec?.destination?.namespace || 'default',
    syncStatus: app.status?.sync?.status ?? null,
    healthStatus: app.status?.health?.status ?? null,
    revision: app.status?.sync?.revision ?? last?.revision ?? null,
    repoUrl: app.spec?.source?.repoURL ?? null,
    path: app.spec?.source?.path ?? null,
    targetRevision: app.spec?.source?.targetRevision ?? null,
    lastSyncedAt: finished ? new Date(finished) : null,
  }
}

const initiator = (entry: { initiatedBy?: { username?: string; automated?: boolean } }) =>
  entry.initiatedBy?.username ? `${entry.initiatedBy.username} (Argo CD)` : 'Argo CD automated sync'

export function createArgoCdPoller<S extends { organizationId: string }>({ repo, sync, api, secrets, history, intervalMs, log }: Deps<S>) {
  /** One poll of one instance; false when another process was polling it. */
  async function pollInstance(credentials: CredentialsRow): Promise<boolean> {
    return sync.withPollLock(credentials.id, async () => {
      const instance = { url: credentials.argocdUrl, token: secrets.open(credentials.tokenSealed) }
      let applications: ArgoCdApplication[]
      try {
        applications = await api.listApplications(instance)
      } catch (error) {
        if (!(error instanceof ArgoCdCallError)) throw error
        await sync.markUnreachable(credentials.id)
        await repo.setStatus(credentials.id, 'error')
        log.warn({ argocd: credentials.argocdUrl, reason: error.reason }, `Argo CD did not answer the poll: ${error.message}`)
        return
      }
      await repo.setStatus(credentials.id, 'connected')
      const [mappings, known] = await Promise.all([repo.mappingsOf(credentials.clusterId), sync.appsOf(credentials.id)])
      const present = new Set<string>()
      const unmapped: string[] = []
      for (const application of applications) {
        const app = seen(application)
        present.add(app.name)
        const appId = await sync.saveApp(credentials.organizationId, credentials.id, app)
        const clusterId = mappings.get(app.destinationServer)
        if (!clusterId) {
          unmapped.push(appId)
          continue
        }
        const projectId = await sync.ensureProject(credentials.organizationId)
        const environment = await sync.ensureEnvironment(credentials.organizationId, projectId, clusterId, app.destinationNamespace)
        const serviceId = await sync.ensureService(credentials.organizationId, appId, environment, {
          application: app.name,
          namespace: app.destinationNamespace,
          credentials_id: credentials.id,
        })
        const before = known.get(app.name)
        const last = before?.liveServiceId === serviceId ? before.lastHistoryId : null
        await recordSyncs(application, appId, serviceId, last)
      }
      const gone = [...known.values()].filter((row) => !present.has(row.name)).map((row) => row.id)
      await sync.removeApps(gone)
      await sync.removeApps(
        unmapped.filter((id) => [...known.values()].some((row) => row.id === id && row.serviceId)),
        true,
      )
    })
  }

  /**
   * Each history entry newer than the last recorded one is one deployment of the service. An
   * application seen for the first time records only its latest sync: its past is Argo CD's.
   */
  async function recordSyncs(application: ArgoCdApplication, appId: string, serviceId: string, lastRecorded: number | null): Promise<void> {
    const entries = [...(application.status?.history ?? [])].sort((a, b) => a.id - b.id)
    const fresh = lastRecorded === null ? entries.slice(-1) : entries.filter((entry) => entry.id > lastRecorded)
    if (fresh.length === 0) return
    const service = await history.findService(serviceId)
    if (!service) return
    const operation = application.status?.operationState
    for (const entry of fresh) {
      const latest = entry === fresh.at(-1)
      const observed: ObservedSync = {
        history_id: entry.id,
        revision: entry.revision ?? '',
        initiated_by: initiator(entry),
        phase: latest ? (operation?.phase ?? null) : 'Succeeded',
        message: latest ? (operation?.message ?? null) : null,
      }
      await history.deployPushed(service.organizationId, [{ service, overrides: { argocd_observed: observed } }], observed.initiated_by)
      await sync.setLastHistoryId(appId, entry.id)
    }
  }

  async function pollAll(): Promise<void> {
    for (const credentials of await repo.allCredentials()) {
      try {
        await pollInstance(credentials)
      } catch (error) {
        log.warn({ err: error, argocd: credentials.argocdUrl }, 'could not poll an Argo CD; will retry')
      }
    }
  }

  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  const tick = () => {
    running ??= pollAll()
      .catch((error: unknown) => log.warn({ err: error }, 'could not poll the Argo CD instances; will retry'))
      .finally(() => {
        running = undefined
      })
  }
  return {
    pollAll,
    start() {
      if (timer) return
      timer = setInterval(tick, intervalMs)
      timer.unref()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await running
    },
  }
}

export type ArgoCdPoller = ReturnType<typeof createArgoCdPoller>
