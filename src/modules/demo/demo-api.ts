import type { FastifyInstance } from 'fastify'

// The demo is made through Berth's public HTTP API, in process (`app.inject`), as any client would
// make it: the rules, the defaults and the history entries are the API's own.

export interface ApiAnswer<T> {
  status: number
  body: T
}

export interface DemoApi {
  /** Calls the API with this client's credentials; anything but an `expect`ed status throws, with the API's message. */
  call<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, options?: { body?: object; expect?: number[] }): Promise<ApiAnswer<T>>
  get<T>(url: string): Promise<T>
  /** The same API with other credentials (an `Authorization` header value). */
  as(authorization: string): DemoApi
}

export class DemoApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export function injectApi(app: FastifyInstance, authorization: string): DemoApi {
  const api: DemoApi = {
    async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, options: { body?: object; expect?: number[] } = {}) {
      const response = await app.inject({
        method,
        url,
        headers: { authorization },
        ...(options.body === undefined ? {} : { payload: options.body }),
      })
      const expected = options.expect ?? (method === 'GET' ? [200] : method === 'DELETE' ? [204] : [200, 201, 202])
      if (!expected.includes(response.statusCode)) {
        const detail = (() => {
          try {
            return (response.json() as { message?: string }).message ?? response.body
          } catch {
            return response.body
          }
        })()
        throw new DemoApiError(response.statusCode, `${method} ${url} answered ${response.statusCode}: ${detail}`)
      }
      const body = response.body === '' ? undefined : (response.json() as unknown)
      return { status: response.statusCode, body: body as T }
    },
    async get<T>(url: string) {
      return (await api.call<T>('GET', url)).body
    },
    as: (other) => injectApi(app, other),
  }
  return api
}
