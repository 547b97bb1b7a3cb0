import type { FollowedBranch } from '#src/modules/services/service-kinds.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import { isPullRequestEvent, type PullRequestEvent, readPullRequest } from './pull-request-events.ts'
import type { WebhookProvider } from './webhook-signatures.ts'

// What a verified delivery says, read from each provider's headers and payload: the pushes to
// branches it reports, or why it deploys nothing (another event, a tag, a deleted branch).

type Headers = Record<string, string | string[] | undefined>

/** A push to a branch: what it deploys and who made it. */
export interface BranchPush {
  provider: FollowedBranch['provider']
  owner: string
  name: string
  branch: string
  /** The repository's default branch, when the event names it: services following "the default branch" match it. */
  defaultBranch: string | undefined
  /** The commit the branch now points at. */
  commit: string
  /** The commit it pointed at before, when the event says (a new branch: none); with `commit`, what tells a push from a replay of it. */
  previous: string | undefined
  /** The provider's user name of who pushed. */
  pusher: string
  /**
   * The paths the push changed (added, modified or removed by any of its commits), or undefined
   * when the event does not list them all: deployment restrictions are then not applied.
   */
  changedPaths: string[] | undefined
}

export type DeliveryReading = { pushes: BranchPush[] } | { pullRequest: PullRequestEvent } | { ignored: string } | { invalid: FieldError[] }

/** The header naming each provider's delivery, which a replay repeats. */
export const DELIVERY_HEADER: Record<WebhookProvider, string> = {
  github: 'x-github-delivery',
  gitlab: 'x-gitlab-event-uuid',
  bitbucket: 'x-request-uuid',
}

/** The header naming each provider's event. */
export const EVENT_HEADER: Record<WebhookProvider, string> = {
  github: 'x-github-event',
  gitlab: 'x-gitlab-event',
  bitbucket: 'x-event-key',
}

/** The event of each provider that reports pushes. */
export const PUSH_EVENT: Record<WebhookProvider, string> = { github: 'push', gitlab: 'Push Hook', bitbucket: 'repo:push' }

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name]
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

export const deliveryId = (provider: WebhookProvider, headers: Headers) => header(headers, DELIVERY_HEADER[provider])
export const eventName = (provider: WebhookProvider, headers: Headers) => header(headers, EVENT_HEADER[provider])

const COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i
const DELETED = /^0+$/
const BRANCH_REF = 'refs/heads/'
/** Longer names are cut: they go to the history's `triggered_by`. */
const PUSHER_MAX = 255

/** The value at `path` when it is a non-empty string, else undefined: payloads are read without trusting their shape. */
function text(value: unknown, ...path: string[]): string | undefined {
  let at = value
  for (const key of path) {
    if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, key)) return undefined
    at = (at as Record<string, unknown>)[key]
  }
  return typeof at === 'string' && at !== '' ? at : undefined
}

function list(value: unknown, ...path: string[]): unknown[] {
  let at = value
  for (const key of path) {
    if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, key)) return []
    at = (at as Record<string, unknown>)[key]
  }
  return Array.isArray(at) ? at : []
}

/**
 * The paths GitHub's and GitLab's push events list per commit (`added`, `modified`, `removed`), or
 * undefined when the list may be partial: no commit listed (a new branch at an existing commit, a
 * forced push), or fewer commits listed than pushed (GitLab lists 20 and counts them all in
 * `total_commits_count`; GitHub lists up to 2048 and counts them in `size` when it sends it).
 */
function changedPathsOf(payload: unknown, totalField: 'total_commits_count' | 'size'): string[] | undefined {
  const commits = list(payload, 'commits')
  if (commits.length === 0) return undefined
  const total = (payload as Record<string, unknown>)[totalField]
  if (typeof total === 'number' && total > commits.length) return undefined
  const paths = new Set<string>()
  for (const commit of commits) {
    for (const field of ['added', 'modified', 'removed']) {
      for (const path of list(commit, field)) if (typeof path === 'string' && path !== '') paths.add(path)
    }
  }
  return [...paths]
}

const bodyError = (path: string, message: string): FieldError => ({ path, message, location: 'body' })

/** `owner/name` split at its last slash (a GitLab group path may hold slashes). */
function ownerAndName(fullName: string | undefined): { owner: string; name: string } | undefined {
  const slash = fullName?.lastIndexOf('/') ?? -1
  if (fullName === undefined || slash <= 0 || slash === fullName.length - 1) return undefined
  return { owner: fullName.slice(0, slash), name: fullName.slice(slash + 1) }
}

const pusherName = (...candidates: (string | undefined)[]) => (candidates.find((name) => name !== undefined) ?? 'git push').slice(0, PUSHER_MAX)

/** GitHub's and GitLab's push payloads: one ref, its `after` commit. */
function readRefPush(provider: 'github' | 'gitlab', payload: unknown): DeliveryReading {
  const ref = text(payload, 'ref')
  if (ref === undefined) return { invalid: [bodyError('/ref', 'must be the pushed ref')] }
  if (!ref.startsWith(BRANCH_REF)) return { ignored: `${ref} is not a branch: tag pushes deploy nothing` }
  const after = text(payload, 'after')
  if ((payload as Record<string, unknown>).deleted === true || (after !== undefined && DELETED.test(after))) {
    return { ignored: `${ref} was deleted: deletions deploy nothing` }
  }
  const errors: FieldError[] = []
  if (after === undefined || !COMMIT.test(after)) errors.push(bodyError('/after', 'must be the commit the branch now points at'))
  const repository =
    provider === 'github' ? ownerAndName(text(payload, 'repository', 'full_name')) : ownerAndName(text(payload, 'project', 'path_with_namespace'))
  if (!repository) {
    errors.push(bodyError(provider === 'github' ? '/repository/full_name' : '/project/path_with_namespace', 'must name the repository as owner/name'))
  }
  if (errors.length > 0 || !repository || after === undefined) return { invalid: errors }
  const push: BranchPush = {
    provider: provider === 'github' ? 'GITHUB' : 'GITLAB',
    ...repository,
    branch: ref.slice(BRANCH_REF.length),
    defaultBranch: provider === 'github' ? text(payload, 'repository', 'default_branch') : text(payload, 'project', 'default_branch'),
    commit: after.toLowerCase(),
    previous: text(payload, 'before')?.toLowerCase(),
    pusher:
      provider === 'github'
        ? pusherName(text(payload, 'pusher', 'name'), text(payload, 'sender', 'login'))
        : pusherName(text(payload, 'user_username'), text(payload, 'user_name')),
    changedPaths: changedPathsOf(payload, provider === 'github' ? 'size' : 'total_commits_count'),
  }
  return { pushes: [push] }
}

/** Bitbucket Cloud's `repo:push`: one change per ref pushed; the branches that now point at a commit. */
function readBitbucketPush(payload: unknown): DeliveryReading {
  const repository = ownerAndName(text(payload, 'repository', 'full_name'))
  if (!repository) return { invalid: [bodyError('/repository/full_name', 'must name the repository as workspace/slug')] }
  const changes = list(payload, 'push', 'changes')
  const pusher = pusherName(text(payload, 'actor', 'nickname'), text(payload, 'actor', 'username'), text(payload, 'actor', 'display_name'))
  const pushes: BranchPush[] = []
  for (const change of changes) {
    // A deleted branch has no `new`; a tag is of type "tag".
    if (text(change, 'new', 'type') !== 'branch') continue
    const branch = text(change, 'new', 'name')
    const commit = text(change, 'new', 'target', 'hash')
    if (branch === undefined || commit === undefined || !COMMIT.test(commit)) continue
    pushes.push({
      provider: 'BITBUCKET',
      ...repository,
      branch,
      // Push payloads do not always carry it; services following the default branch need it named.
      defaultBranch: text(payload, 'repository', 'mainbranch', 'name'),
      commit: commit.toLowerCase(),
      previous: text(change, 'old', 'target', 'hash')?.toLowerCase(),
      pusher,
      // Bitbucket Cloud's push events list no files: restrictions cannot be applied (docs/git-push.md, "Deployment restrictions").
      changedPaths: undefined,
    })
  }
  return pushes.length > 0 ? { pushes } : { ignored: 'no branch was pushed to: tags and deletions deploy nothing' }
}

/** What a verified delivery of `event` says. */
export function readDelivery(provider: WebhookProvider, event: string | undefined, payload: unknown): DeliveryReading {
  if (event !== undefined && isPullRequestEvent(provider, event)) return readPullRequest(provider, event, payload)
  if (event !== PUSH_EVENT[provider]) return { ignored: `${event ?? 'an unnamed'} event: only pushes and pull requests deploy` }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
    return { invalid: [bodyError('', 'must be the push event, a JSON object')] }
  return provider === 'bitbucket' ? readBitbucketPush(payload) : readRefPush(provider, payload)
}
