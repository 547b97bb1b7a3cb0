import dns from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'
import { Agent, buildConnector } from 'undici'

// Ranges that carry an IPv4 address inside an IPv6 one: judged by the IPv4 address they lead to.
const EMBEDDED_IPV4: Record<string, (parts: number[]) => number[]> = {
  ipv4Mapped: (parts) => ipv4Of(parts[6]!, parts[7]!),
  rfc6145: (parts) => ipv4Of(parts[6]!, parts[7]!),
  rfc6052: (parts) => ipv4Of(parts[6]!, parts[7]!),
  '6to4': (parts) => ipv4Of(parts[1]!, parts[2]!),
}

const ipv4Of = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff]

/**
 * True when an IP address is an ordinary public unicast address: not loopback, private, link-local,
 * unique-local, carrier-grade NAT, multicast, reserved, or a cloud metadata address (169.254.169.254,
 * fd00:ec2::254, 100.100.100.200 all fall in those ranges). IPv4 inside IPv6 (mapped, NAT64, 6to4)
 * is judged by its IPv4 address. Anything unknown is not public.
 */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return false
  const parsed = ipaddr.parse(address)
  const range = parsed.range()
  if (parsed.kind() === 'ipv4') return range === 'unicast'
  const parts = (parsed as ipaddr.IPv6).parts
  const embedded = EMBEDDED_IPV4[range]
  if (embedded) return isPublicAddress(embedded(parts).join('.'))
  // ::/96 held IPv4-compatible addresses (::127.0.0.1); long deprecated, never a provider's.
  if (parts.slice(0, 6).every((part) => part === 0)) return false
  return range === 'unicast'
}

/** Host names that always lead into the server's own network, whatever DNS says. */
const LOCAL_NAMES = /(^|\.)(localhost|localdomain|internal|local)$|^metadata$|^metadata\.google\.internal$/i

/** A URL's host without IPv6 brackets and without a trailing dot. */
const bareHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '')

/**
 * Why a git_api_url may not be used when private addresses are refused, judged without DNS: an IP
 * literal outside the public ranges, a name such as `localhost`, or plain http, over which the
 * token would travel in clear. Undefined when nothing is seen; the address a name resolves to is
 * checked again when the provider is called (createGuardedAgent).
 */
export function gitApiUrlProblem(url: URL): string | undefined {
  const host = bareHost(url)
  if (isIP(host) !== 0 ? !isPublicAddress(host) : LOCAL_NAMES.test(host)) {
    return 'must not lead to a loopback, private, link-local or metadata address (the server allows it only with BERTH_ALLOW_PRIVATE_URLS=true)'
  }
  if (url.protocol !== 'https:') {
    return 'must be https: over plain http the git token would travel in clear (the server allows http only with BERTH_ALLOW_PRIVATE_URLS=true)'
  }
  return undefined
}

/** A connection to a git provider that would have reached an address of the server's own network. */
export class PrivateAddressError extends Error {
  constructor(readonly host: string) {
    super(`${host} leads to a loopback, private, link-local or metadata address`)
    this.name = 'PrivateAddressError'
  }
}

/**
 * Resolves like dns.lookup, but fails when any address of the name is not public. The connection
 * then goes to an address this very lookup checked, so a name that resolves differently a moment
 * later (DNS rebinding) cannot slip through.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '')
    if (addresses.length === 0 || addresses.some((found) => !isPublicAddress(found.address))) {
      return callback(new PrivateAddressError(hostname), '')
    }
    if (options.all) return callback(null, addresses)
    return callback(null, addresses[0]!.address, addresses[0]!.family)
  })
}

/**
 * The HTTP agent for calls to git providers. Unless private addresses are allowed, it connects only
 * to public addresses, for every connection it makes: the first call, pagination links, redirects.
 */
export function createGuardedAgent(allowPrivateAddresses: boolean, tls: { rejectUnauthorized?: boolean } = {}): Agent {
  if (allowPrivateAddresses) return new Agent({ connect: tls })
  const connect = buildConnector({ lookup: publicOnlyLookup, ...tls })
  return new Agent({
    connect(options, callback) {
      // An IP literal never goes through the lookup: check it here.
      const host = options.hostname.replace(/^\[(.*)\]$/, '$1')
      if (isIP(host) !== 0 && !isPublicAddress(host)) return callback(new PrivateAddressError(host), null)
      return connect(options, callback)
    },
  })
}

/** What resolveHost found: the addresses a host leads to, or why it may not be used. */
export type HostCheck = { ok: true; addresses: string[] } | { ok: false; reason: string; unresolved?: true }

/**
 * What the operator can do about a refused host: a private address is allowed by
 * BERTH_ALLOW_PRIVATE_URLS; a name that does not resolve is not helped by it, so the advice says so.
 */
export function refusedHostAdvice(check: { unresolved?: true }, what: string): string {
  return check.unresolved
    ? `check the name and the server's DNS (BERTH_ALLOW_PRIVATE_URLS does not help with a name that does not resolve)`
    : `the server uses such ${what} only with BERTH_ALLOW_PRIVATE_URLS=true`
}

/**
 * Resolves a host (an IP literal as itself) and judges every address it leads to: refused when any
 * of them is not public (loopback, private, link-local, metadata…), as git calls are. A name that does
 * not resolve is refused too. For what another program (the Docker engine, helm)
 * connects to on its own: check right before it does.
 */
export async function resolveHost(hostname: string): Promise<HostCheck> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '')
  let addresses: string[]
  if (isIP(host) !== 0) addresses = [host]
  else if (LOCAL_NAMES.test(host)) return { ok: false, reason: `${host} is a name of the server's own network` }
  else {
    try {
      addresses = (await dns.promises.lookup(host, { all: true })).map((found) => found.address)
    } catch (error) {
      return { ok: false, reason: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})`, unresolved: true }
    }
  }
  const inside = addresses.filter((address) => !isPublicAddress(address))
  if (addresses.length === 0 || inside.length > 0) {
    return { ok: false, reason: `${host} leads to a loopback, private, link-local or metadata address (${inside.join(', ') || 'none'})` }
  }
  return { ok: true, addresses }
}
