import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

// A stand-in Argo CD API server on loopback, written from Argo CD's API description
// (`assets/swagger.json` of argoproj/argo-cd): /api/version, /api/v1/applications (list, get, sync,
// rollback, managed-resources, manifests, resource-tree, pod logs), Bearer tokens, and errors in
// its runtimeError shape. The test holds the applications and moves their status.

export interface StandInApp {
  name: string
  destination: { server: string; namespace: string }
  source: { repoURL: string; path: string; targetRevision: string }
  sync: string
  health: string
  revision: string
  history: { id: number; revision: string; deployedAt: string; deployStartedAt: string; initiatedBy: { username?: string; automated?: boolean } }[]
  operationState?: Record<string, unknown>
  /** The pods the application runs, with the log lines each wrote. */
  pods: { name: string; lines: string[] }[]
}

export interface ReceivedCall {
  method: string
  path: string
  body: Record<string, unknown> | undefined
  authorization: string | undefined
}

export interface ArgoCdStandIn {
  url: string
  /** Tokens the server knows: `admin` may list and get applications; `none` is authenticated but may read nothing. */
  tokens: Map<string, 'admin' | 'none'>
  apps: Map<string, StandInApp>
  calls: ReceivedCall[]
  /** False: every connection is dropped, as an Argo CD that cannot be reached. */
  reachable: boolean
  addApp(name: string, namespace: string, options?: Partial<Pick<StandInApp, 'sync' | 'health' | 'revision'>> & { server?: string }): StandInApp
  /** A sync done in Argo CD itself (the UI, auto-sync): one history entry more. */
  syncInArgoCd(name: string, revision: string, username?: string): void
  close(): Promise<void>
}

const DESTINATION = 'https://kubernetes.default.svc'
const deny = (res: ServerResponse, status: number, code: number, message: string) => send(res, status, { error: message, code, message })
const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? (JSON.parse(text) as Record<string, unknown>) : undefined
}

function toApplication(app: StandInApp) {
  return {
    metadata: { name: app.name, namespace: 'argocd' },
    spec: { destination: app.destination, source: app.source, project: 'default' },
    status: {
      sync: { status: app.sync, revision: app.revision },
      health: { status: app.health },
      history: app.history,
      ...(app.operationState ? { operationState: app.operationState } : {}),
    },
  }
}

const manifestOf = (app: StandInApp, revision: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: app.name, namespace: app.destination.namespace, labels: { revision } },
  spec: { replicas: 1 },
})

export async function startArgoCdStandIn(): Promise<ArgoCdStandIn> {
  const apps = new Map<string, StandInApp>()
  const tokens = new Map<string, 'admin' | 'none'>()
  const calls: ReceivedCall[] = []
  const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z')

  function record(app: StandInApp, revision: string, initiatedBy: { username?: string; automated?: boolean }, message: string) {
    const id = (app.history.at(-1)?.id ?? -1) + 1
    const at = now()
    app.history.push({ id, revision, deployedAt: at, deployStartedAt: at, initiatedBy })
    app.revision = revision
    app.sync = 'Synced'
    app.operationState = {
      phase: 'Succeeded',
      message,
      startedAt: at,
      finishedAt: at,
      operation: { initiatedBy, sync: { revision } },
      syncResult: {
        revision,
        resources: [
          {
            kind: 'Deployment',
            name: app.name,
            namespace: app.destination.namespace,
            status: 'Synced',
            message: `deployment.apps/${app.name} configured`,
          },
        ],
      },
    }
  }

  const standIn = { reachable: true }
  const server = createServer((req, res) => {
    if (!standIn.reachable) {
      req.socket.destroy()
      return
    }
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://standin')
      const body = req.method === 'POST' ? await readBody(req) : undefined
      calls.push({ method: req.method ?? 'GET', path: url.pathname + url.search, body, authorization: req.headers.authorization })
      if (url.pathname === '/api/version') return send(res, 200, { Version: 'v2.14.0+standin', GitCommit: '0000000' })
      const token = req.headers.authorization?.replace(/^Bearer /, '')
      const role = token ? tokens.get(token) : undefined
      if (!role) return deny(res, 401, 16, 'invalid session: token signature is invalid')
      if (role === 'none') return deny(res, 403, 7, 'permission denied')
      if (req.method === 'GET' && url.pathname === '/api/v1/applications') {
        return send(res, 200, { metadata: { resourceVersion: '1' }, items: [...apps.values()].map(toApplication) })
      }
      const match = /^\/api\/v1\/applications\/([^/]+)(\/.*)?$/.exec(url.pathname)
      const app = match ? apps.get(decodeURIComponent(match[1]!)) : undefined
      if (!match || !app) return deny(res, 404, 5, `applications.argoproj.io "${match?.[1]}" not found`)
      const rest = match[2] ?? ''
      if (req.method === 'GET' && rest === '') return send(res, 200, toApplication(app))
      if (req.method === 'POST' && rest === '/sync') {
        const revision = typeof body?.revision === 'string' && body.revision !== '' ? body.revision : app.source.targetRevision
        if (body?.dryRun === true) {
          app.operationState = {
            phase: 'Succeeded',
            message: 'successfully synced (dry run)',
            syncResult: {
              revision,
              resources: [
                {
                  kind: 'Deployment',
                  name: app.name,
                  namespace: app.destination.namespace,
                  status: 'Synced',
                  message: `deployment.apps/${app.name} configured (dry run)`,
                },
              ],
            },
          }
        } else record(app, revision, { username: 'berth' }, 'successfully synced (all tasks run)')
        return send(res, 200, toApplication(app))
      }
      if (req.method === 'POST' && rest === '/rollback') {
        const target = app.history.find((entry) => entry.id === body?.id)
        if (!target) return deny(res, 400, 3, `application ${app.name} does not have deployment with id ${String(body?.id)}`)
        if (body?.dryRun !== true) record(app, target.revision, { username: 'berth' }, `successfully rolled back to ${target.id}`)
        return send(res, 200, toApplication(app))
      }
      if (req.method === 'GET' && rest === '/managed-resources') {
        const live = manifestOf(app, app.revision)
        return send(res, 200, {
          items: [
            {
              kind: 'Deployment',
              group: 'apps',
              name: app.name,
              namespace: app.destination.namespace,
              targetState: JSON.stringify(manifestOf(app, app.source.targetRevision)),
              liveState: JSON.stringify(live),
              modified: app.sync !== 'Synced',
            },
          ],
        })
      }
      if (req.method === 'GET' && rest === '/manifests') {
        return send(res, 200, {
          manifests: [JSON.stringify(manifestOf(app, app.revision))],
          revision: app.revision,
          namespace: app.destination.namespace,
        })
      }
      if (req.method === 'GET' && rest === '/resource-tree') {
        return send(res, 200, {
          nodes: [
            { kind: 'Deployment', group: 'apps', name: app.name, namespace: app.destination.namespace, health: { status: app.health } },
            ...app.pods.map((pod) => ({
              kind: 'Pod',
              name: pod.name,
              namespace: app.destination.namespace,
              health: { status: app.health },
              parentRefs: [{ kind: 'ReplicaSet', name: `${app.name}-1` }],
            })),
          ],
        })
      }
      const logs = /^\/pods\/([^/]+)\/logs$/.exec(rest)
      if (req.method === 'GET' && logs) {
        const pod = app.pods.find((p) => p.name === decodeURIComponent(logs[1]!))
        if (!pod || url.searchParams.get('namespace') !== app.destination.namespace) return deny(res, 404, 5, 'pod not found')
        const tail = Number(url.searchParams.get('tailLines') ?? pod.lines.length)
        res.writeHead(200, { 'content-type': 'application/json' })
        for (const line of pod.lines.slice(-tail))
          res.write(`${JSON.stringify({ result: { content: line, podName: pod.name, timeStamp: now() } })}\n`)
        res.end(`${JSON.stringify({ result: { content: '', podName: pod.name, last: true } })}\n`)
        return
      }
      return deny(res, 404, 5, 'Not Found')
    })().catch((error: unknown) => deny(res, 500, 13, String(error)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    get reachable() {
      return standIn.reachable
    },
    set reachable(value: boolean) {
      standIn.reachable = value
    },
    url,
    tokens,
    apps,
    calls,
    addApp(name, namespace, options = {}) {
      const revision = options.revision ?? 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678'
      const app: StandInApp = {
        name,
        destination: { server: options.server ?? DESTINATION, namespace },
        source: { repoURL: 'https://github.com/example/gitops.git', path: `apps/${name}`, targetRevision: 'HEAD' },
        sync: options.sync ?? 'Synced',
        health: options.health ?? 'Healthy',
        revision,
        history: [],
        pods: [{ name: `${name}-7d9f8-abcde`, lines: [`${name} started`, `${name} listening on :8080`] }],
      }
      record(app, revision, { automated: true }, 'successfully synced (all tasks run)')
      app.sync = options.sync ?? 'Synced'
      apps.set(name, app)
      return app
    },
    syncInArgoCd(name, revision, username = 'alice') {
      const app = apps.get(name)
      if (!app) throw new Error(`no application ${name}`)
      record(app, revision, { username }, 'successfully synced (all tasks run)')
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
