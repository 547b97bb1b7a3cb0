// Same-origin calls to the Berth API with the signed-in API token. The token lives in this tab's
// sessionStorage only: closing the tab signs out, and no other tab or site can read it.

import { ApiError, type FieldError } from './errors.ts'

const TOKEN_KEY = 'berth.console.token'
const SIGNED_OUT = 'berth:signed-out'

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  signIn: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  signOut(reason?: string) {
    sessionStorage.removeItem(TOKEN_KEY)
    window.dispatchEvent(new CustomEvent(SIGNED_OUT, { detail: reason }))
  },
  /** Calls `listener` with the reason whenever the session ends; returns the unsubscribe function. */
  onSignedOut(listener: (reason: string | undefined) => void): () => void {
    const handler = (event: Event) => listener((event as CustomEvent<string | undefined>).detail)
    window.addEventListener(SIGNED_OUT, handler)
    return () => window.removeEventListener(SIGNED_OUT, handler)
  },
}

// The error class lives apart, free of the DOM, for what node's tests load (log-stream.ts).
export { ApiError, type FieldError }

async function errorOf(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as { message?: unknown; code?: unknown; errors?: unknown } | null
  const message = typeof body?.message === 'string' ? body.message : `${response.status} ${response.statusText}`
  const errors = Array.isArray(body?.errors) ? (body.errors as FieldError[]) : []
  return new ApiError(response.status, message, typeof body?.code === 'string' ? body.code : 'unknown', errors)
}

interface Sent {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE'
  body?: unknown
  headers?: Record<string, string>
  /** Token to use instead of the session's (signing in checks one before keeping it). */
  token?: string
  signal?: AbortSignal
}

async function call(path: string, { method = 'GET', body, headers = {}, token, signal }: Sent = {}): Promise<Response> {
  const credential = token ?? session.token()
  const response = await fetch(path, {
    method,
    // Pollers send their own If-None-Match and must see the 304 themselves, not a cached 200.
    cache: 'no-store',
    credentials: 'omit',
    headers: {
      accept: 'application/json',
      // The console's marker: its changes read CONSOLE in the audit log (docs/audit-log.md).
      'x-berth-console': '1',
      ...(credential ? { authorization: `Token ${credential}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal ? { signal } : {}),
  })
  if (response.status === 304 || response.ok) return response
  const error = await errorOf(response)
  if (response.status === 401 && token === undefined) session.signOut(error.message)
  throw error
}

/** A read that also returns the ETag of what it read. */
export async function getWithTag<T>(path: string): Promise<{ data: T; etag: string | null }> {
  const response = await call(path)
  return { data: (await response.json()) as T, etag: response.headers.get('etag') }
}

export const api = {
  get: async <T>(path: string, token?: string): Promise<T> => (await (await call(path, token === undefined ? {} : { token })).json()) as T,

  /**
   * A list of an environment's services read to its end: its pages are bounded in items and in
   * bytes of configurations (`has_more`), and each next one starts after the last service read (`startId`).
   */
  async allPages<T extends { id: string }>(path: string): Promise<{ results: T[] }> {
    const results: T[] = []
    for (let startId: string | undefined; ; ) {
      const page = await api.get<{ results: T[]; has_more?: boolean }>(startId ? `${path}?startId=${startId}` : path)
      results.push(...page.results)
      startId = page.results.at(-1)?.id
      if (!page.has_more || startId === undefined) return { results }
    }
  },

  /** A conditional read for pollers: undefined while what `etag` names is current. */
  async poll<T>(path: string, etag: string | null): Promise<{ data: T; etag: string | null } | undefined> {
    const response = await call(path, etag ? { headers: { 'if-none-match': etag } } : {})
    if (response.status === 304) return undefined
    return { data: (await response.json()) as T, etag: response.headers.get('etag') }
  },

  async post<T>(path: string, body?: unknown): Promise<T | undefined> {
    const response = await call(path, { method: 'POST', body })
    return response.status === 204 ? undefined : ((await response.json()) as T)
  },

  /**
   * A read whose answer is a stream of server-sent events: the response, its body unread. Its
   * errors are thrown as any call's; `signal` ends the request and the reading of its body.
   */
  stream: (path: string, headers: Record<string, string>, signal: AbortSignal): Promise<Response> =>
    call(path, { headers: { accept: 'text/event-stream', ...headers }, signal }),

  async delete(path: string): Promise<void> {
    await call(path, { method: 'DELETE' })
  },

  async put<T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ data: T; etag: string | null }> {
    const response = await call(path, { method: 'PUT', body, headers })
    return { data: (await response.json()) as T, etag: response.headers.get('etag') }
  },
}

/** The message to show for anything a call threw. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))
