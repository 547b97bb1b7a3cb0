import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { whenParentGone } from '#src/platform/db/errors.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import type { ClusterEngine } from './cluster-engines.ts'
import type { ClusterEvent, EventFilter } from './cluster-events.ts'
import type { ClusterLocksDb } from './cluster-locks.tables.ts'
import type { ClusterLogRecorder } from './cluster-logs.ts'

// What clusters answer beyond their records (docs/clusters.md, "Locks, environments, readiness"):
// locks that keep deployments off a cluster, the environments it runs, whether it can take a deploy.

export interface ClusterLockRecord {
  clusterId: string
  reason: string
  ttlInDays: number | null
  ownerName: string
  lockedAt: Date
  expiresAt: Date | null
}

export interface ClusterEnvironmentRecord {
  environmentId: string
  environmentName: string
  projectId: string
  projectName: string
  services: { id: string; name: string; kind: string }[]
}

interface Deps {
  db: ClusterLocksDb
  organizations: Pick<OrganizationsService, 'requireRole'>
  actorName(principal: Principal): Promise<string>
  /** The engine a cluster row deploys with (a default cluster deploys with BERTH_EXECUTOR's). */
  engineOf(cluster: { isDefault: boolean; executor: string; kubeconfigSealed: Buffer | null }): ClusterEngine
  /** Whether the engine answers now. */
  engineReady(engine: ClusterEngine): Promise<boolean>
  /** The engine's events of the window, for the cluster's environments. */
  engineEvents(engine: ClusterEngine, environmentIds: Set<string>, filter: EventFilter): Promise<ClusterEvent[]>
  /** Where locks and unlocks are written as the cluster's log lines (cluster-logs.ts). */
  log?: ClusterLogRecorder
}

const DAY_MS = 24 * 3_600_000

export function createClusterOperationsService({ db, organizations, actorName, engineOf, engineReady, engineEvents, log = async () => {} }: Deps) {
  /** A cluster by its id alone (the `/cluster/{clusterId}` routes), with `needed` in its organization; 404 when hidden. */
  async function requireCluster(principal: Principal, clusterId: string, needed: Role) {
    const cluster = await db.selectFrom('clusters').selectAll().where('id', '=', clusterId).executeTakeFirst()
    if (!cluster) throw notFound('cluster')
    await organizations.requireRole(principal, cluster.organizationId, needed).catch(asNotFound('cluster'))
    return cluster
  }

  /** The lock in force: a lock whose time ran out counts as none. */
  const liveLocks = () =>
    db
      .selectFrom('clusterLocks')
      .selectAll()
      .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', new Date())]))

  return {
    requireCluster,

    /** WRITE; locking a locked cluster replaces its lock. */
    async lock(principal: Principal, clusterId: string, reason: string, ttlInDays: number | undefined): Promise<ClusterLockRecord> {
      const cluster = await requireCluster(principal, clusterId, 'WRITE')
      const lockedAt = new Date()
      const values = {
        reason,
        ttlInDays: ttlInDays ?? null,
        ownerName: await actorName(principal),
        lockedAt,
        expiresAt: ttlInDays === undefined ? null : new Date(lockedAt.getTime() + ttlInDays * DAY_MS),
      }
      const lock = await whenParentGone(
        () => notFound('cluster'),
        () =>
          db
            .insertInto('clusterLocks')
            .values({ clusterId: cluster.id, organizationId: cluster.organizationId, ...values })
            .onConflict((oc) => oc.column('clusterId').doUpdateSet(values))
            .returningAll()
            .executeTakeFirstOrThrow(),
      )
      const until = lock.expiresAt ? ` until ${lock.expiresAt.toISOString()}` : ''
      await log(cluster, { type: 'warning', step: 'Unknown', message: `locked${until} by ${lock.ownerName}: ${lock.reason}` })
      return lock
    },

    /** WRITE; the cluster is unlocked afterwards, whether or not it was locked (a retried unlock is not an error). */
    async unlock(principal: Principal, clusterId: string): Promise<void> {
      const cluster = await requireCluster(principal, clusterId, 'WRITE')
      const removed = await db.deleteFrom('clusterLocks').where('clusterId', '=', cluster.id).returning('clusterId').execute()
      if (removed.length > 0) await log(cluster, { type: 'info', step: 'Unknown', message: `unlocked by ${await actorName(principal)}` })
    },

    /** READ; the organization's locks in force, oldest first. */
    async listLocks(principal: Principal, organizationId: string): Promise<ClusterLockRecord[]> {
      await organizations.requireRole(principal, organizationId, 'READ')
      return liveLocks().where('organizationId', '=', organizationId).orderBy('lockedAt').execute()
    },

    /** Why a deployment may not be queued in the environment now (its cluster is locked), or undefined. */
    async lockRefusal(environmentId: string): Promise<AppError | undefined> {
      const lock = await liveLocks()
        .innerJoin('environments as e', 'e.clusterId', 'clusterLocks.clusterId')
        .innerJoin('clusters as c', 'c.id', 'clusterLocks.clusterId')
        .select(['c.name as clusterName'])
        .where('e.id', '=', environmentId)
        .executeTakeFirst()
      if (!lock) return undefined
      const until = lock.expiresAt ? ` until ${lock.expiresAt.toISOString()}` : ' until it is unlocked'
      return new AppError(
        'conflict',
        `the cluster "${lock.clusterName}" is locked${until} by ${lock.ownerName} (${lock.reason}): no deployment is queued on it; unlock it with DELETE /cluster/${lock.clusterId}/lock`,
      )
    },

    /** READ; the cluster's environments by project and name, each with its services. */
    async environments(principal: Principal, clusterId: string): Promise<ClusterEnvironmentRecord[]> {
      const cluster = await requireCluster(principal, clusterId, 'READ')
      const rows = await db
        .selectFrom('environments as e')
        .innerJoin('projects as p', 'p.id', 'e.projectId')
        .leftJoin('services as s', 's.environmentId', 'e.id')
        .select([
          'e.id as environmentId',
          'e.name as environmentName',
          'p.id as projectId',
          'p.name as projectName',
          's.id as serviceId',
          's.name as serviceName',
          's.kind',
        ])
        .where('e.organizationId', '=', cluster.organizationId)
        .where('e.clusterId', '=', cluster.id)
        .orderBy('p.name')
        .orderBy('e.name')
        .orderBy('s.name')
        .execute()
      const byEnvironment = new Map<string, ClusterEnvironmentRecord>()
      for (const row of rows) {
        let environment = byEnvironment.get(row.environmentId)
        if (!environment) {
          environment = { ...row, services: [] }
          byEnvironment.set(row.environmentId, environment)
        }
        if (row.serviceId && row.serviceName && row.kind) environment.services.push({ id: row.serviceId, name: row.serviceName, kind: row.kind })
      }
      return [...byEnvironment.values()]
    },

    /** READ; whether a deployment can go to the cluster now: its engine answers, and it is not locked. */
    async readiness(principal: Principal, organizationId: string, clusterId: string): Promise<boolean> {
      const cluster = await requireCluster(principal, clusterId, 'READ')
      if (cluster.organizationId !== organizationId) throw notFound('cluster')
      const locked = await liveLocks().where('clusterId', '=', cluster.id).executeTakeFirst()
      return locked === undefined && (await engineReady(engineOf(cluster)))
    },

    /** READ; the events its engine reports for the window (cluster-events.ts). */
    async events(principal: Principal, clusterId: string, filter: EventFilter): Promise<ClusterEvent[]> {
      const cluster = await requireCluster(principal, clusterId, 'READ')
      const environments = await db.selectFrom('environments').select('id').where('clusterId', '=', cluster.id).execute()
      return engineEvents(engineOf(cluster), new Set(environments.map((environment) => environment.id)), filter)
    },

    engineOf,
  }
}

export type ClusterOperationsService = ReturnType<typeof createClusterOperationsService>
