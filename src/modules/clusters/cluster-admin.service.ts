import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { type Selectable, sql } from 'kysely'
import { parse } from 'yaml'
import type { ClusterRow } from '#src/modules/environments/clusters.repository.ts'
import { BUILTIN_CHART } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import { defaultPortHost, SIMULATED_LINK_DOMAIN } from '#src/modules/executors/public-hosts.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { AppError, type FieldError, notFound } from '#src/platform/http/errors.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { INGRESS_SETTINGS } from './cluster-advanced-settings.ts'
import type { ClusterEngine, ClusterEngines } from './cluster-engines.ts'
import type { ClusterDnsProvidersTable, ClusterLocksDb } from './cluster-locks.tables.ts'
import { type ClusterLogLine, type ClusterLogs, frontDoorLines, type LogQuery, MAX_LOG_LINES, organizationFrontDoorLines } from './cluster-logs.ts'
import type { ClusterOperationsService } from './cluster-operations.service.ts'

// A cluster's logs, DNS provider, upgrade, token and installation values (docs/clusters.md, "Logs,
// DNS provider, upgrade, token"): each asked of Berth's records or of the cluster's engine.

interface Deps {
  db: ClusterLocksDb
  operations: Pick<ClusterOperationsService, 'requireCluster' | 'engineOf'>
  logs: ClusterLogs
  engines: Pick<ClusterEngines, 'kubectl' | 'docker' | 'timed'>
  secrets: SecretBox
  actorName(principal: Principal): Promise<string>
  /** The front door's domain (BERTH_APPS_DOMAIN) when it runs; the names of Docker clusters' services are under it. */
  appsDomain?: string | undefined
  /** Berth's own Caddy's log (the front door of Docker clusters), when Berth runs it. */
  frontDoorLogFile?: string | undefined
}

export type DnsProviderKind = ClusterDnsProvidersTable['provider']

export interface DnsProviderInput {
  provider: DnsProviderKind
  domain: string
  email?: string | undefined
  api_token?: string | undefined
  proxied?: boolean | undefined
  credentials?: { type?: string; aws_access_key_id?: string; aws_secret_access_key?: string } | undefined
  aws_region?: string | undefined
  hosted_zone_id?: string | null | undefined
}

export interface DnsProviderView {
  provider: DnsProviderKind
  domain: string
  email?: string
  proxied?: boolean
  credentials?: { type: 'STATIC'; aws_access_key_id: string }
  aws_region?: string
  hosted_zone_id?: string | null
}

export interface LokiQuery extends LogQuery {
  start: Date | undefined
  end: Date | undefined
  limit: number
  direction: 'forward' | 'backward'
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

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

const lokiLine = (line: ClusterLogLine) => `${line.type} ${line.step}: ${line.message}${line.errorTag ? ` (${line.errorTag})` : ''}`

export function createClusterAdminService({ db, operations, logs, engines, secrets, actorName, appsDomain, frontDoorLogFile }: Deps) {
  const inOrganization = async (principal: Principal, organizationId: string, clusterId: string, role: 'READ' | 'WRITE' | 'ADMIN') => {
    const cluster = await operations.requireCluster(principal, clusterId, role)
    if (cluster.organizationId !== organizationId) throw notFound('cluster')
    return cluster
  }

  /** The domain the cluster's services are named under now: a Kubernetes cluster's Ingress apps domain, the front door's for others. */
  function servedDomain(cluster: { advancedSettings: Record<string, unknown> }, engine: ClusterEngine): string {
    if (engine.kind === 'KUBERNETES') {
      const setting = cluster.advancedSettings[INGRESS_SETTINGS.appsDomain]
      return typeof setting === 'string' && setting !== '' ? setting : SIMULATED_LINK_DOMAIN
    }
    return engine.kind === 'DOCKER' && appsDomain ? appsDomain : SIMULATED_LINK_DOMAIN
  }

  /**
   * Whether a host is one of the organization's on the front door: a name of one of its services
   * under the apps domain (`z…` or `p{port}-z…`, public-hosts.ts) or one of its services' custom
   * domains (a wildcard one covering its subdomains).
   */
  async function organizationHosts(organizationId: string, domain: string): Promise<(host: string) => boolean> {
    const services = await db.selectFrom('services').select('id').where('organizationId', '=', organizationId).execute()
    const names = new Set(services.map((service) => defaultPortHost(service.id, domain).toLowerCase()))
    const custom = await db.selectFrom('customDomains').select('domain').where('organizationId', '=', organizationId).execute()
    const exact = new Set(custom.map((row) => row.domain.toLowerCase()))
    const wildcards = [...exact].filter((name) => name.startsWith('*.')).map((name) => name.slice(1))
    return (host) =>
      names.has(host.replace(/^p\d+-/, '')) ||
      exact.has(host) ||
      wildcards.some((suffix) => host.endsWith(suffix) && !host.slice(0, -suffix.length).includes('.'))
  }

  const dnsView = (row: Selectable<ClusterDnsProvidersTable> | undefined, domain: string): DnsProviderView => {
    if (!row || row.provider === 'QOVERY') return { provider: 'QOVERY', domain }
    if (row.provider === 'CLOUDFLARE') return { provider: 'CLOUDFLARE', domain: row.domain, email: row.email ?? '', proxied: row.proxied ?? false }
    return {
      provider: 'ROUTE53',
      domain: row.domain,
      credentials: { type: 'STATIC', aws_access_key_id: row.awsAccessKeyId ?? '' },
      aws_region: row.awsRegion ?? '',
      hosted_zone_id: row.hostedZoneId,
    }
  }

  function checkDns(input: DnsProviderInput): FieldError[] {
    const errors: FieldError[] = []
    const need = (value: unknown, field: string) => {
      if (typeof value !== 'string' || value.trim() === '')
        errors.push({ path: `/dns_provider/${field}`, message: `is required for ${input.provider}`, location: 'body' })
    }
    if (!DOMAIN.test(input.domain.toLowerCase()))
      errors.push({ path: '/dns_provider/domain', message: 'must be a domain name such as apps.example.com', location: 'body' })
    if (input.provider === 'CLOUDFLARE') {
      need(input.api_token, 'api_token')
      if (typeof input.email !== 'string' || !EMAIL.test(input.email))
        errors.push({ path: '/dns_provider/email', message: 'must be an email address', location: 'body' })
    }
    if (input.provider === 'ROUTE53') {
      need(input.aws_region, 'aws_region')
      if (input.credentials?.type !== 'STATIC') errors.push({ path: '/dns_provider/credentials/type', message: 'must be STATIC', location: 'body' })
      need(input.credentials?.aws_access_key_id, 'credentials/aws_access_key_id')
      need(input.credentials?.aws_secret_access_key, 'credentials/aws_secret_access_key')
    }
    return errors
  }

  return {
    /** READ; what Berth did to the cluster, oldest first. */
    async listLogs(principal: Principal, organizationId: string, clusterId: string): Promise<ClusterLogLine[]> {
      const cluster = await inOrganization(principal, organizationId, clusterId, 'READ')
      return logs.list(cluster.id)
    },

    /** READ; the cluster's lines and, on a Docker cluster, the front door's, as Loki answers a `query_range`. */
    async queryLogs(principal: Principal, clusterId: string, query: LokiQuery): Promise<string> {
      const cluster = await operations.requireCluster(principal, clusterId, 'READ')
      const engine = operations.engineOf(cluster)
      const wanted = (component: string) => !query.components || query.components.has(component)
      const streams: { component: string; lines: { at: Date; line: string }[] }[] = []
      if (wanted('cluster'))
        streams.push({ component: 'cluster', lines: (await logs.list(cluster.id)).map((line) => ({ at: line.createdAt, line: lokiLine(line) })) })
      if (wanted('front-door') && engine.kind === 'DOCKER' && frontDoorLogFile) {
        const isOwnHost = await organizationHosts(cluster.organizationId, servedDomain(cluster, engine))
        streams.push({ component: 'front-door', lines: organizationFrontDoorLines(await frontDoorLines(frontDoorLogFile), isOwnHost) })
      }
      const kept = (at: Date, line: string) =>
        (!query.start || at >= query.start) &&
        (!query.end || at <= query.end) &&
        query.include.every((text) => line.includes(text)) &&
        !query.exclude.some((text) => line.includes(text))
      const ns = (at: Date) => `${BigInt(at.getTime()) * 1_000_000n}`
      let entries = streams.flatMap((stream) =>
        stream.lines.filter(({ at, line }) => kept(at, line)).map((entry) => ({ ...entry, component: stream.component })),
      )
      entries.sort((a, b) => a.at.getTime() - b.at.getTime())
      entries = query.direction === 'backward' ? entries.slice(-query.limit).reverse() : entries.slice(0, query.limit)
      const result = streams
        .map((stream) => ({
          stream: { component: stream.component, cluster_id: cluster.id },
          values: entries.filter((entry) => entry.component === stream.component).map((entry) => [ns(entry.at), entry.line]),
        }))
        .filter((stream) => stream.values.length > 0)
      return JSON.stringify({ status: 'success', data: { resultType: 'streams', result, stats: {} } })
    },

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

    /** READ; the provider editClusterDnsProvider gave, or QOVERY (Berth's own names) under the domain the cluster's services are named under. */
    async getDnsProvider(principal: Principal, clusterId: string): Promise<DnsProviderView> {
      const cluster = await operations.requireCluster(principal, clusterId, 'READ')
      const row = await db.selectFrom('clusterDnsProviders').selectAll().where('clusterId', '=', cluster.id).executeTakeFirst()
      return dnsView(row, servedDomain(cluster, operations.engineOf(cluster)))
    },

    /**
     * WRITE; replaces the provider. A Kubernetes cluster's services are named under its domain from
     * then on (its Ingress apps domain); the provider's secret is sealed and never answered.
     */
    async editDnsProvider(principal: Principal, clusterId: string, input: DnsProviderInput): Promise<DnsProviderView> {
      const cluster = await operations.requireCluster(principal, clusterId, 'WRITE')
      const errors = checkDns(input)
      if (errors.length > 0)
        throw new AppError('validation_failed', `dns_provider ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors })
      const domain = input.domain.toLowerCase().replace(/\.$/, '')
      const engine = operations.engineOf(cluster)
      const secret =
        input.provider === 'CLOUDFLARE' ? input.api_token : input.provider === 'ROUTE53' ? input.credentials?.aws_secret_access_key : undefined
      const values = {
        provider: input.provider,
        domain,
        email: input.provider === 'CLOUDFLARE' ? (input.email ?? null) : null,
        proxied: input.provider === 'CLOUDFLARE' ? (input.proxied ?? false) : null,
        awsRegion: input.provider === 'ROUTE53' ? (input.aws_region ?? null) : null,
        hostedZoneId: input.provider === 'ROUTE53' ? (input.hosted_zone_id ?? null) : null,
        awsAccessKeyId: input.provider === 'ROUTE53' ? (input.credentials?.aws_access_key_id ?? null) : null,
        secretSealed: secret ? secrets.seal(secret) : null,
        updatedAt: new Date(),
      }
      const row = await db.transaction().execute(async (trx) => {
        const written = await trx
          .insertInto('clusterDnsProviders')
          .values({ clusterId: cluster.id, organizationId: cluster.organizationId, ...values })
          .onConflict((oc) => oc.column('clusterId').doUpdateSet(values))
          .returningAll()
          .executeTakeFirstOrThrow()
        if (engine.kind === 'KUBERNETES') {
          await trx
            .updateTable('clusters')
            .set({
              advancedSettings: sql<string>`advanced_settings || ${JSON.stringify({ [INGRESS_SETTINGS.appsDomain]: domain })}::jsonb`,
              updatedAt: new Date(),
            })
            .where('id', '=', cluster.id)
            .execute()
        }
        return written
      })
      await logs.record(cluster, {
        type: 'info',
        step: 'LoadConfiguration',
        message: `DNS provider set to ${input.provider} for ${domain} by ${await actorName(principal)}`,
      })
      return dnsView(row, domain)
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

    MAX_LOG_LINES,
  }
}

export type ClusterAdminService = ReturnType<typeof createClusterAdminService>
