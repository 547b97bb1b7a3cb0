import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'

// A recording stand-in for a Kubernetes API server on loopback, for the real helm and kubectl:
// enough of discovery (/version, /api, /apis, apps/v1 with the scale subresources, the core objects
// charts make) and of OpenAPI v3 (kubectl's validation: each kind's PATCH takes fieldValidation, so
// the client leaves validation to the server) for `helm upgrade --dry-run=server`, helm's release
// secrets (`helm get manifest` reads them), and GET and PATCH of Deployments, StatefulSets and
// DaemonSets, answered as an API server would shape them, and the pods `pods` sets with their
// logs (list by label selector, get, and `…/log` with timestamps and tailLines). It records requests.

export interface KubeRequest {
  method: string
  /** Path and query. */
  url: string
  contentType: string | undefined
  authorization: string | undefined
  body: string
}

export interface FakeKubeApi {
  /** https://127.0.0.1:port */
  url: string
  /** A kubeconfig reaching it with `token`, its certificate trusted. */
  kubeconfig(token: string): string
  requests: KubeRequest[]
  /** The server itself, for what answers beside it (an exec's upgrade: fake-kube-exec.ts). */
  server: Server
  /** The pods of `namespace` from now on (none by default), each with what it printed. */
  pods(namespace: string, pods: FakePod[]): void
  /** The cluster's events from now on (`/api/v1/events`; none by default), as the API server lists them. */
  events(items: object[]): void
  /** The Services of `namespace` from now on (none by default), as the API server lists them (`/api/v1/namespaces/{ns}/services`). */
  services(namespace: string, items: object[]): void
  /** Makes `helm get manifest name` answer `manifest` (a deployed release, revision 1). */
  release(name: string, namespace: string, manifest: string): void
  close(): Promise<void>
}

export interface FakePod {
  name: string
  labels: Record<string, string>
  phase?: string
  /** Its log, oldest first: each line with when it was printed (RFC 3339, to the nanosecond). */
  log: { at: string; message: string }[]
}

/** Whether `labels` match a selector of `key=value` terms (all a pod lister needs here). */
const matches = (labels: Record<string, string>, selector: string) =>
  selector.split(',').every((term) => term === '' || labels[term.split('=')[0]!] === term.split('=').slice(1).join('='))

const podObject = (namespace: string, pod: FakePod) => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: {
    name: pod.name,
    namespace,
    uid: createHash('sha256')
      .update(pod.name)
      .digest('hex')
      .slice(0, 32)
      .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
    labels: pod.labels,
    creationTimestamp: '2026-01-01T00:00:00Z',
  },
  spec: { containers: [{ name: 'main', image: 'app' }] },
  status: { phase: pod.phase ?? 'Running' },
})

const KINDS: Record<string, string> = { deployments: 'Deployment', statefulsets: 'StatefulSet', daemonsets: 'DaemonSet' }
/** Core objects charts make, which the API knows but holds none of. */
const CORE_KINDS: Record<string, string> = { configmaps: 'ConfigMap', secrets: 'Secret', services: 'Service', serviceaccounts: 'ServiceAccount' }
const WRITE_VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update']
/** The kinds of each group version, by its OpenAPI v3 path. */
const OPENAPI_GROUPS: Record<string, { group: string; version: string; kinds: Record<string, string> }> = {
  'api/v1': { group: '', version: 'v1', kinds: { ...CORE_KINDS, pods: 'Pod' } },
  'apis/apps/v1': { group: 'apps', version: 'v1', kinds: KINDS },
}

/** A group version's OpenAPI v3 document: a PATCH of each kind, taking fieldValidation. */
function openapiDocument(path: string) {
  const { group, version, kinds } = OPENAPI_GROUPS[path]!
  const paths = Object.fromEntries(
    Object.entries(kinds).map(([plural, kind]) => [
      `/${path}/namespaces/{namespace}/${plural}/{name}`,
      {
        patch: {
          'x-kubernetes-group-version-kind': { group, version, kind },
          parameters: [{ name: 'fieldValidation', in: 'query', schema: { type: 'string' } }],
          responses: {},
        },
      },
    ]),
  )
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.31.0' }, paths }
}

export async function startFakeKubeApi(): Promise<FakeKubeApi> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-kube-api-'))
  const key = path.join(dir, 'key.pem')
  const cert = path.join(dir, 'cert.pem')
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  )
  const certificate = readFileSync(cert)
  const requests: KubeRequest[] = []
  const releases = new Map<string, { namespace: string; encoded: string }>()
  const podsOf = new Map<string, FakePod[]>()
  let eventItems: object[] = []
  const servicesOf = new Map<string, object[]>()

  const server: Server = createServer({ key: readFileSync(key), cert: certificate }, (req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
    })
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://127.0.0.1')
      requests.push({
        method: req.method ?? '',
        url: `${url.pathname}${url.search}`,
        contentType: req.headers['content-type'],
        authorization: req.headers.authorization,
        body,
      })
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(value))
      }
      const p = url.pathname
      if (p === '/version') return send(200, { major: '1', minor: '31', gitVersion: 'v1.31.0' })
      const serviceList = /^\/api\/v1\/namespaces\/([^/]+)\/services$/.exec(p)
      if (serviceList && req.method === 'GET') {
        return send(200, { kind: 'ServiceList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: servicesOf.get(serviceList[1]!) ?? [] })
      }
      if (p === '/api/v1/events') return send(200, { kind: 'EventList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: eventItems })
      if (p === '/api') return send(200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] })
      if (p === '/apis') {
        const version = { groupVersion: 'apps/v1', version: 'v1' }
        return send(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [{ name: 'apps', versions: [version], preferredVersion: version }] })
      }
      if (p === '/api/v1')
        return send(200, {
          kind: 'APIResourceList',
          groupVersion: 'v1',
          resources: [
            { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'], shortNames: ['po'] },
            { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
            // Objects charts make: known to helm's mapping (none stored: a GET of one is 404).
            ...Object.entries(CORE_KINDS).map(([name, kind]) => ({
              name,
              singularName: kind.toLowerCase(),
              namespaced: true,
              kind,
              verbs: WRITE_VERBS,
            })),
          ],
        })
      const podList = /^\/api\/v1\/namespaces\/([^/]+)\/pods$/.exec(p)
      if (podList) {
        const selector = url.searchParams.get('labelSelector') ?? ''
        const items = (podsOf.get(podList[1]!) ?? []).filter((pod) => matches(pod.labels, selector)).map((pod) => podObject(podList[1]!, pod))
        return send(200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items })
      }
      const podPath = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)(\/log)?$/.exec(p)
      const pod = podPath ? podsOf.get(podPath[1]!)?.find((found) => found.name === podPath[2]) : undefined
      if (podPath && pod && !podPath[3]) return send(200, podObject(podPath[1]!, pod))
      if (podPath && pod) {
        const tail = url.searchParams.get('tailLines')
        // The API's sinceTime is to the second; a follow (`follow=true`) is answered with what is there, then ends.
        const since = url.searchParams.get('sinceTime')
        const kept = since === null ? pod.log : pod.log.filter((line) => Date.parse(line.at) >= Date.parse(since))
        const lines = tail === null ? kept : kept.slice(-Number(tail))
        const stamped = url.searchParams.get('timestamps') === 'true'
        res.writeHead(200, { 'content-type': 'text/plain' })
        return res.end(lines.map((line) => `${stamped ? `${line.at} ` : ''}${line.message}\n`).join(''))
      }
      // OpenAPI v3, only as far as kubectl's validation reads it: every kind's PATCH takes fieldValidation, so the server validates.
      if (p === '/openapi/v3')
        return send(200, {
          paths: Object.fromEntries(Object.keys(OPENAPI_GROUPS).map((gv) => [gv, { serverRelativeURL: `/openapi/v3/${gv}?hash=1` }])),
        })
      const openapiGroup = /^\/openapi\/v3\/(.+)$/.exec(p)
      if (openapiGroup && OPENAPI_GROUPS[openapiGroup[1]!]) return send(200, openapiDocument(openapiGroup[1]!))
      if (p === '/apis/apps/v1') {
        const verbs = ['get', 'list', 'patch', 'update']
        return send(200, {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: 'apps/v1',
          resources: Object.entries(KINDS).flatMap(([name, kind]) => [
            { name, singularName: kind.toLowerCase(), namespaced: true, kind, verbs },
            ...(name === 'daemonsets'
              ? []
              : [{ name: `${name}/scale`, singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs }]),
          ]),
        })
      }
      const secrets = /^\/api\/v1\/namespaces\/([^/]+)\/secrets$/.exec(p)
      if (secrets) {
        const name = /(?:^|,)name=([^,]+)/.exec(url.searchParams.get('labelSelector') ?? '')?.[1]
        const found = name ? releases.get(name) : undefined
        const items =
          found && found.namespace === secrets[1]
            ? [
                {
                  metadata: {
                    name: `sh.helm.release.v1.${name}.v1`,
                    namespace: found.namespace,
                    labels: { name, owner: 'helm', status: 'deployed', version: '1' },
                  },
                  type: 'helm.sh/release.v1',
                  data: { release: Buffer.from(found.encoded).toString('base64') },
                },
              ]
            : []
        return send(200, { kind: 'SecretList', apiVersion: 'v1', metadata: {}, items })
      }
      const workload = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/(deployments|statefulsets|daemonsets)\/([^/]+)(\/scale)?$/.exec(p)
      if (workload) {
        const [, namespace, plural, name, scale] = workload
        const metadata = { name, namespace, uid: `${plural}-${name}`, resourceVersion: '1' }
        if (scale) return send(200, { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata, spec: { replicas: 0 }, status: { replicas: 0 } })
        const template = { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'app' }] } }
        return send(200, {
          kind: KINDS[plural!],
          apiVersion: 'apps/v1',
          metadata,
          spec: { replicas: 2, selector: { matchLabels: { app: name } }, template },
        })
      }
      send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    server,
    url,
    requests,
    kubeconfig: (token) => `apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: ${url}
    certificate-authority-data: ${certificate.toString('base64')}
users:
- name: berth
  user:
    token: ${token}
contexts:
- name: fake
  context: { cluster: fake, user: berth }
current-context: fake
`,
    pods(namespace, pods) {
      podsOf.set(namespace, pods)
    },
    services(namespace, items) {
      servicesOf.set(namespace, items)
    },
    events(items) {
      eventItems = items
    },
    release(name, namespace, manifest) {
      const stored = {
        name,
        namespace,
        version: 1,
        info: { status: 'deployed' },
        manifest,
        chart: { metadata: { name: 'app', version: '0.1.0', apiVersion: 'v2' } },
      }
      releases.set(name, { namespace, encoded: gzipSync(JSON.stringify(stored)).toString('base64') })
    },
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
