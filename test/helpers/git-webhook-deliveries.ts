import { createHmac } from 'node:crypto'

// Push deliveries as GitHub, GitLab and Bitbucket Cloud send them, signed as each signs them.

export type Provider = 'github' | 'gitlab' | 'bitbucket'

/** A push event of `provider` to `branch` of `owner/name`, by `pusher`, as the provider's payload has it. */
export function pushPayload(provider: Provider, fullName: string, branch: string, commit: string, pusher: string, defaultBranch = 'main') {
  if (provider === 'github') {
    return {
      ref: `refs/heads/${branch}`,
      before: '0'.repeat(40),
      after: commit,
      deleted: false,
      repository: { full_name: fullName, name: fullName.split('/').at(-1), default_branch: defaultBranch },
      pusher: { name: pusher, email: `${pusher}@example.com` },
      sender: { login: pusher },
    }
  }
  if (provider === 'gitlab') {
    return {
      object_kind: 'push',
      ref: `refs/heads/${branch}`,
      before: '0'.repeat(40),
      after: commit,
      checkout_sha: commit,
      user_username: pusher,
      user_name: `${pusher} (name)`,
      project: { path_with_namespace: fullName, default_branch: defaultBranch },
    }
  }
  return {
    actor: { nickname: pusher, display_name: `${pusher} (name)` },
    repository: { full_name: fullName },
    push: { changes: [{ new: { type: 'branch', name: branch, target: { hash: commit } }, old: null }] },
  }
}

const EVENT_HEADERS: Record<Provider, [string, string]> = {
  github: ['x-github-event', 'push'],
  gitlab: ['x-gitlab-event', 'Push Hook'],
  bitbucket: ['x-event-key', 'repo:push'],
}
const DELIVERY_HEADERS: Record<Provider, string> = { github: 'x-github-delivery', gitlab: 'x-gitlab-event-uuid', bitbucket: 'x-request-uuid' }

/** The headers a provider sends with `body`, signed with `secret` (none: unsigned). */
export function signedHeaders(
  provider: Provider,
  body: string,
  secret: string | undefined,
  delivery: string,
  event?: string,
): Record<string, string> {
  const [eventHeader, push] = EVENT_HEADERS[provider]
  const headers: Record<string, string> = { 'content-type': 'application/json', [eventHeader]: event ?? push, [DELIVERY_HEADERS[provider]]: delivery }
  if (secret === undefined) return headers
  const hmac = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
  if (provider === 'github') headers['x-hub-signature-256'] = hmac
  else if (provider === 'gitlab') headers['x-gitlab-token'] = secret
  else headers['x-hub-signature'] = hmac
  return headers
}

/** What a pull request event says, whichever provider sends it. */
export interface PullRequestFields {
  number: number
  /** GitHub's action (opened, reopened, synchronize, closed), mapped to GitLab's and Bitbucket's. */
  action: 'opened' | 'reopened' | 'synchronize' | 'closed'
  base: string
  head: string
  sha: string
  title: string
  author: string
  merged?: boolean
  /** When the pull request was last updated, as the event says (ISO 8601); absent: the event does not say. */
  updatedAt?: string
  /** The pull request's page, when not the provider's usual one. */
  url?: string
}

const GITLAB_ACTIONS = { opened: 'open', reopened: 'reopen', synchronize: 'update', closed: 'close' } as const
const BITBUCKET_EVENTS = {
  opened: 'pullrequest:created',
  reopened: 'pullrequest:created',
  synchronize: 'pullrequest:updated',
  closed: 'pullrequest:rejected',
} as const

/** The event header's value of a pull request event of `provider` (Bitbucket names the action in it). */
export function pullRequestEvent(provider: Provider, pr: Pick<PullRequestFields, 'action' | 'merged'>): string {
  if (provider === 'github') return 'pull_request'
  if (provider === 'gitlab') return 'Merge Request Hook'
  return pr.action === 'closed' && pr.merged ? 'pullrequest:fulfilled' : BITBUCKET_EVENTS[pr.action]
}

/** A pull (merge) request event of `owner/name`, as each provider's payload has it (the fields Berth reads, and some around them). */
export function pullRequestPayload(provider: Provider, fullName: string, pr: PullRequestFields, defaultBranch = 'main') {
  if (provider === 'github') {
    const repository = { full_name: fullName, name: fullName.split('/').at(-1), default_branch: defaultBranch }
    return {
      action: pr.action,
      number: pr.number,
      pull_request: {
        number: pr.number,
        state: pr.action === 'closed' ? 'closed' : 'open',
        merged: pr.merged ?? false,
        title: pr.title,
        html_url: pr.url ?? `https://github.com/${fullName}/pull/${pr.number}`,
        ...(pr.updatedAt ? { updated_at: pr.updatedAt } : {}),
        user: { login: pr.author },
        head: { ref: pr.head, sha: pr.sha, repo: repository },
        base: { ref: pr.base, sha: 'f'.repeat(40), repo: repository },
      },
      repository,
      sender: { login: pr.author },
    }
  }
  if (provider === 'gitlab') {
    const project = { path_with_namespace: fullName, default_branch: defaultBranch, web_url: `https://gitlab.com/${fullName}` }
    const action = pr.action === 'closed' && pr.merged ? 'merge' : GITLAB_ACTIONS[pr.action]
    return {
      object_kind: 'merge_request',
      event_type: 'merge_request',
      user: { username: pr.author, name: `${pr.author} (name)` },
      project,
      object_attributes: {
        iid: pr.number,
        id: 1000 + pr.number,
        title: pr.title,
        url: pr.url ?? `https://gitlab.com/${fullName}/-/merge_requests/${pr.number}`,
        // GitLab writes its times so.
        ...(pr.updatedAt ? { updated_at: pr.updatedAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') } : {}),
        source_branch: pr.head,
        target_branch: pr.base,
        action,
        state: pr.action === 'closed' ? (pr.merged ? 'merged' : 'closed') : 'opened',
        last_commit: { id: pr.sha, message: pr.title },
        source: project,
        target: project,
        ...(pr.action === 'synchronize' ? { oldrev: 'e'.repeat(40) } : {}),
      },
    }
  }
  const repository = { full_name: fullName, name: fullName.split('/').at(-1) }
  return {
    actor: { nickname: pr.author, display_name: `${pr.author} (name)` },
    repository,
    pullrequest: {
      id: pr.number,
      title: pr.title,
      state: pr.action === 'closed' ? (pr.merged ? 'MERGED' : 'DECLINED') : 'OPEN',
      links: { html: { href: pr.url ?? `https://bitbucket.org/${fullName}/pull-requests/${pr.number}` } },
      ...(pr.updatedAt ? { updated_on: pr.updatedAt } : {}),
      author: { nickname: pr.author },
      // Bitbucket's pull request events give commits abbreviated to 12 digits.
      source: { branch: { name: pr.head }, commit: { hash: pr.sha.slice(0, 12) }, repository },
      destination: { branch: { name: pr.base }, commit: { hash: 'f'.repeat(12) }, repository },
    },
  }
}
