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
const PRIVATE_NAMES = /(^|\.)(localhost|localdomain|local|internal|invalid|test|example|home\.arpa)$/i

/** Why `domain` cannot be a custom domain, or undefined when it can. */
export function customDomainProblem(domain: string, reservedSuffixes: readonly string[] = []): string | undefined {
  if (domain.length === 0) return 'must not be empty'
  if (domain.length > MAX_LENGTH) return `must be at most ${MAX_LENGTH} characters`
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
