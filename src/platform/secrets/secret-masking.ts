// What a deployed program prints is its own business, and it may print its secrets: every line a
// container or a build writes into a deployment's logs goes through a mask of the service's secret
// values first (docs/docker.md, "Deploying with Docker"), as CI systems mask theirs.

/** What a masked value shows as. */
export const MASK = '***'

/**
 * Secret parts shorter than this are not masked: a one- or two-character secret would mask every
 * occurrence of that text in the logs, and is no secret worth the name.
 */
export const MIN_MASKED_LENGTH = 4

/** A function that replaces every secret value (and each line of a multi-line one) in a text with MASK. */
export function secretMask(values: Iterable<string>): (text: string) => string {
  const parts = new Set<string>()
  for (const value of values) {
    for (const part of [value, ...value.split(/\r?\n/)]) {
      const trimmed = part.trim()
      if (trimmed.length >= MIN_MASKED_LENGTH) parts.add(trimmed)
    }
  }
  if (parts.size === 0) return (text) => text
  // Longest first, so that a secret containing another is masked whole.
  const ordered = [...parts].sort((a, b) => b.length - a.length)
  return (text) => {
    let masked = text
    for (const part of ordered) if (masked.includes(part)) masked = masked.split(part).join(MASK)
    return masked
  }
}

/** A log line longer than this is cut: a deployment's log is not a file store. */
export const MAX_LOG_LINE_LENGTH = 4096

/**
 * `mask`, then the line cut at MAX_LOG_LINE_LENGTH, in that order: cut first, a secret padded to
 * straddle the cut would show all but its last characters, which no longer match the mask.
 */
export function maskedLogLine(mask: (text: string) => string): (text: string) => string {
  return (text) => {
    const masked = mask(text)
    return masked.length > MAX_LOG_LINE_LENGTH ? `${masked.slice(0, MAX_LOG_LINE_LENGTH)} …` : masked
  }
}
