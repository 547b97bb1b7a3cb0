// One finished deployment (3 stages of 5 services), rendered by Berth's own environmentEntry, with
// placeholders where each stored copy gets its own execution id and creation minute.
import { randomUUID } from 'node:crypto'
import { environmentEntry } from '#src/modules/deployments/queue/deployment-entries.ts'
import type { DeploymentRun, ServiceProgress, StageProgress } from '#src/modules/deployments/queue/deployment-progress.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'

/** Stands for the execution id in the template's texts (entry, build pod names). */
export const ID_PLACEHOLDER = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee'
/** Every instant of a deployment lies within its creation minute: this prefix stands for that minute. */
export const MINUTE_PLACEHOLDER = '2000-01-01T00:00:'

/** When things happen, in seconds into the creation minute (a deployment takes under a minute, one starts each minute). */
export const TIMELINE = { createdS: 2.137, startedS: 2.48, endedS: 52.006 }

const at = (seconds: number) => `${MINUTE_PLACEHOLDER}${seconds.toFixed(3).padStart(6, '0')}Z`

interface ServiceSpec {
  name: string
  details: Record<string, unknown>
  version: number | null
}

const DATABASES: ServiceSpec[] = [
  {
    name: 'postgres-main',
    details: { image_name: 'postgres', tag: '16.4-bookworm', arguments: [], entrypoint: 'docker-entrypoint.sh' },
    version: null,
  },
  { name: 'redis-cache', details: { image_name: 'redis', tag: '7.2.5-alpine', arguments: ['--maxmemory', '256mb'] }, version: null },
  { name: 'mysql-legacy', details: { image_name: 'mysql', tag: '8.4.2', arguments: ['--character-set-server=utf8mb4'] }, version: null },
  { name: 'mongodb-events', details: { image_name: 'mongo', tag: '7.0.14', arguments: ['--wiredTigerCacheSizeGB', '1'] }, version: null },
  { name: 'rabbitmq', details: { image_name: 'rabbitmq', tag: '3.13-management', arguments: [] }, version: null },
]

const CHARTS: ServiceSpec[] = [
  { name: 'ingress-nginx', details: { repository: { chart_name: 'ingress-nginx', chart_version: '4.11.2' } }, version: 7 },
  { name: 'cert-manager', details: { repository: { chart_name: 'cert-manager', chart_version: 'v1.15.3' } }, version: 4 },
  { name: 'external-dns', details: { repository: { chart_name: 'external-dns', chart_version: '1.15.0' } }, version: 3 },
  { name: 'prometheus', details: { repository: { chart_name: 'kube-prometheus-stack', chart_version: '62.7.0' } }, version: 12 },
  { name: 'loki', details: { repository: { chart_name: 'loki', chart_version: '6.16.0' } }, version: 5 },
]

const APPS = ['api', 'web', 'worker', 'scheduler', 'notifications']
const AUTHORS = ['Ada Lovelace', 'Grace Hopper', 'Linus Torvalds', 'Margaret Hamilton', 'Ken Thompson']

function application(name: string, index: number): ServiceSpec {
  const sha = `${(index + 1).toString(16).repeat(8)}${'3f9c2a1b'.repeat(4)}`.slice(0, 40)
  return {
    name,
    details: {
      commit: {
        git_commit_id: sha,
        created_at: at(0.5 + index * 0.2),
        author_name: AUTHORS[index]!,
        message: `${name}: handle retries when the upstream times out (#${1200 + index})`,
        tag: `v2.${14 + index}.0`,
        author_avatar_url: `https://avatars.githubusercontent.com/u/${10_000 + index}?v=4`,
        commit_page_url: `https://github.com/acme/${name}/commit/${sha}`,
      },
      build_pod_name: `build-${ID_PLACEHOLDER}-0`,
    },
    version: null,
  }
}

const STAGES: { type: ServiceType; icon: string; services: ServiceSpec[]; fromS: number; toS: number }[] = [
  { type: 'DATABASE', icon: 'app://berth/database', services: DATABASES, fromS: 2.5, toS: 11.2 },
  { type: 'HELM', icon: 'app://berth/helm', services: CHARTS, fromS: 11.3, toS: 27.9 },
  { type: 'APPLICATION', icon: 'app://berth/application', services: APPS.map(application), fromS: 28.0, toS: 51.9 },
]

function stage(spec: (typeof STAGES)[number], serviceIds: string[]): StageProgress {
  const span = spec.toS - spec.fromS
  const services = spec.services.map((service, i): ServiceProgress => {
    // Services of a stage run side by side and end one after another.
    const endedAt = at(spec.toS - ((spec.services.length - 1 - i) * span) / 7)
    return {
      id: serviceIds[i]!,
      name: service.name,
      type: spec.type,
      iconUri: spec.icon,
      details: service.details,
      version: service.version,
      previousState: 'DEPLOYED',
      simulateFailure: false,
      phase: 'SUCCESS',
      startedAt: at(spec.fromS + 0.01 * i),
      endedAt,
      updatedAt: endedAt,
      message: null,
    }
  })
  return { name: `${spec.type} DEFAULT`, status: 'DONE', startedAt: at(spec.fromS), endedAt: at(spec.toS), services }
}

export interface DeploymentTemplate {
  /** The environment entry, as Berth stores it in entry_json. */
  entryJson: string
  /** The run's progress, as Berth stores it in progress. */
  progressJson: string
  triggeredBy: string
  /** Bytes of one stored entry. */
  entryBytes: number
}

/** A successful DEPLOY of the environment's 15 services, triggered through the API by `tokenName`. */
export function deploymentTemplate(organizationId: string, environmentId: string, tokenName: string): DeploymentTemplate {
  const stages = STAGES.map((spec) =>
    stage(
      spec,
      spec.services.map(() => randomUUID()),
    ),
  )
  const run: DeploymentRun = {
    id: ID_PLACEHOLDER,
    organizationId,
    environmentId,
    serviceId: null,
    triggerAction: 'DEPLOY',
    origin: 'API',
    triggeredBy: `API token ${tokenName}`,
    status: 'DEPLOYED',
    actionStatus: 'SUCCESS',
    message: null,
    createdAt: at(TIMELINE.createdS),
    updatedAt: at(TIMELINE.endedS),
    startedAt: at(TIMELINE.startedS),
    endedAt: at(TIMELINE.endedS),
    progress: { stages },
  }
  const entryJson = JSON.stringify(environmentEntry(run))
  return { entryJson, progressJson: JSON.stringify(run.progress), triggeredBy: run.triggeredBy, entryBytes: Buffer.byteLength(entryJson) }
}
