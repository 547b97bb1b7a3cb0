// What a cluster's engine answers: its installation values, its version (upgrade) and its kubeconfig's token.
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { parse } from 'yaml'
import type { ClusterRow } from '#src/modules/environments/clusters.repository.ts'
import { BUILTIN_CHART } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { AppError, notFound } from '#src/platform/http/errors.ts'
import type { ClusterAdminBasics, ClusterAdminDeps } from './cluster-admin-deps.ts'

interface KubeconfigDoc {
  'current-context'?: string
  contexts?: { name?: string; context?: { user?: string } }[]
  users?: { name?: string; user?: { token?: string; 'client-certificate-data'?: string; exec?: unknown } }[]
}

/** The token of the kubeconfig's current context's user, or why there is none. */
function kubeconfigToken(kubeconfig: string): { token: string } | { problem: string } {
  const doc = parse(kubeconfig) as KubeconfigDoc
  const contextName = doc['current-context']
  const context = (doc.contexts ?? []).find((item) => item.name === contextName) ?? (doc.contexts ?? [])[0]
  const userName = context?.context?.user
  const user = (doc.users ?? []).find((item) => item.name === userName)?.user
  if (!user) return { problem: 'the stored kubeconfig names no user for its current context' }
  if (typeof user.token === 'string' && user.token !== '') return { token: user.token }
  const how = user['client-certificate-data'] ? 'a client certificate' : user.exec ? 'an exec plugin' : 'no token'
  return { problem: `the stored kubeconfig's user authenticates with ${how}, not a bearer token: read it whole with getClusterKubeconfig (ADMIN)` }
}

/** When a JWT says it expires (`exp`), or undefined for a token that is not one. */
function jwtExpiry(token: string): Date | undefined {
  const [, payload] = token.split('.')
  if (!payload) return undefined
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }
    return typeof claims.exp === 'number' ? new Date(claims.exp * 1000) : undefined
  } catch {
    return undefined
  }
}

export function createClusterEngineAnswers(
  { db, operations, logs, engines, actorName }: ClusterAdminDeps,
  { inOrganization, servedDomain }: ClusterAdminBasics,
) {
  return {
    /** READ; the values Berth's chart is installed with on a Kubernetes cluster (the defaults each service's release starts from). */
    async installationValues(principal: Principal, organizationId: string, clusterId: string): Promise<string> {
      const cluster = await inOrganization(principal, organizationId, clusterId, 'READ')
      const engine = operations.engineOf(cluster)
      if (engine.kind !== 'KUBERNETES') {
        const what = engine.kind === 'DOCKER' ? 'the Docker engine of the Berth runners' : "Berth's simulator"
        return `# The cluster "${cluster.name}" (${cluster.id}) deploys with ${what}: Berth installs no helm chart and no agent on it.\n{}\n`
      }
      const values = await readFile(path.join(BUILTIN_CHART, 'values.yaml'), 'utf8')
      const chart = parse(await readFile(path.join(BUILTIN_CHART, 'Chart.yaml'), 'utf8')) as { name?: string; version?: string }
      return [
        `# The cluster "${cluster.name}" (${cluster.id}) is a Kubernetes cluster Berth reaches with its kubeconfig; it installs no agent.`,
        `# Each service is a helm release of Berth's chart ${chart.name} ${chart.version}, installed with these values, which the`,
        '# Kubernetes executor fills in per service (builtin-chart-values.ts); its Ingress hosts are under',
        `# ${servedDomain(cluster, engine)}.`,
        values,
      ].join('\n')
    },

    /**
     * WRITE; asks the cluster's engine its version and records it, with the steps in the cluster's
     * logs; a locked cluster is refused (409), and so is an engine that does not answer. Berth
     * upgrades no control plane: the versions are the engine's.
     */
    async upgrade(principal: Principal, clusterId: string): Promise<ClusterRow> {
      const cluster = await operations.requireCluster(principal, clusterId, 'WRITE')
      const engine = operations.engineOf(cluster)
      if (engine.kind === 'KUBERNETES' && !engine.kubeconfig)
        throw new AppError('bad_request', 'the cluster has no kubeconfig: set one (editClusterKubeconfig) before upgrading it')
      // A refused upgrade changes nothing: the lock is read, the engine asked, and only then is anything written.
      const locked = await db
        .selectFrom('clusterLocks')
        .select('clusterId')
        .where('clusterId', '=', cluster.id)
        .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', new Date())]))
        .executeTakeFirst()
      if (locked)
        throw new AppError('conflict', `the cluster "${cluster.name}" is locked: unlock it (DELETE /cluster/${cluster.id}/lock) before upgrading it`)
      const owner = await actorName(principal)
      let message: string
      let versions: { kubernetesVersion: string; kubectlVersion: string | null } | undefined
      try {
        if (engine.kind === 'KUBERNETES') {
          const answer = JSON.parse(await engines.kubectl(engine.kubeconfig as string, ['version', '--output', 'json'])) as {
            serverVersion?: { gitVersion?: string }
            clientVersion?: { gitVersion?: string }
          }
          const server = answer.serverVersion?.gitVersion
          if (!server) throw new Error('the API server did not give its version')
          versions = { kubernetesVersion: server, kubectlVersion: answer.clientVersion?.gitVersion ?? null }
          message = `the API server runs Kubernetes ${server}; Berth upgrades no control plane: upgrade it with its provider, Berth's releases follow`
        } else if (engine.kind === 'DOCKER') {
          const version = (await engines.timed((await engines.docker()).version())) as { Version?: string; ApiVersion?: string }
          message = `the Docker engine runs ${version.Version ?? 'an unknown version'} (API ${version.ApiVersion ?? '?'}); Berth upgrades no engine`
        } else message = "the simulator runs with Berth: it is Berth's version"
      } catch (error) {
        throw new AppError('conflict', `the cluster's engine did not answer: ${(error as Error).message.split('\n')[0] ?? ''}`)
      }
      await logs.record(cluster, {
        type: 'info',
        step: 'UnderMigration',
        message: `upgrade asked by ${owner}: the ${engine.kind.toLowerCase()} engine was asked its version`,
      })
      if (versions)
        await db
          .updateTable('clusters')
          .set({ ...versions, versionsSeenAt: new Date() })
          .where('id', '=', cluster.id)
          .execute()
      await logs.record(cluster, { type: 'info', step: 'Created', message })
      const row = await db.selectFrom('clusters').selectAll().where('id', '=', cluster.id).executeTakeFirst()
      if (!row) throw notFound('cluster')
      return row
    },

    /** ADMIN; the bearer token of the stored kubeconfig's current user, as a Kubernetes ExecCredential. */
    async token(principal: Principal, clusterId: string, readOnly: boolean): Promise<{ token: string; expiresAt: Date }> {
      const cluster = await operations.requireCluster(principal, clusterId, 'ADMIN')
      const engine = operations.engineOf(cluster)
      if (engine.kind !== 'KUBERNETES')
        throw new AppError(
          'bad_request',
          `the cluster deploys with ${engine.kind === 'DOCKER' ? 'Docker' : 'the simulator'}: it has no Kubernetes token`,
        )
      if (!engine.kubeconfig) throw notFound('kubeconfig of the cluster')
      if (readOnly) {
        const message = 'Berth holds no read-only credentials of the cluster: only the kubeconfig it was given'
        throw new AppError('validation_failed', `read_only ${message}`, { errors: [{ path: '/read_only', message, location: 'query' }] })
      }
      const found = kubeconfigToken(engine.kubeconfig)
      if ('problem' in found) throw new AppError('conflict', found.problem)
      return { token: found.token, expiresAt: jwtExpiry(found.token) ?? new Date(Date.now() + 3_600_000) }
    },
  }
}
