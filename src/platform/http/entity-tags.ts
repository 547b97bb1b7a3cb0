// Optimistic concurrency (a Berth extension). A resource's ETag is an opaque strong tag that
// changes whenever its representation does.

export const entityTag = (opaque: string): string => `"${opaque}"`

const TAG = /^\s*(W\/)?"([^"]*)"\s*$/

function tags(header: string): { weak: boolean; opaque: string }[] {
  return header
    .split(',')
    .map((part) => TAG.exec(part))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ weak: match[1] !== undefined, opaque: match[2]! }))
}

/**
 * The tags an If-Match header accepts: undefined when it is absent or `*` (any current
 * representation). If-Match compares strongly, so weak tags are dropped; an empty list matches
 * nothing.
 */
export function ifMatchTags(header: string | undefined): string[] | undefined {
  if (header === undefined || header.trim() === '*') return undefined
  return tags(header)
    .filter((tag) => !tag.weak)
    .map((tag) => tag.opaque)
}

/** True when If-None-Match names the current tag (or is `*`): the client's copy is current. */
export function ifNoneMatchHits(header: string | undefined, opaque: string): boolean {
  if (header === undefined) return false
  if (header.trim() === '*') return true
  // If-None-Match compares weakly: W/"x" and "x" are the same.
  return tags(header).some((tag) => tag.opaque === opaque)
}
