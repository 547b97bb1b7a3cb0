import { isIP } from 'node:net'

// What a custom domain may be. A domain is a host name of the public DNS in ASCII (internationalised
// names in their `xn--` form): RFC 1123 labels of letters, digits and hyphens, 1 to 63 characters,
// neither starting nor ending with a hyphen, at least two labels, at most 253 characters, a top-level
// label that is not all digits (so that no IPv4 address passes), no trailing dot. A wildcard is one
// `*` as the whole leftmost label, over at least two more labels (`*.example.com`), as the platform
// accepts for routing every sub-domain to the service. Names of the server's own network
// (`localhost`, `.local`, `.internal`, …) and Berth's own link domains are refused: they can
// never be pointed at a service from the public DNS.

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i
const MAX_LENGTH = 253
/**
 * The longest name the front door can obtain a certificate for: Caddy names the lock it takes while
 * obtaining one `issue_cert_<name>.lock` (a wildcard's `*` written `wildcard_`), and a file name
 * holds at most 255 bytes; a longer name would be routed and never get its certificate.
 */
const MAX_CERTIFICATE_NAME = 255 - 'issue_cert_'.length - '.lock'.length
const certificateNameLength = (domain: string) => domain.replace(/^\*/, 'wildcard_').length
const PRIVATE_NAMES = /(^|\.)(localhost|localdomain|local|internal|invalid|test|example|home\.arpa)$/i

/** Why `domain` cannot be a custom domain, or undefined when it can. */
export function customDomainProblem(domain: string, reservedSuffixes: readonly string[] = []): string | undefined {
  if (domain.length === 0) return 'must not be empty'
  if (domain.length > MAX_LENGTH) return `must be at most ${MAX_LENGTH} characters`
  if (certificateNameLength(domain) > MAX_CERTIFICATE_NAME)
    return `must be at most ${MAX_CERTIFICATE_NAME} characters (${MAX_CERTIFICATE_NAME - 8} for a wildcard): the front door cannot obtain a certificate for a longer name`
  if (isIP(domain.replace(/^\[(.*)\]$/, '$1')) !== 0) return 'must be a domain name, not an IP address'
  if (domain.endsWith('.')) return 'must not end with a dot'
  if (/[^\x21-\x7e]/.test(domain)) return 'must be ASCII without spaces (write an internationalised name in its xn-- form)'
  const labels = domain.split('.')
  const wildcard = labels[0] === '*'
  const named = wildcard ? labels.slice(1) : labels
  if (named.includes('*') || named.some((label) => label.includes('*'))) return 'may hold a wildcard only as its whole leftmost label (*.example.com)'
  if (named.length < 2) return wildcard ? 'must have at least two labels after the wildcard' : 'must have at least two labels (app.example.com)'
  const bad = named.find((label) => !LABEL.test(label))
  if (bad !== undefined)
    return bad.length === 0
      ? 'must not have empty labels'
      : `has an invalid label "${bad.slice(0, 63)}": labels are 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen`
  if (/^\d+$/.test(named.at(-1)!)) return 'must not end with an all-digit label (an IP address is not a domain)'
  const lower = domain.toLowerCase()
  if (PRIVATE_NAMES.test(lower)) return 'must be a name of the public DNS, not a reserved or local one'
  const reserved = reservedSuffixes.find((suffix) => lower === suffix || lower.endsWith(`.${suffix}`))
  if (reserved !== undefined) return `must not be under ${reserved}, where Berth names services itself`
  return undefined
}

/** True when the domain is a wildcard (`*.example.com`). */
export const isWildcard = (domain: string): boolean => domain.startsWith('*.')

/** The name without its first label (`shop.example.com` → `example.com`). */
export const parentOf = (name: string): string => name.slice(name.indexOf('.') + 1)

/**
 * Whether two domains can name one host: equal (case aside), or a wildcard and a name one label
 * under it (Caddy's wildcards, as certificates', cover one label).
 */
export function overlaps(a: string, b: string): boolean {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()]
  if (x === y) return true
  if (isWildcard(x) && parentOf(x) === parentOf(y)) return true
  return isWildcard(y) && parentOf(y) === parentOf(x)
}

/**
 * Why `domain` would take one of Berth's own names (its host names, the apps domain's own name),
 * itself or through a wildcard over it; undefined when it takes none.
 */
export function ownNameProblem(domain: string, ownNames: readonly string[]): string | undefined {
  const taken = ownNames.find((name) => overlaps(domain, name))
  if (taken === undefined) return undefined
  return taken.toLowerCase() === domain.toLowerCase()
    ? `"${taken}" is a name of this Berth server itself`
    : `a wildcard over "${taken}", a name of this Berth server itself, is refused`
}
