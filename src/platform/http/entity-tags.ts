// Optimistic concurrency (a Berth extension): a resource's ETag is its version number, strong.

export const entityTag = (version: number): string => `"${version}"`

const TAG = /^\s*(W\/)?"([^"]*)"\s*$/

/** The strong tags of an If-Match or If-None-Match list; weak tags never match strongly. */
function strongTags(header: string): string[] {
  return header
    .split(',')
    .map((part) => TAG.exec(part))
    .filter((match): match is RegExpExecArray => match !== null && match[1] === undefined)
    .map((match) => match[2]!)
}

/**
 * The versions an If-Match header accepts: undefined when it is absent or `*` (any current
 * version); an empty list, which nothing matches, when it names none of ours.
 */
export function ifMatchVersions(header: string | undefined): number[] | undefined {
  if (header === undefined || header.trim() === '*') return undefined
  return strongTags(header)
    .filter((tag) => /^\d{1,9}$/.test(tag))
    .map(Number)
}

/** True when If-None-Match names the current version (or `*`): the client's copy is current. */
export function ifNoneMatchHits(header: string | undefined, version: number): boolean {
  if (header === undefined) return false
  if (header.trim() === '*') return true
  // If-None-Match compares weakly: W/"3" and "3" are the same version.
  return header.split(',').some((part) => TAG.exec(part)?.[2] === String(version))
}
