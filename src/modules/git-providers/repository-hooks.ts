import type { GitProvider } from '#src/platform/git-provider-names.ts'
import { bitbucketAuthorization } from './bitbucket.ts'
import { objects, optionalText } from './commits.ts'
import type { ListBranchesRequest } from './git-provider-adapter.ts'
import { type ProviderHttp, unexpectedAnswer } from './provider-http.ts'
import { apiUrl, encodeSegments, withQuery } from './provider-urls.ts'

// A repository's webhooks at its provider, through the git token (docs/git-push.md, "The webhook at
// the provider"): listed to tell whether Berth's is there, created or corrected to put it there.
// Each provider's hooks API: GitHub https://docs.github.com/rest/repos/webhooks, GitLab
// https://docs.gitlab.com/api/project_webhooks/, Bitbucket Cloud
// https://developer.atlassian.com/cloud/bitbucket/rest/api-group-repositories/#api-repositories-workspace-repo-slug-hooks-get.

/** A webhook of a repository, as Berth compares it with its own. */
export interface RepositoryHook {
  id: string
  url: string
  active: boolean
  /** The events it is delivered, in the provider's words. */
  events: string[]
}

/** Berth's webhook: where deliveries go and the secret that signs them. */
export interface WantedHook {
  url: string
  secret: string
}

export type HookRequest = ListBranchesRequest

interface HooksApi {
  /** The events Berth's webhook needs, in the provider's words: pushes and pull (merge) requests. */
  readonly required: readonly string[]
  list(http: ProviderHttp, request: HookRequest): Promise<RepositoryHook[]>
  /** Creates Berth's webhook, or (with `id`) makes that one Berth's. */
  put(http: ProviderHttp, request: HookRequest, wanted: WantedHook, id?: string): Promise<void>
}

const items = (body: unknown, label: string) => objects(body, label) as Record<string, unknown>[]
const idOf = (value: unknown, label: string): string => {
  if (typeof value === 'number' || (typeof value === 'string' && value !== '')) return String(value)
  throw unexpectedAnswer(label)
}

const GITHUB_EVENTS = ['push', 'pull_request'] as const
const githubHeaders = (token: string) => ({
  authorization: `Bearer ${token}`,
  accept: 'application/vnd.github+json',
  'x-github-api-version': '2022-11-28',
})
const github: HooksApi = {
  required: GITHUB_EVENTS,
  async list(http, { apiRoot, token, repository, signal }) {
    const url = withQuery(apiUrl(apiRoot, `repos/${encodeSegments(repository.split('/'))}/hooks`), { per_page: 100 })
    const answer = await http.getJson({ provider: 'GitHub', repository, url, headers: githubHeaders(token), signal })
    return items(answer.body, 'GitHub').map((hook) => {
      const config = (hook.config ?? {}) as Record<string, unknown>
      return {
        id: idOf(hook.id, 'GitHub'),
        url: optionalText(config.url) ?? '',
        active: hook.active !== false,
        events: Array.isArray(hook.events) ? hook.events.filter((event): event is string => typeof event === 'string') : [],
      }
    })
  },
  async put(http, { apiRoot, token, repository, signal }, wanted, id) {
    const path = `repos/${encodeSegments(repository.split('/'))}/hooks${id === undefined ? '' : `/${encodeURIComponent(id)}`}`
    const body = {
      ...(id === undefined ? { name: 'web' } : {}),
      active: true,
      events: [...GITHUB_EVENTS],
      config: { url: wanted.url, content_type: 'json', secret: wanted.secret, insecure_ssl: '0' },
    }
    const method = id === undefined ? 'POST' : 'PATCH'
    await http.getJson({ provider: 'GitHub', repository, url: apiUrl(apiRoot, path), headers: githubHeaders(token), signal, method, body })
  },
}

const GITLAB_EVENTS = ['push_events', 'merge_requests_events'] as const
const gitlab: HooksApi = {
  required: GITLAB_EVENTS,
  async list(http, { apiRoot, token, repository, signal }) {
    const url = withQuery(apiUrl(apiRoot, `projects/${encodeURIComponent(repository)}/hooks`), { per_page: 100 })
    const answer = await http.getJson({ provider: 'GitLab', repository, url, headers: { authorization: `Bearer ${token}` }, signal })
    return items(answer.body, 'GitLab').map((hook) => ({
      id: idOf(hook.id, 'GitLab'),
      url: optionalText(hook.url) ?? '',
      // GitLab disables a hook that keeps failing (`alert_status`).
      active: hook.alert_status !== 'disabled',
      events: GITLAB_EVENTS.filter((event) => hook[event] === true),
    }))
  },
  async put(http, { apiRoot, token, repository, signal }, wanted, id) {
    const path = `projects/${encodeURIComponent(repository)}/hooks${id === undefined ? '' : `/${encodeURIComponent(id)}`}`
    const body = { url: wanted.url, token: wanted.secret, push_events: true, merge_requests_events: true, enable_ssl_verification: true }
    const method = id === undefined ? 'POST' : 'PUT'
    await http.getJson({
      provider: 'GitLab',
      repository,
      url: apiUrl(apiRoot, path),
      headers: { authorization: `Bearer ${token}` },
      signal,
      method,
      body,
    })
  },
}

const BITBUCKET_EVENTS = ['repo:push', 'pullrequest:created', 'pullrequest:updated', 'pullrequest:fulfilled', 'pullrequest:rejected'] as const
const bitbucket: HooksApi = {
  required: BITBUCKET_EVENTS,
  async list(http, { apiRoot, token, repository, signal }) {
    const url = withQuery(apiUrl(apiRoot, `repositories/${encodeSegments(repository.split('/'))}/hooks`), { pagelen: 100 })
    const answer = await http.getJson({ provider: 'Bitbucket', repository, url, headers: { authorization: bitbucketAuthorization(token) }, signal })
    const values = (answer.body as { values?: unknown } | null)?.values
    return items(values, 'Bitbucket').map((hook) => ({
      id: idOf(hook.uuid, 'Bitbucket'),
      url: optionalText(hook.url) ?? '',
      active: hook.active !== false,
      events: Array.isArray(hook.events) ? hook.events.filter((event): event is string => typeof event === 'string') : [],
    }))
  },
  async put(http, { apiRoot, token, repository, signal }, wanted, id) {
    const path = `repositories/${encodeSegments(repository.split('/'))}/hooks${id === undefined ? '' : `/${encodeURIComponent(id)}`}`
    const body = { description: 'Berth', url: wanted.url, active: true, secret: wanted.secret, events: [...BITBUCKET_EVENTS] }
    const method = id === undefined ? 'POST' : 'PUT'
    const headers = { authorization: bitbucketAuthorization(token) }
    await http.getJson({ provider: 'Bitbucket', repository, url: apiUrl(apiRoot, path), headers, signal, method, body })
  },
}

export const HOOKS_APIS: Record<GitProvider, HooksApi> = { GITHUB: github, GITLAB: gitlab, BITBUCKET: bitbucket }

/** Berth's hook among `hooks`: the one delivering to `url` (a trailing slash aside). */
export function findHook(hooks: readonly RepositoryHook[], url: string): RepositoryHook | undefined {
  const bare = (address: string) => address.replace(/\/+$/, '')
  return hooks.find((hook) => bare(hook.url) === bare(url))
}
