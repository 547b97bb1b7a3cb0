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
