/**
 * Issue 48: a cluster's logs (what Berth did to it, and as Loki answers), its installation values,
 * its DNS provider (a Kubernetes cluster's services are named under its domain), an upgrade that
 * asks the engine and holds a lock meanwhile (refused on a locked cluster), and its kubeconfig's
 * token (ADMIN). Kubernetes answers come from the recording API server stand-in through real kubectl.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { parse } from 'yaml'
import { createClusterAdminService } from '#src/modules/clusters/cluster-admin.service.ts'
import { withClusterLockTables } from '#src/modules/clusters/cluster-locks.tables.ts'
import { clusterLogs, parseLogQuery } from '#src/modules/clusters/cluster-logs.ts'
import { BUILTIN_CHART } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type FakeKubeApi, startFakeKubeApi } from './helpers/fake-kube-api.ts'
import { kubectlBinary } from './helpers/helm-binary.ts'
import { UNREACHABLE_KUBECONFIG } from './helpers/kubeconfig.ts'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

describe('cluster logs, DNS provider, upgrade, token', () => {
  let t: DeploymentsTestApp
  let calls: DeploymentCalls
  let f: ReturnType<typeof factories>
  let kube: FakeKubeApi

  before(async () => {
    kube = await startFakeKubeApi()
    t = await createDeploymentsApp(0, { BERTH_KUBECTL_PATH: kubectlBinary(3), BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
    calls = deploymentCalls(t.app)
    f = factories(t.db)
  })
  after(async () => {
    await t?.close()
    await kube?.close()
  })

  it('lists what Berth did to a cluster, and answers a LogQL query of it as Loki does', async () => {
    const w = await f.organizationWithTokens()
    const { admin, write, read } = w.tokens
    const cluster = await f.cluster(w.organization.id, { name: 'logged' })
    const base = `/organization/${w.organization.id}/cluster/${cluster.id}`
    assert.equal((await calls.inject('POST', `${base}/deploy`, write.authorization)).statusCode, 201)
    assert.equal((await calls.inject('POST', `${base}/stop`, write.authorization)).statusCode, 202)
    assert.equal((await calls.inject('POST', `/cluster/${cluster.id}/lock`, write.authorization, { reason: 'maintenance window' })).statusCode, 200)
    assert.equal((await calls.inject('DELETE', `/cluster/${cluster.id}/lock`, admin.authorization)).statusCode, 204)

    const listed = await calls.inject('GET', `${base}/logs`, read.authorization)
    assert.equal(listed.statusCode, 200, listed.body)
    const lines: Body[] = listed.json().results
    assert.deepEqual(
      lines.map((line) => line.step),
      ['Created', 'Create', 'Created', 'Paused', 'Unknown', 'Unknown'],
    )
    assert.match(lines[4]!.message.safe_message, /locked by API token .*: maintenance window/)
    assert.match(lines[5]!.message.safe_message, /unlocked by API token/)
    assert.equal(lines[4]!.type, 'warning')
    assert.equal(lines[0]!.details.transmitter.id, cluster.id)
    for (const line of lines) assert.ok(!Number.isNaN(Date.parse(line.timestamp)))

    const other = await f.organizationWithTokens()
    assert.equal(
      (await calls.inject('GET', `/organization/${other.organization.id}/cluster/${cluster.id}/logs`, other.tokens.admin.authorization)).statusCode,
      404,
    )
    assert.equal(
      (await calls.inject('GET', `/cluster/${cluster.id}/logs?endpoint=query_range&query={}`, other.tokens.admin.authorization)).statusCode,
      404,
    )

    const loki = async (query: string, extra = '') => {
      const res = await calls.inject(
        'GET',
        `/cluster/${cluster.id}/logs?endpoint=query_range&query=${encodeURIComponent(query)}${extra}`,
        read.authorization,
      )
      assert.equal(res.statusCode, 200, res.body)
      return JSON.parse(res.json().response) as Body
    }
    const all = await loki('{component="cluster"}')
    assert.equal(all.status, 'success')
    assert.equal(all.data.resultType, 'streams')
    assert.deepEqual(all.data.result[0].stream, { component: 'cluster', cluster_id: cluster.id })
    const values: [string, string][] = all.data.result[0].values
    assert.equal(values.length, 6)
    assert.match(values[0]![1], /unlocked/, 'backward: newest first')
    assert.ok(BigInt(values[0]![0]) >= BigInt(values[5]![0]))
    const filtered = await loki('{} |= "lock" != "unlocked"')
    assert.deepEqual(
      filtered.data.result[0].values.map((value: [string, string]) => value[1]),
      [`${lines[4]!.type} Unknown: ${lines[4]!.message.safe_message}`],
    )
    const firstTwo = await loki('{}', '&direction=forward&limit=2')
    assert.deepEqual(
      firstTwo.data.result[0].values.map((value: [string, string]) => value[1].split(':')[0]),
      ['info Created', 'info Create'],
    )
    const future = await loki('{}', `&start=${(BigInt(Date.now()) + 60_000n) * 1_000_000n}`)
    assert.deepEqual(future.data.result, [])

    for (const bad of ['rate({}[5m])', '{app="x"}', '{} |~ "a.*"']) {
      const res = await calls.inject('GET', `/cluster/${cluster.id}/logs?endpoint=query_range&query=${encodeURIComponent(bad)}`, read.authorization)
      assert.equal(res.statusCode, 400, `${bad}: ${res.body}`)
    }
    assert.equal((await calls.inject('GET', `/cluster/${cluster.id}/logs?endpoint=labels&query={}`, read.authorization)).statusCode, 400)
  })

  it("answers the values Berth's chart is installed with on a Kubernetes cluster, and says a Docker cluster has none", async () => {
    const w = await f.organizationWithTokens()
    const kubernetes = await f.cluster(w.organization.id, { executor: 'KUBERNETES' }, kube.kubeconfig('kube-token'))
    const res = await calls.inject(
      'GET',
      `/organization/${w.organization.id}/cluster/${kubernetes.id}/installationHelmValues`,
      w.tokens.read.authorization,
    )
    assert.equal(res.statusCode, 200, res.body)
    assert.match(res.headers['content-type'] as string, /application\/x-yaml/)
    assert.deepEqual(parse(res.body), parse(await readFile(path.join(BUILTIN_CHART, 'values.yaml'), 'utf8')))
    assert.match(res.body, /berth-service 1\.0\.0/)

    const docker = await f.cluster(w.organization.id, { executor: 'DOCKER' })
    const none = await calls.inject(
      'GET',
      `/organization/${w.organization.id}/cluster/${docker.id}/installationHelmValues`,
      w.tokens.read.authorization,
    )
    assert.equal(none.statusCode, 200)
    assert.deepEqual(parse(none.body), {})
    assert.match(none.body, /Docker engine/)
  })

  it("keeps a DNS provider, sealed and write-only; a Kubernetes cluster's services are named under its domain", async () => {
    const w = await f.environmentWithTokens()
    const { write, read } = w.tokens
    const cluster = await f.cluster(w.organization.id, { executor: 'KUBERNETES' }, UNREACHABLE_KUBECONFIG)
    const url = `/cluster/${cluster.id}/dnsProvider`
    assert.deepEqual((await calls.inject('GET', url, read.authorization)).json(), { dns_provider: { provider: 'QOVERY', domain: 'berth.localhost' } })

    const cloudflare = { provider: 'CLOUDFLARE', domain: 'Apps.Example.com', email: 'ops@example.com', api_token: 'cf-secret-token', proxied: true }
    assert.equal((await calls.inject('PUT', url, read.authorization, { dns_provider: cloudflare })).statusCode, 403)
    const edited = await calls.inject('PUT', url, write.authorization, { dns_provider: cloudflare })
    assert.equal(edited.statusCode, 200, edited.body)
    const expected = { dns_provider: { provider: 'CLOUDFLARE', domain: 'apps.example.com', email: 'ops@example.com', proxied: true } }
    assert.deepEqual(edited.json(), expected)
    assert.deepEqual((await calls.inject('GET', url, read.authorization)).json(), expected)
    assert.ok(!(await calls.inject('GET', url, read.authorization)).body.includes('cf-secret-token'))
    const stored = await t.db
      .selectFrom('clusterDnsProviders' as never)
      .selectAll()
      .execute()
    assert.ok(!JSON.stringify(stored).includes('cf-secret-token'), 'the token is sealed at rest')
    const settings = await calls.inject('GET', `/organization/${w.organization.id}/cluster/${cluster.id}/advancedSettings`, read.authorization)
    assert.equal(settings.json()['berth.ingress.apps_domain'], 'apps.example.com', "the cluster's Ingress hosts are under the domain")

    const missing = await calls.inject('PUT', url, write.authorization, {
      dns_provider: { provider: 'CLOUDFLARE', domain: 'example.com', email: 'nope' },
    })
    assert.equal(missing.statusCode, 400)
    assert.deepEqual(
      missing
        .json()
        .errors.map((error: { path: string }) => error.path)
        .sort(),
      ['/dns_provider/api_token', '/dns_provider/email'],
    )
    assert.equal(
      (await calls.inject('PUT', url, write.authorization, { dns_provider: { provider: 'QOVERY', domain: 'not a domain' } })).statusCode,
      400,
    )

    const route53 = {
      provider: 'ROUTE53',
      domain: 'r53.example.com',
      credentials: { type: 'STATIC', aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: 'aws-secret' },
      aws_region: 'eu-west-3',
      hosted_zone_id: 'Z0965488LE74BWDEVQDB',
    }
    const r53 = await calls.inject('PUT', url, write.authorization, { dns_provider: route53 })
    assert.equal(r53.statusCode, 200, r53.body)
    assert.deepEqual(r53.json().dns_provider.credentials, { type: 'STATIC', aws_access_key_id: 'AKIAEXAMPLE' })

    const docker = await f.cluster(w.organization.id, { executor: 'DOCKER' })
    const qovery = await calls.inject('PUT', `/cluster/${docker.id}/dnsProvider`, write.authorization, {
      dns_provider: { provider: 'QOVERY', domain: 'd.example.com' },
    })
    assert.deepEqual(qovery.json(), { dns_provider: { provider: 'QOVERY', domain: 'd.example.com' } })
    assert.ok(
      (await calls.inject('GET', `/organization/${w.organization.id}/cluster/${docker.id}/logs`, read.authorization)).body.includes(
        'DNS provider set to QOVERY for d.example.com',
      ),
    )
  })

  it('upgrades by asking the engine; a locked cluster or an engine that does not answer is refused, changing nothing', async () => {
    const w = await f.organizationWithTokens()
    const { write, read } = w.tokens
    const cluster = await f.cluster(w.organization.id, { executor: 'KUBERNETES' }, kube.kubeconfig('kube-token'))
    const before = kube.requests.length
    assert.equal((await calls.inject('POST', `/cluster/${cluster.id}/upgrade`, read.authorization)).statusCode, 403)
    const upgraded = await calls.inject('POST', `/cluster/${cluster.id}/upgrade`, write.authorization)
    assert.equal(upgraded.statusCode, 201, upgraded.body)
    assert.equal(upgraded.json().cluster_id, cluster.id)
    assert.equal(upgraded.json().kubernetes_version, 'v1.31.0', 'the API server was asked')
    assert.ok(kube.requests.slice(before).some((request) => request.url.startsWith('/version')))
    assert.deepEqual((await calls.inject('GET', `/organization/${w.organization.id}/lock`, read.authorization)).json().results, [], 'not locked')
    const steps = (await calls.inject('GET', `/organization/${w.organization.id}/cluster/${cluster.id}/logs`, read.authorization))
      .json()
      .results.map((line: Body) => line.step)
    assert.deepEqual(steps.slice(-2), ['UnderMigration', 'Created'])

    assert.equal((await calls.inject('POST', `/cluster/${cluster.id}/lock`, write.authorization, { reason: 'hands off' })).statusCode, 200)
    const locked = await calls.inject('POST', `/cluster/${cluster.id}/upgrade`, write.authorization)
    assert.equal(locked.statusCode, 409, locked.body)
    assert.match(locked.json().message, /is locked/)
    assert.equal(
      (await calls.inject('GET', `/organization/${w.organization.id}/lock`, read.authorization)).json().results[0].reason,
      'hands off',
      'the lock stays',
    )

    const unreachable = await f.cluster(w.organization.id, { executor: 'KUBERNETES' }, UNREACHABLE_KUBECONFIG)
    const failed = await calls.inject('POST', `/cluster/${unreachable.id}/upgrade`, write.authorization)
    assert.equal(failed.statusCode, 409, failed.body)
    const failedLines = (await calls.inject('GET', `/organization/${w.organization.id}/cluster/${unreachable.id}/logs`, read.authorization)).json()
      .results
    assert.match(failed.json().message, /engine did not answer/)
    assert.deepEqual(
      failedLines.map((line: Body) => line.step),
      ['Created', 'RetrieveClusterConfig'],
      'a refused upgrade writes nothing',
    )
    assert.deepEqual(
      (await calls.inject('GET', `/organization/${w.organization.id}/lock`, read.authorization)).json().results.map((lock: Body) => lock.cluster_id),
      [cluster.id],
    )
    const noKubeconfig = await f.cluster(w.organization.id, { executor: 'KUBERNETES' })
    assert.equal((await calls.inject('POST', `/cluster/${noKubeconfig.id}/upgrade`, write.authorization)).statusCode, 400)
  })

  it("gives ADMIN the token of a Kubernetes cluster's kubeconfig as an ExecCredential", async () => {
    const w = await f.organizationWithTokens()
    const { admin, write } = w.tokens
    const exp = Math.floor(Date.now() / 1000) + 600
    const jwt = ['{"alg":"none"}', JSON.stringify({ sub: 'system:serviceaccount:berth:deployer', exp })]
      .map((part) => Buffer.from(part).toString('base64url'))
      .join('.')
      .concat('.sig')
    const cluster = await f.cluster(w.organization.id, { executor: 'KUBERNETES' }, kube.kubeconfig(jwt))
    assert.equal((await calls.inject('GET', `/cluster/${cluster.id}/token`, write.authorization)).statusCode, 403)
    const res = await calls.inject('GET', `/cluster/${cluster.id}/token`, admin.authorization)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: {},
      status: { token: jwt, expirationTimestamp: new Date(exp * 1000).toISOString() },
    })
    assert.equal((await calls.inject('GET', `/cluster/${cluster.id}/token?read_only=true`, admin.authorization)).statusCode, 400)

    const statik = await f.cluster(w.organization.id, { executor: 'KUBERNETES' }, UNREACHABLE_KUBECONFIG)
    const answer = (await calls.inject('GET', `/cluster/${statik.id}/token`, admin.authorization)).json()
    assert.equal(answer.status.token, 'kube-secret')
    assert.ok(Date.parse(answer.status.expirationTimestamp) > Date.now())

    const certificate = UNREACHABLE_KUBECONFIG.replace('{ token: kube-secret }', '{ client-certificate-data: Y2VydA==, client-key-data: a2V5 }')
    const certified = await f.cluster(w.organization.id, { executor: 'KUBERNETES' }, certificate)
    const refused = await calls.inject('GET', `/cluster/${certified.id}/token`, admin.authorization)
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().message, /client certificate/)
    assert.equal(
      (await calls.inject('GET', `/cluster/${(await f.cluster(w.organization.id, { executor: 'KUBERNETES' })).id}/token`, admin.authorization))
        .statusCode,
      404,
    )
    assert.equal((await calls.inject('GET', `/cluster/${(await f.cluster(w.organization.id)).id}/token`, admin.authorization)).statusCode, 400)
  })

  /** The cluster admin service of a Docker cluster whose front door logs to `frontDoorLogFile`. */
  const dockerClusterAdmin = (clusterId: string, frontDoor: { appsDomain?: string; frontDoorLogFile: string }) => {
    const db = withClusterLockTables(t.db)
    return createClusterAdminService({
      db,
      operations: {
        requireCluster: async () => await db.selectFrom('clusters').selectAll().where('id', '=', clusterId).executeTakeFirstOrThrow(),
        engineOf: () => ({ kind: 'DOCKER' }),
      },
      logs: clusterLogs(db),
      engines: {} as never,
      secrets: {} as never,
      actorName: async () => 'test',
      ...frontDoor,
    })
  }

  it("reads the end of the front door's log for a Docker cluster", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'berth-front-door-log-'))
    try {
      const file = path.join(dir, 'caddy.log')
      const now = Date.now() / 1000
      const lines = [
        { level: 'info', ts: now - 2, msg: 'serving initial configuration' },
        { level: 'error', ts: now - 1, msg: 'tls handshake failed' },
      ]
      await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`)
      const w = await f.organizationWithTokens()
      const cluster = await f.cluster(w.organization.id, { executor: 'DOCKER' })
      const admin = dockerClusterAdmin(cluster.id, { frontDoorLogFile: file })
      const answer = JSON.parse(
        await admin.queryLogs({} as never, cluster.id, {
          ...parseLogQuery('{component="front-door"} |= "tls"'),
          start: undefined,
          end: undefined,
          limit: 10,
          direction: 'forward',
        }),
      )
      assert.equal(answer.data.result.length, 1)
      assert.deepEqual(answer.data.result[0].stream, { component: 'front-door', cluster_id: cluster.id })
      assert.equal(answer.data.result[0].values.length, 1)
      assert.match(answer.data.result[0].values[0][1], /tls handshake failed/)
      const both = JSON.parse(
        await admin.queryLogs({} as never, cluster.id, { ...parseLogQuery('{}'), start: undefined, end: undefined, limit: 10, direction: 'forward' }),
      )
      assert.deepEqual(
        both.data.result.map((stream: Body) => [stream.stream.component, stream.values.length]),
        [
          ['cluster', 1],
          ['front-door', 2],
        ],
      )
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it("shows an organization only its own hosts' lines of the shared front door's log", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'berth-front-door-log-'))
    try {
      const domain = 'apps.berth.test'
      const ours = await f.environmentWithTokens()
      const theirs = await f.environmentWithTokens()
      const own = await f.containerService(ours.environment.id)
      const other = await f.containerService(theirs.environment.id)
      const label = (id: string) => `z${id.replaceAll('-', '').slice(0, 8)}`
      await t.db
        .insertInto('customDomains')
        .values({ organizationId: ours.organization.id, serviceId: own.id, domain: 'shop.example.com', generateCertificate: true, useCdn: false })
        .execute()
      const now = Date.now() / 1000
      const lines = [
        { level: 'info', ts: now - 6, msg: 'serving initial configuration' },
        { level: 'error', ts: now - 5, logger: 'http.log.error', msg: 'ours down', request: { host: `${label(own.id)}.${domain}`, uri: '/a' } },
        {
          level: 'error',
          ts: now - 4,
          logger: 'http.log.error',
          msg: 'theirs down',
          request: { host: `${label(other.id)}.${domain}:443`, uri: '/secret-path' },
        },
        { level: 'error', ts: now - 3, logger: 'tls.obtain', msg: 'ours port', identifier: `p8080-${label(own.id)}.${domain}` },
        { level: 'info', ts: now - 2, logger: 'tls', msg: 'mixed', domains: [`${label(own.id)}.${domain}`, `${label(other.id)}.${domain}`] },
        { level: 'error', ts: now - 1, logger: 'http.log.error', msg: 'ours custom', request: { host: 'shop.example.com' } },
      ]
      const file = path.join(dir, 'caddy.log')
      await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\ngoroutine 1 [running]: ${label(other.id)}.${domain}\n`)
      const cluster = await f.cluster(ours.organization.id, { executor: 'DOCKER' })
      const admin = dockerClusterAdmin(cluster.id, { appsDomain: domain, frontDoorLogFile: file })
      const answer = JSON.parse(
        await admin.queryLogs({} as never, cluster.id, {
          ...parseLogQuery('{component="front-door"}'),
          start: undefined,
          end: undefined,
          limit: 100,
          direction: 'forward',
        }),
      )
      const seen: string[] = answer.data.result[0].values.map((value: [string, string]) => JSON.parse(value[1]).msg)
      assert.deepEqual(seen, ['serving initial configuration', 'ours down', 'ours port', 'ours custom'])
      assert.doesNotMatch(answer.data.result[0].values.map((value: [string, string]) => value[1]).join('\n'), new RegExp(label(other.id)))
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
