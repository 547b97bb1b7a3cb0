import { Resolver } from 'node:dns/promises'
import { isPublicAddress } from '#src/modules/git-providers/address-guard.ts'
import { isWildcard } from './custom-domain-rules.ts'

// The DNS check of a custom domain (checkCustomDomain): real look-ups, each bounded by a timeout.
// As the reference describes: a domain behind a CDN (`use_cdn`) only has to resolve to an address,
// any other must have a CNAME to the service's validation domain. An address of the server's own
// network (loopback, private, link-local, metadata) is not a valid target unless the setting that
// lets outbound calls go there (BERTH_ALLOW_PRIVATE_URLS) allows it, so that the check never
// vouches for a domain that leads inside. An address proves nothing of who controls the name (any
// public A record passes), so a `use_cdn` domain also proves control with a TXT record holding the
// domain's own token (verificationRecord), as Vercel and Render ask.

/** The reference's CheckedCustomDomainStatus. */
export const CHECKED_STATUSES = [
  'RESOLVES_TO_IP',
  'MATCHES_LOAD_BALANCER_HOST',
  'DOMAIN_NOT_CONFIGURED',
  'DOMAIN_LINKED_TO_WRONG_HOST',
  'GENERIC_FAILURE',
] as const
export type CheckedStatus = (typeof CHECKED_STATUSES)[number]

/** The outcomes of a check after which the front door serves the domain (docs/front-door.md). */
export const PASSING_CHECKS: readonly CheckedStatus[] = ['MATCHES_LOAD_BALANCER_HOST', 'RESOLVES_TO_IP']

export interface DomainCheck {
  status: CheckedStatus
  errorDetails: string | null
}

/** The look-ups a check makes (node:dns/promises' Resolver). */
export interface DomainResolver {
  resolveCname(name: string): Promise<string[]>
  resolve4(name: string): Promise<string[]>
  resolve6(name: string): Promise<string[]>
  resolveTxt(name: string): Promise<string[][]>
  cancel(): void
}

export interface DnsCheckSettings {
  /** BERTH_DOMAIN_CHECK_TIMEOUT_MS: the most a check of one domain waits for DNS. */
  timeoutMs: number
  /** BERTH_DOMAIN_CHECK_DNS_SERVERS: the servers asked (`ip` or `ip:port`); the system's when empty. */
  servers: readonly string[]
  /** BERTH_ALLOW_PRIVATE_URLS: addresses of the server's own network count as configured. */
  allowPrivateAddresses: boolean
}

/** A resolver of its own per check, so that cancelling it at the deadline cancels nothing else. */
export function systemResolver(settings: Pick<DnsCheckSettings, 'timeoutMs' | 'servers'>): DomainResolver {
  const resolver = new Resolver({ timeout: settings.timeoutMs, tries: 1 })
  if (settings.servers.length > 0) resolver.setServers([...settings.servers])
  return resolver
}

/** The TXT record a `use_cdn` domain proves control with: its name and the value it must hold. */
export function verificationRecord(domain: string, token: string): { name: string; value: string } {
  const base = isWildcard(domain) ? domain.slice(2) : domain
  return { name: `_berth-challenge.${base.toLowerCase()}`, value: `berth-verification=${token}` }
}

/** The name looked up for a wildcard: any name under it answers as the wildcard record does. */
const WILDCARD_PROBE = 'berth-wildcard-check'

const bare = (name: string) => name.replace(/\.$/, '').toLowerCase()

const codeOf = (error: unknown): string => (error as { code?: string })?.code ?? 'EUNKNOWN'

/** No such name (NXDOMAIN), or the name has no record of the type asked. */
const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA'])

const failure = (name: string, error: unknown): DomainCheck => ({
  status: 'GENERIC_FAILURE',
  errorDetails:
    codeOf(error) === 'ETIMEOUT' || codeOf(error) === 'ECANCELLED'
      ? `the DNS look-up of ${name} timed out`
      : `the DNS look-up of ${name} failed (${codeOf(error)})`,
})

/**
 * Checks one domain with `resolver`: never throws, and gives up after `timeoutMs` (the resolver is
 * then cancelled and the check is a GENERIC_FAILURE).
 */
export async function checkDomain(
  domain: { domain: string; useCdn: boolean; validationDomain: string; verificationToken: string },
  resolver: DomainResolver,
  settings: Pick<DnsCheckSettings, 'timeoutMs' | 'allowPrivateAddresses'>,
): Promise<DomainCheck> {
  const name = isWildcard(domain.domain) ? `${WILDCARD_PROBE}.${domain.domain.slice(2)}` : domain.domain
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<DomainCheck>((resolve) => {
    timer = setTimeout(() => {
      resolver.cancel()
      resolve({ status: 'GENERIC_FAILURE', errorDetails: `the DNS look-up of ${name} timed out` })
    }, settings.timeoutMs)
  })
  try {
    const lookup = domain.useCdn
      ? checkAddresses(name, resolver, settings.allowPrivateAddresses).then((outcome) =>
          outcome.status === 'RESOLVES_TO_IP' ? checkOwnership(verificationRecord(domain.domain, domain.verificationToken), resolver) : outcome,
        )
      : checkCname(name, domain.validationDomain, resolver)
    return await Promise.race([lookup, deadline])
  } finally {
    clearTimeout(timer)
  }
}

async function checkCname(name: string, validationDomain: string, resolver: DomainResolver): Promise<DomainCheck> {
  let targets: string[]
  try {
    targets = (await resolver.resolveCname(name)).map(bare)
  } catch (error) {
    if (!NOT_FOUND.has(codeOf(error))) return failure(name, error)
    const why = codeOf(error) === 'ENOTFOUND' ? 'does not exist in DNS' : 'has no CNAME record'
    return { status: 'DOMAIN_NOT_CONFIGURED', errorDetails: `${name} ${why}: create a CNAME record pointing to ${validationDomain}` }
  }
  if (targets.includes(bare(validationDomain))) return { status: 'MATCHES_LOAD_BALANCER_HOST', errorDetails: null }
  return {
    status: 'DOMAIN_LINKED_TO_WRONG_HOST',
    errorDetails: `${name} is a CNAME of ${targets.join(', ')}, not of ${validationDomain}`,
  }
}

async function checkAddresses(name: string, resolver: DomainResolver, allowPrivateAddresses: boolean): Promise<DomainCheck> {
  const answers = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)])
  const addresses = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []))
  const errors = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason] : []))
  if (addresses.length === 0) {
    const unexpected = errors.find((error) => !NOT_FOUND.has(codeOf(error)))
    if (unexpected !== undefined) return failure(name, unexpected)
    return { status: 'DOMAIN_NOT_CONFIGURED', errorDetails: `${name} resolves to no IP address` }
  }
  const inside = addresses.filter((address) => !isPublicAddress(address))
  if (!allowPrivateAddresses && inside.length > 0) {
    return {
      status: 'DOMAIN_LINKED_TO_WRONG_HOST',
      errorDetails:
        `${name} resolves to ${inside.join(', ')}, a loopback, private, link-local or metadata address; ` +
        'the server accepts those only with BERTH_ALLOW_PRIVATE_URLS=true',
    }
  }
  return { status: 'RESOLVES_TO_IP', errorDetails: null }
}

/** Whether the domain's TXT record holds its token: the proof of control a `use_cdn` domain gives. */
async function checkOwnership(record: { name: string; value: string }, resolver: DomainResolver): Promise<DomainCheck> {
  const missing: DomainCheck = {
    status: 'DOMAIN_NOT_CONFIGURED',
    errorDetails: `the domain resolves, but its control is not proven: add a TXT record ${record.name} with the value "${record.value}"`,
  }
  let values: string[]
  try {
    values = (await resolver.resolveTxt(record.name)).map((chunks) => chunks.join(''))
  } catch (error) {
    return NOT_FOUND.has(codeOf(error)) ? missing : failure(record.name, error)
  }
  return values.includes(record.value) ? { status: 'RESOLVES_TO_IP', errorDetails: null } : missing
}
