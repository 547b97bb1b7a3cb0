import type { FollowedBranch } from '#src/modules/services/service-kinds.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { WebhookProvider } from './webhook-signatures.ts'

// What a verified pull (GitLab: merge) request delivery says, read from each provider's payload:
// a pull request opened, updated or closed, with its base and head, or why it asks nothing of
// previews (another action: a label, an edit, an approval). docs/previews.md.

/** What the pull request's event asks of its preview. */
export type PullRequestAction = 'OPEN' | 'UPDATE' | 'CLOSE'

export interface PullRequestEvent {
  provider: FollowedBranch['provider']
  /** The base (target) repository: the one the source environment's services build. */
  owner: string
  name: string
  number: number
  action: PullRequestAction
  /** The branch the pull request merges into: what the source environment deploys. */
  baseBranch: string
  defaultBranch: string | undefined
  headBranch: string
  /** The commit the pull request's head is at: what its preview builds (Bitbucket sends it abbreviated). */
  headCommit: string
  title: string
  url: string | null
  /** The provider's user name of who acted. */
  author: string
  /** When the pull request was last updated, as the event says: what orders its events (undefined: the event does not say). */
  eventAt: Date | undefined
}

export type PullRequestReading = { pullRequest: PullRequestEvent } | { ignored: string } | { invalid: FieldError[] }

/** The events that carry pull requests; Bitbucket names each action as its own event. */
export const PULL_REQUEST_EVENTS: Record<WebhookProvider, Record<string, PullRequestAction | undefined> | string> = {
  github: 'pull_request',
  gitlab: 'Merge Request Hook',
  bitbucket: { 'pullrequest:created': 'OPEN', 'pullrequest:updated': 'UPDATE', 'pullrequest:fulfilled': 'CLOSE', 'pullrequest:rejected': 'CLOSE' },
}

const GITHUB_ACTIONS: Record<string, PullRequestAction> = { opened: 'OPEN', reopened: 'OPEN', synchronize: 'UPDATE', closed: 'CLOSE' }
const GITLAB_ACTIONS: Record<string, PullRequestAction> = { open: 'OPEN', reopen: 'OPEN', update: 'UPDATE', close: 'CLOSE', merge: 'CLOSE' }

/** Whether `event` is one of the provider's pull request events. */
export function isPullRequestEvent(provider: WebhookProvider, event: string | undefined): boolean {
  const events = PULL_REQUEST_EVENTS[provider]
  return event !== undefined && (typeof events === 'string' ? events === event : Object.hasOwn(events, event))
}

/** Full commit ids, or (Bitbucket) the 12 digits its pull request events give. */
const COMMIT = /^[0-9a-f]{7,64}$/i
const TITLE_MAX = 255

function at(value: unknown, ...path: string[]): unknown {
  let here = value
  for (const key of path) {
    if (here === null || typeof here !== 'object' || Array.isArray(here) || !Object.hasOwn(here, key)) return undefined
    here = (here as Record<string, unknown>)[key]
  }
  return here
}

const text = (value: unknown, ...path: string[]): string | undefined => {
  const found = at(value, ...path)
  return typeof found === 'string' && found !== '' ? found : undefined
}

function ownerAndName(fullName: string | undefined): { owner: string; name: string } | undefined {
  const slash = fullName?.lastIndexOf('/') ?? -1
  if (fullName === undefined || slash <= 0 || slash === fullName.length - 1) return undefined
  return { owner: fullName.slice(0, slash), name: fullName.slice(slash + 1) }
}

const bodyError = (path: string, message: string): FieldError => ({ path, message, location: 'body' })

/** The hosts each provider's pull request pages are on: a link elsewhere (or not https) is not kept. */
const PULL_REQUEST_HOSTS: Record<PullRequestEvent['provider'], readonly string[]> = {
  GITHUB: ['github.com', 'www.github.com'],
  GITLAB: ['gitlab.com', 'www.gitlab.com'],
  BITBUCKET: ['bitbucket.org', 'www.bitbucket.org'],
}

/**
 * The pull request's link when it is an https URL of the provider's host, else null: it is shown as
 * a link, so `javascript:` or another site's page never is (issue 42).
 */
export function pullRequestUrl(provider: string, url: string | null | undefined): string | null {
  const hosts = PULL_REQUEST_HOSTS[provider as PullRequestEvent['provider']]
  if (!hosts || typeof url !== 'string') return null
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return null
  }
  if (parsed.protocol !== 'https:' || parsed.username !== '' || parsed.password !== '' || parsed.port !== '') return null
  return hosts.includes(parsed.hostname.toLowerCase()) ? parsed.href : null
}

/**
 * A branch git can fetch as an argument, as checkouts do (executors/git-checkout.ts): no leading `-`
 * (it would be read as an option, `--upload-pack=…`), no `..`, letters, digits and `._/+-` only.
 */
export const FETCHABLE_BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*\/$)(?!.*\.lock$)[A-Za-z0-9._/+-]{1,255}$/

/** A time as providers write it (ISO 8601, or GitLab's `2013-12-03 17:23:34 UTC`); undefined when unreadable. */
function timeOf(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined
  const iso = value.replace(/^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?) ?(?:UTC)?$/, '$1T$2Z')
  const at = Date.parse(iso)
  return Number.isNaN(at) ? undefined : new Date(at)
}

/** The fields every provider's payload gives, checked alike; `paths` names where each is read, for errors. */
function checked(
  provider: PullRequestEvent['provider'],
  action: PullRequestAction,
  fields: {
    repository: string | undefined
    number: unknown
    baseBranch: string | undefined
    headBranch: string | undefined
    headCommit: string | undefined
    title: string | undefined
    url: string | undefined
    author: string | undefined
    defaultBranch: string | undefined
    updatedAt: string | undefined
  },
  paths: { repository: string; number: string; baseBranch: string; headBranch: string; headCommit: string },
): PullRequestReading {
  const errors: FieldError[] = []
  const repository = ownerAndName(fields.repository)
  if (!repository) errors.push(bodyError(paths.repository, 'must name the repository as owner/name'))
  const number = fields.number
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1 || number > 2 ** 31 - 1) {
    errors.push(bodyError(paths.number, 'must be the pull request number'))
  }
  if (fields.baseBranch === undefined) errors.push(bodyError(paths.baseBranch, 'must be the branch the pull request merges into'))
  if (fields.headBranch === undefined) errors.push(bodyError(paths.headBranch, 'must be the pull request branch'))
  else if (!FETCHABLE_BRANCH.test(fields.headBranch)) {
    errors.push(
      bodyError(paths.headBranch, 'must be a branch name git can fetch: letters, digits and ._/+- only, not starting with - and without ..'),
    )
  }
  if (fields.headCommit === undefined || !COMMIT.test(fields.headCommit)) errors.push(bodyError(paths.headCommit, 'must be the head commit id'))
  if (errors.length > 0 || !repository) return { invalid: errors }
  return {
    pullRequest: {
      provider,
      ...repository,
      number: number as number,
      action,
      baseBranch: fields.baseBranch!,
      defaultBranch: fields.defaultBranch,
      headBranch: fields.headBranch!,
      headCommit: fields.headCommit!.toLowerCase(),
      title: (fields.title ?? '').slice(0, TITLE_MAX),
      url: pullRequestUrl(provider, fields.url),
      author: (fields.author ?? 'git').slice(0, TITLE_MAX),
      eventAt: timeOf(fields.updatedAt),
    },
  }
}

/** GitHub's `pull_request` event. */
function readGithub(payload: unknown): PullRequestReading {
  const name = text(payload, 'action') ?? 'an unnamed'
  const action = GITHUB_ACTIONS[name]
  if (!action) return { ignored: `pull request ${name}: only opened, reopened, synchronize and closed act on previews` }
  return checked(
    'GITHUB',
    action,
    {
      repository: text(payload, 'pull_request', 'base', 'repo', 'full_name') ?? text(payload, 'repository', 'full_name'),
      number: at(payload, 'pull_request', 'number') ?? at(payload, 'number'),
      baseBranch: text(payload, 'pull_request', 'base', 'ref'),
      headBranch: text(payload, 'pull_request', 'head', 'ref'),
      headCommit: text(payload, 'pull_request', 'head', 'sha'),
      title: text(payload, 'pull_request', 'title'),
      url: text(payload, 'pull_request', 'html_url'),
      author: text(payload, 'sender', 'login') ?? text(payload, 'pull_request', 'user', 'login'),
      defaultBranch: text(payload, 'repository', 'default_branch'),
      updatedAt: text(payload, 'pull_request', 'updated_at'),
    },
    {
      repository: '/pull_request/base/repo/full_name',
      number: '/pull_request/number',
      baseBranch: '/pull_request/base/ref',
      headBranch: '/pull_request/head/ref',
      headCommit: '/pull_request/head/sha',
    },
  )
}

/** GitLab's `Merge Request Hook`. */
function readGitlab(payload: unknown): PullRequestReading {
  const name = text(payload, 'object_attributes', 'action') ?? 'an unnamed'
  const action = GITLAB_ACTIONS[name]
  if (!action) return { ignored: `merge request ${name}: only open, reopen, update, close and merge act on previews` }
  return checked(
    'GITLAB',
    action,
    {
      repository: text(payload, 'object_attributes', 'target', 'path_with_namespace') ?? text(payload, 'project', 'path_with_namespace'),
      number: at(payload, 'object_attributes', 'iid'),
      baseBranch: text(payload, 'object_attributes', 'target_branch'),
      headBranch: text(payload, 'object_attributes', 'source_branch'),
      headCommit: text(payload, 'object_attributes', 'last_commit', 'id'),
      title: text(payload, 'object_attributes', 'title'),
      url: text(payload, 'object_attributes', 'url'),
      author: text(payload, 'user', 'username') ?? text(payload, 'user', 'name'),
      defaultBranch: text(payload, 'project', 'default_branch'),
      updatedAt: text(payload, 'object_attributes', 'updated_at'),
    },
    {
      repository: '/project/path_with_namespace',
      number: '/object_attributes/iid',
      baseBranch: '/object_attributes/target_branch',
      headBranch: '/object_attributes/source_branch',
      headCommit: '/object_attributes/last_commit/id',
    },
  )
}

/** Bitbucket Cloud's `pullrequest:*` events; the action is the event's. */
function readBitbucket(action: PullRequestAction, payload: unknown): PullRequestReading {
  return checked(
    'BITBUCKET',
    action,
    {
      repository: text(payload, 'pullrequest', 'destination', 'repository', 'full_name') ?? text(payload, 'repository', 'full_name'),
      number: at(payload, 'pullrequest', 'id'),
      baseBranch: text(payload, 'pullrequest', 'destination', 'branch', 'name'),
      headBranch: text(payload, 'pullrequest', 'source', 'branch', 'name'),
      headCommit: text(payload, 'pullrequest', 'source', 'commit', 'hash'),
      title: text(payload, 'pullrequest', 'title'),
      url: text(payload, 'pullrequest', 'links', 'html', 'href'),
      author: text(payload, 'actor', 'nickname') ?? text(payload, 'actor', 'display_name'),
      defaultBranch: text(payload, 'repository', 'mainbranch', 'name'),
      updatedAt: text(payload, 'pullrequest', 'updated_on'),
    },
    {
      repository: '/repository/full_name',
      number: '/pullrequest/id',
      baseBranch: '/pullrequest/destination/branch/name',
      headBranch: '/pullrequest/source/branch/name',
      headCommit: '/pullrequest/source/commit/hash',
    },
  )
}

/** What a verified pull request delivery of `event` says (isPullRequestEvent holds). */
export function readPullRequest(provider: WebhookProvider, event: string, payload: unknown): PullRequestReading {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return { invalid: [bodyError('', 'must be the pull request event, a JSON object')] }
  }
  if (provider === 'github') return readGithub(payload)
  if (provider === 'gitlab') return readGitlab(payload)
  const events = PULL_REQUEST_EVENTS.bitbucket as Record<string, PullRequestAction>
  return readBitbucket(events[event]!, payload)
}
