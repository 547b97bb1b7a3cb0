import { type Agent, fetch } from 'undici'
import { createGuardedAgent } from '#src/modules/git-providers/address-guard.ts'
import { readCappedText } from '#src/platform/http/capped-body.ts'

// Calls to an Argo CD API server (its REST API, `assets/swagger.json` of argoproj/argo-cd) with a
// Bearer token; docs/argocd.md lists the endpoints and fields Berth reads. Every call has a timeout
// and a size cap, and goes through the address guard unless private addresses are allowed.

/** The fields Berth reads of an Argo CD application (v1alpha1Application). */
export interface ArgoCdApplication {
  metadata: { name: string; namespace?: string }
  spec?: {
    destination?: { server?: string; name?: string; namespace?: string }
    source?: { repoURL?: string; path?: string; targetRevision?: string; chart?: string }
  }
  status?: {
    sync?: { status?: string; revision?: string }
    health?: { status?: string; message?: string }
    history?: {
      id: number
      revision?: string
      deployedAt?: string
      deployStartedAt?: string
      initiatedBy?: { username?: string; automated?: boolean }
    }[]
    operationState?: {
      phase?: string
      message?: string
      startedAt?: string
      finishedAt?: string
      syncResult?: { revision?: string; resources?: { kind?: string; name?: string; namespace?: string; status?: string; message?: string }[] }
    }
  }
}

/** One managed resource (v1alpha1ResourceDiff): target and live state as JSON text. */
export interface ArgoCdManagedResource {
  kind?: string
  name?: string
  namespace?: string
  group?: string
  targetState?: string
  liveState?: string
  diff?: string
  modified?: boolean
}

/** One node of an application's resource tree (v1alpha1ResourceNode). */
export interface ArgoCdResourceNode {
  kind?: string
  name?: string
  namespace?: string
  group?: string
  health?: { status?: string; message?: string }
  parentRefs?: { kind?: string; name?: string }[]
}

/** Why a call got no answer Berth can use: the reference's reasons of checkArgoCdConnection. */
export type ArgoCdFailure = 'authentication_failed' | 'insufficient_permissions' | 'unreachable' | 'not_found'

export class ArgoCdCallError extends Error {
  constructor(
    readonly reason: ArgoCdFailure,
    message: string,
  ) {
    super(message)
    this.name = 'ArgoCdCallError'
  }
}

export interface ArgoCdInstance {
  url: string
  token: string
}

export interface ArgoCdApiSettings {
  /** BERTH_ALLOW_PRIVATE_URLS: may an Argo CD lead into the server's own network (the in-cluster URL is such). */
  allowPrivateUrls: boolean
  /** How long one call may take. */
  timeoutMs: number
}

const MAX_BODY_BYTES = 32 * 1024 * 1024
const USER_AGENT = 'berth (argocd integration)'

export function createArgoCdApi(settings: ArgoCdApiSettings) {
  let agent: Agent | undefined

  async function call(instance: ArgoCdInstance, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; text: string }> {
    agent ??= createGuardedAgent(settings.allowPrivateUrls)
    const url = new URL(path.replace(/^\//, ''), instance.url.endsWith('/') ? instance.url : `${instance.url}/`)
    let response: Awaited<ReturnType<typeof fetch>>
    try {
      response = await fetch(url, {
        method,
        dispatcher: agent,
        redirect: 'manual',
        signal: AbortSignal.timeout(settings.timeoutMs),
        headers: {
          authorization: `Bearer ${instance.token}`,
          accept: 'application/json',
          'user-agent': USER_AGENT,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message
      throw new ArgoCdCallError('unreachable', `could not reach Argo CD at ${url.origin}: ${cause}`)
    }
    const text = await readCappedText(response, MAX_BODY_BYTES).catch((error: unknown) => {
      throw new ArgoCdCallError('unreachable', `Argo CD's answer to ${path} broke off: ${(error as Error).message}`)
    })
    if (text === undefined) throw new ArgoCdCallError('unreachable', `Argo CD sent more than ${MAX_BODY_BYTES / 1024 / 1024} MiB for ${path}`)
    if (response.status === 401) throw new ArgoCdCallError('authentication_failed', 'Argo CD rejected the token (401)')
    if (response.status === 403)
      throw new ArgoCdCallError('insufficient_permissions', `the token may not ${method === 'GET' ? 'read' : 'act on'} ${path} (403)`)
    if (response.status === 404) throw new ArgoCdCallError('not_found', `Argo CD has no ${path} (404)`)
    if (response.status >= 300) throw new ArgoCdCallError('unreachable', `Argo CD answered ${path} with ${response.status}: ${argoMessage(text)}`)
    return { status: response.status, text }
  }

  async function json<T>(instance: ArgoCdInstance, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const { text } = await call(instance, method, path, body)
    try {
      return JSON.parse(text) as T
    } catch {
      throw new ArgoCdCallError('unreachable', `Argo CD answered ${path} with something that is not JSON; does the URL lead to Argo CD's API server?`)
    }
  }

  const app = (name: string) => `/api/v1/applications/${encodeURIComponent(name)}`

  return {
    /** GET /api/version: the server's version (VersionMessage.Version). */
    version: (instance: ArgoCdInstance) => json<{ Version?: string }>(instance, 'GET', '/api/version'),
    /** GET /api/v1/applications: every application the token may read. */
    async listApplications(instance: ArgoCdInstance): Promise<ArgoCdApplication[]> {
      const list = await json<{ items?: ArgoCdApplication[] | null }>(instance, 'GET', '/api/v1/applications')
      return list.items ?? []
    },
    getApplication: (instance: ArgoCdInstance, name: string) => json<ArgoCdApplication>(instance, 'GET', app(name)),
    /** POST …/sync: `revision` to sync to, `dryRun` to compute without applying. */
    sync: (instance: ArgoCdInstance, name: string, request: { revision?: string; dryRun?: boolean; prune?: boolean }) =>
      json<ArgoCdApplication>(instance, 'POST', `${app(name)}/sync`, { name, ...request }),
    /** POST …/rollback to a history id. */
    rollback: (instance: ArgoCdInstance, name: string, request: { id: number; dryRun?: boolean; prune?: boolean }) =>
      json<ArgoCdApplication>(instance, 'POST', `${app(name)}/rollback`, { name, ...request }),
    async managedResources(instance: ArgoCdInstance, name: string): Promise<ArgoCdManagedResource[]> {
      return (await json<{ items?: ArgoCdManagedResource[] | null }>(instance, 'GET', `${app(name)}/managed-resources`)).items ?? []
    },
    async resourceTree(instance: ArgoCdInstance, name: string): Promise<ArgoCdResourceNode[]> {
      return (await json<{ nodes?: ArgoCdResourceNode[] | null }>(instance, 'GET', `${app(name)}/resource-tree`)).nodes ?? []
    },
    /** GET …/pods/{pod}/logs (not followed): the lines of one pod, oldest first. */
    async podLogs(
      instance: ArgoCdInstance,
      name: string,
      pod: { name: string; namespace: string },
      tailLines: number,
    ): Promise<{ content: string; timeStamp?: string; podName?: string }[]> {
      const query = new URLSearchParams({ namespace: pod.namespace, tailLines: String(tailLines), follow: 'false' })
      const { text } = await call(instance, 'GET', `${app(name)}/pods/${encodeURIComponent(pod.name)}/logs?${query}`)
      // A stream of JSON objects, one a line: {"result": LogEntry} or {"error": …}.
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .flatMap((line) => {
          try {
            const entry = (JSON.parse(line) as { result?: { content?: string; timeStamp?: string; podName?: string; last?: boolean } }).result
            return entry && !entry.last && entry.content !== undefined
              ? [{ content: entry.content, timeStamp: entry.timeStamp, podName: entry.podName }]
              : []
          } catch {
            return []
          }
        })
    },
    close: () => agent?.close(),
  }
}

export type ArgoCdApi = ReturnType<typeof createArgoCdApi>

/** Argo CD's error body (runtimeError) as one line. */
function argoMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: string; error?: string }
    return (body.message ?? body.error ?? text).slice(0, 300)
  } catch {
    return text.slice(0, 300)
  }
}
