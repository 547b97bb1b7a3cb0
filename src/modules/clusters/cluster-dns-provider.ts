// A cluster's DNS provider: the one editClusterDnsProvider gave (its secret sealed), or Berth's own names.
import { type Selectable, sql } from 'kysely'
import type { Principal } from '#src/platform/auth/principal.ts'
import { AppError, type FieldError } from '#src/platform/http/errors.ts'
import type { ClusterAdminBasics, ClusterAdminDeps } from './cluster-admin-deps.ts'
import { INGRESS_SETTINGS } from './cluster-advanced-settings.ts'
import type { ClusterDnsProvidersTable } from './cluster-locks.tables.ts'

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

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export function createClusterDnsProvider({ db, operations, logs, secrets, actorName }: ClusterAdminDeps, { servedDomain }: ClusterAdminBasics) {
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
  }
}
