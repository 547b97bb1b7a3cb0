// Whether a git push deploys a service with deployment restrictions (docs/git-push.md, "Deployment
// restrictions"), as the platform documents them: a value is a path prefix from the repository's
// root (no leading slash, no wildcards; `docs/` covers everything under docs). A changed path counts
// when no EXCLUDE value covers it and, if the service has MATCH values, one of them covers it; the
// push deploys when at least one changed path counts. So EXCLUDE keeps pushes that changed only
// excluded paths from deploying, and MATCH deploys only pushes that changed a matched path.

export const RESTRICTION_MODES = ['EXCLUDE', 'MATCH'] as const
export type RestrictionMode = (typeof RESTRICTION_MODES)[number]
export const RESTRICTION_TYPES = ['PATH'] as const
export type RestrictionType = (typeof RESTRICTION_TYPES)[number]

export interface PathRestriction {
  mode: RestrictionMode
  type: RestrictionType
  value: string
}

/**
 * Whether a push that changed `changedPaths` deploys a service with `restrictions`. Unknown changes
 * (undefined: the provider did not list them, or listed only part of the push) deploy, as if the
 * service had no restrictions: a push is never dropped for what Berth could not see.
 */
export function pushDeploys(restrictions: readonly PathRestriction[], changedPaths: readonly string[] | undefined): boolean {
  if (restrictions.length === 0 || changedPaths === undefined) return true
  const excluded = restrictions.filter((r) => r.mode === 'EXCLUDE').map((r) => r.value)
  const matched = restrictions.filter((r) => r.mode === 'MATCH').map((r) => r.value)
  return changedPaths.some(
    (path) => !excluded.some((prefix) => path.startsWith(prefix)) && (matched.length === 0 || matched.some((prefix) => path.startsWith(prefix))),
  )
}

/** Why a PATH value cannot be used, or undefined when it can: the platform's rules, checked before anything is stored. */
export function pathValueProblem(value: string): string | undefined {
  if (value.startsWith('/')) return 'must not start with "/": paths are relative to the repository root'
  if (value.includes('*')) return 'must be a path prefix: wildcards (*) are not supported'
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'must not hold control characters'
  if (value.trim() === '') return 'must name a path'
  return undefined
}
