import { validationFailed } from '#src/platform/http/errors.ts'
import type { GitCommit } from './git-provider-adapter.ts'
import { unexpectedAnswer } from './provider-http.ts'

// What the three adapters share about commits: the error for a commit the provider does not know,
// the limits of a listing, and the reading of the provider's answers.

/** The most commits one listing reads: one page at every provider. */
export const MAX_COMMITS = 100
/** Tags are looked up among the first page the provider lists: a tag outside it is not shown. */
export const TAGS_PAGE = 100

/**
 * A commit id or branch the provider does not know: a 400 at the request's `git_commit_id` (a deploy
 * names the commit there; a commit listing's `gitCommitId` query is reported at its own name by the caller).
 */
export const commitNotFound = (provider: string, repository: string, ref: string) =>
  validationFailed([
    { path: '/git_commit_id', message: `${provider} knows no commit or branch "${ref}" in repository "${repository}"`, location: 'body' },
  ])

/** A string field of a provider's answer, else 502. */
export function text(value: unknown, provider: string): string {
  if (typeof value !== 'string') throw unexpectedAnswer(provider)
  return value
}

/** An optional string field: undefined unless the provider gave a non-empty string. */
export const optionalText = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

/** `body` as a list of objects, else 502. */
export function objects(body: unknown, provider: string): Record<string, unknown>[] {
  if (!Array.isArray(body) || body.some((item) => item === null || typeof item !== 'object')) throw unexpectedAnswer(provider)
  return body
}

/** A date as ISO 8601 in UTC; 502 when the provider's is not a date. */
export function isoDate(value: unknown, provider: string): string {
  const time = Date.parse(text(value, provider))
  if (Number.isNaN(time)) throw unexpectedAnswer(provider)
  return new Date(time).toISOString()
}

/** The commits with the tag each one carries, from a map of tags by commit id (the first tag listed wins). */
export const withTags = (commits: Omit<GitCommit, 'tag'>[], tags: ReadonlyMap<string, string>): GitCommit[] =>
  commits.map((commit) => ({ ...commit, tag: tags.get(commit.id) ?? '' }))

/** Tags by the commit they point at, keeping the first the provider lists for each commit. */
export function tagsByCommit(pairs: [commitId: string, tag: string][]): Map<string, string> {
  const tags = new Map<string, string>()
  for (const [commitId, tag] of pairs) if (!tags.has(commitId)) tags.set(commitId, tag)
  return tags
}
