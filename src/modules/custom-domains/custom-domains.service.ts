import { DEFAULT_SERVICE_DOMAIN } from '#src/modules/services/kinds/container/container-links.ts'
import type { HelmPort } from '#src/modules/services/kinds/helm/helm.types.ts'
import type { RequireService } from '#src/modules/services/require-service.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { type ServiceLink, SIMULATED_LINK_DOMAIN, serviceLinks } from '#src/modules/services/service-links.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { withUniqueName } from '#src/platform/db/errors.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { customDomainProblem, ownNameProblem } from './custom-domain-rules.ts'
import {
  type CustomDomainInput,
  type CustomDomainRow,
  type CustomDomainsRepository,
  DOMAIN_KEY,
  type DomainHolder,
} from './custom-domains.repository.ts'
import {
  type CheckedStatus,
  checkDomain,
  type DnsCheckSettings,
  type DomainCheck,
  type DomainResolver,
  PASSING_CHECKS,
  systemResolver,
} from './dns-check.ts'

// Custom domains of applications, containers and helm services: one table, one set of rules, the
// kind only choosing which services a route accepts (a container's id on a helm route is a 404).

/** A kind that has custom domains (its descriptor's `features.customDomains`). */
export type DomainKind = ServiceType

/** The certificate the front door serves for a domain (front-door/certificate-probe.ts). */
export interface DomainCertificate {
  state: 'ISSUED' | 'PENDING' | 'NOT_SERVED'
  issuer: string | null
  expiresAt: Date | null
}

/** A custom domain with the host its CNAME must point at, and its certificate when a front door runs. */
export interface CustomDomainRecord extends CustomDomainRow {
  validationDomain: string
  certificate?: DomainCertificate | undefined
}

export interface CheckedDomain extends DomainCheck {
  domain: string
}

/** What withCustomDomainLinks needs of a link. */
export interface LinkLike {
  url: string
  is_default: boolean
  is_qovery_domain: boolean
}

/** The most domains one service holds: bounds what a check looks up. */
export const MAX_DOMAINS_PER_SERVICE = 100

export interface CustomDomainsDeps {
  repo: CustomDomainsRepository
  requireService: RequireService
  dnsCheck: DnsCheckSettings
  /** A resolver for one check; node's, asking dnsCheck.servers, when absent. */
  resolver?: () => DomainResolver
  /** The host a domain of the service must point at (its kind's `customDomains.validationDomain`). */
  validationDomainOf(service: ServiceRecord): string
  /** Told when what the front door serves may have changed (a domain edited, deleted or checked); awaited (docs/front-door.md). */
  onRoutesChanged?: ((reason: string) => Promise<void>) | undefined
  /** BERTH_APPS_DOMAIN when the front door runs: names under it are Berth's own. */
  appsDomain?: string | undefined
  /** BERTH_OWN_HOST_NAMES and BERTH_DOCKER_PUBLIC_HOST: Berth's own names, which no domain (nor a wildcard over one) may take. */
  ownHostNames?: readonly string[] | undefined
  /** A service by id, whatever its organization: a domain's holder, checked again when another service claims its name. */
  findService(serviceId: string): Promise<ServiceRecord | undefined>
  /** When the front door runs: the certificate it serves for a domain it routes. */
  certificateOf?: ((domain: string) => Promise<DomainCertificate>) | undefined
}

/** Names Berth gives services itself: no custom domain may be under them. */
const RESERVED = [SIMULATED_LINK_DOMAIN, DEFAULT_SERVICE_DOMAIN]

/**
 * The service's links with one per custom domain added after them: `https://<domain>` to the port of
 * the default link (`is_default: true`, `is_qovery_domain: false`), as the reference shows a domain
 * of the user's. Without a public web port there is nothing a domain could lead to, and no link.
 */
export function withCustomDomainLinks<L extends LinkLike>(links: L[], domains: readonly string[]): L[] {
  const target = links.find((link) => link.is_default && link.url.startsWith('https://'))
  if (!target) return links
  return [...links, ...domains.map((domain) => ({ ...target, url: `https://${domain}`, is_qovery_domain: false, is_default: true }))]
}

const domainTaken = (domain: string) =>
  validationFailed([{ path: '/domain', message: `"${domain}" is already a custom domain of a service of this organization`, location: 'body' }])

/** Another service (of any organization) holds the name: its check proved it first, and proves it still. */
const domainHeld = (domain: string, holder: DomainHolder) =>
  new AppError(
    'conflict',
    `"${domain}" is held by another service on this server: its DNS proved "${holder.domain}" to that service first, and still does. ` +
      'The name is freed once its DNS no longer leads to that service (its CNAME, or for use_cdn its TXT record, removed): then add it again.',
    { errors: [{ path: '/domain', message: `held by another service ("${holder.domain}")`, location: 'body' }] },
  )

/** A passing check of a name another service holds: recorded as a failure saying why. */
const heldOutcome = (domain: string) => (holder: DomainHolder) => ({
  status: 'DOMAIN_LINKED_TO_WRONG_HOST' as const,
  errorDetails: `${domain} is held by another service on this server ("${holder.domain}" was proved first): it is not routed here`,
})

export function createCustomDomainsService(deps: CustomDomainsDeps) {
  const { repo, dnsCheck } = deps
  const newResolver = deps.resolver ?? (() => systemResolver(dnsCheck))

  const requireKind = async (principal: Principal, type: DomainKind, serviceId: string, needed: Role) =>
    (await deps.requireService(principal, serviceId, needed, type)).service

  const record =
    (service: ServiceRecord) =>
    (row: CustomDomainRow): CustomDomainRecord => ({ ...row, validationDomain: deps.validationDomainOf(service) })

  /** Its certificate, when a front door runs: none for a domain whose check has not passed (it is not routed). */
  const withCertificate =
    (service: ServiceRecord) =>
    async (domain: CustomDomainRecord): Promise<CustomDomainRecord> => {
      // The front door serves the kinds with custom domains but helm, whose chart brings its own ingress.
      if (!deps.certificateOf || service.kind === 'HELM') return domain
      const routed = domain.verifiedAt !== null && domain.checkStatus !== null && PASSING_CHECKS.includes(domain.checkStatus as CheckedStatus)
      const certificate = routed ? await deps.certificateOf(domain.domain) : { state: 'NOT_SERVED' as const, issuer: null, expiresAt: null }
      return { ...domain, certificate }
    }

  const ownNames = [...(deps.ownHostNames ?? []), ...(deps.appsDomain ? [deps.appsDomain] : [])]
  const checkInput = (input: CustomDomainInput): CustomDomainInput => {
    const problem =
      customDomainProblem(input.domain, deps.appsDomain ? [...RESERVED, deps.appsDomain] : RESERVED) ?? ownNameProblem(input.domain, ownNames)
    if (problem !== undefined) throw validationFailed([{ path: '/domain', message: problem, location: 'body' }])
    return input
  }

  /** Checks a domain now and records the outcome (a passing check verifies it, unless another service holds the name). */
  const checkAndRecord = async (service: ServiceRecord, row: CustomDomainRow): Promise<CheckedDomain> => {
    const domain = record(service)(row)
    const outcome = await checkDomain(domain, newResolver(), dnsCheck)
    const passed = PASSING_CHECKS.includes(outcome.status)
    const recorded = await repo.recordCheck(domain, { ...outcome, passed }, heldOutcome(domain.domain))
    return { domain: domain.domain, status: recorded.status as CheckedStatus, errorDetails: recorded.errorDetails }
  }

  /**
   * Checks the holders of a name again (their verification may be gone: DNS changed since); true
   * when one still holds it. Each outcome is recorded, so a holder whose check fails stops being routed.
   */
  const stillHeld = async (holders: readonly DomainHolder[]): Promise<DomainHolder | undefined> => {
    for (const holder of holders) {
      const service = await deps.findService(holder.serviceId)
      const row = service ? await repo.find(service.organizationId, service.id, holder.id) : undefined
      if (!service || !row) continue
      const outcome = await checkAndRecord(service, row)
      if (PASSING_CHECKS.includes(outcome.status)) return holder
    }
    return undefined
  }

  /**
   * Runs a claim (an insert or a rename): 409 when the unique key (DOMAIN_KEY) already has the
   * domain; when held, checks the holders again and tries once more if none still holds.
   */
  const claim = <R>(domain: string, write: () => Promise<R | { held: DomainHolder[] }>): Promise<R> =>
    withUniqueName(
      DOMAIN_KEY,
      () => domainTaken(domain),
      async () => {
        for (let attempt = 0; ; attempt++) {
          const written = await write()
          if (typeof written !== 'object' || written === null || !('held' in written)) return written as R
          const holder = (await stillHeld(written.held)) ?? (attempt > 0 ? written.held[0] : undefined)
          if (holder) throw domainHeld(domain, holder)
        }
      },
    )

  return {
    async list(principal: Principal, type: DomainKind, serviceId: string): Promise<CustomDomainRecord[]> {
      const service = await requireKind(principal, type, serviceId, 'READ')
      return Promise.all((await repo.list(service.organizationId, service.id)).map(record(service)).map(withCertificate(service)))
    },

    async get(principal: Principal, type: DomainKind, serviceId: string, customDomainId: string): Promise<CustomDomainRecord> {
      const service = await requireKind(principal, type, serviceId, 'READ')
      const row = await repo.find(service.organizationId, service.id, customDomainId)
      if (!row) throw notFound('custom domain')
      return withCertificate(service)(record(service)(row))
    },

    /** 400 when the domain is invalid, already a domain of the organization, or the service holds MAX_DOMAINS_PER_SERVICE. */
    async create(principal: Principal, type: DomainKind, serviceId: string, input: CustomDomainInput): Promise<CustomDomainRecord> {
      const service = await requireKind(principal, type, serviceId, 'WRITE')
      const checked = checkInput(input)
      const row = await claim(input.domain, () => repo.insert(service.organizationId, service.id, checked, MAX_DOMAINS_PER_SERVICE))
      if (row === 'gone') throw notFound(type.toLowerCase())
      if (row === 'full') {
        const message = `the service already has ${MAX_DOMAINS_PER_SERVICE} custom domains, the most it may`
        throw validationFailed([{ path: '/domain', message, location: 'body' }])
      }
      return record(service)(row)
    },

    async update(
      principal: Principal,
      type: DomainKind,
      serviceId: string,
      customDomainId: string,
      input: CustomDomainInput,
    ): Promise<CustomDomainRecord> {
      const service = await requireKind(principal, type, serviceId, 'WRITE')
      const checked = checkInput(input)
      const row = await claim(input.domain, () => repo.update(service.organizationId, service.id, customDomainId, checked))
      if (!row) throw notFound('custom domain')
      await deps.onRoutesChanged?.('custom domain edited')
      return record(service)(row)
    },

    async delete(principal: Principal, type: DomainKind, serviceId: string, customDomainId: string): Promise<void> {
      const service = await requireKind(principal, type, serviceId, 'WRITE')
      if (!(await repo.delete(service.organizationId, service.id, customDomainId))) throw notFound('custom domain')
      await deps.onRoutesChanged?.('custom domain deleted')
    },

    /**
     * Looks every domain of the service up in DNS (all at once, each within the timeout) and records
     * each outcome with its domain; READ suffices, as for the reference's GET.
     */
    async check(principal: Principal, type: DomainKind, serviceId: string): Promise<CheckedDomain[]> {
      const service = await requireKind(principal, type, serviceId, 'READ')
      const rows = await repo.list(service.organizationId, service.id)
      const checked = await Promise.all(rows.map((row) => checkAndRecord(service, row)))
      if (checked.length > 0) await deps.onRoutesChanged?.('custom domains checked')
      return checked
    },

    /** The service's domains whose last check passed: those the front door serves. */
    servedDomains: (service: { organizationId: string; id: string }): Promise<string[]> => repo.servedDomainsOf(service.organizationId, service.id),

    /** A service's links (the caller read the service) with a link per custom domain added (withCustomDomainLinks). */
    withLinks: async <L extends LinkLike>(service: { organizationId: string; id: string }, links: L[]): Promise<L[]> =>
      withCustomDomainLinks(links, await repo.domainsOf(service.organizationId, service.id)),

    /** The helm service's links (listHelmLinks): one per port (all of a chart's ports are public), then its custom domains. */
    async helmLinks(principal: Principal, helmId: string): Promise<ServiceLink[]> {
      const service = (await requireKind(principal, 'HELM', helmId, 'READ')) as ServiceRecord<{ ports: HelmPort[] }>
      const ports = service.configuration.ports.map((port) => ({ ...port, publiclyAccessible: true }))
      return withCustomDomainLinks(serviceLinks({ id: service.id, kind: 'HELM' }, ports), await repo.domainsOf(service.organizationId, service.id))
    },
  }
}

export type CustomDomainsService = ReturnType<typeof createCustomDomainsService>
