import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { namespaceOf } from '#src/modules/executors/kubernetes/helm-executor.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { type FakeKubeApi, startFakeKubeApi } from './helpers/fake-kube-api.ts'
import { helmBinary, kubectlBinary } from './helpers/helm-binary.ts'

// Issue 35, "Service logs", on Kubernetes: a service of an environment whose cluster deploys to
// Kubernetes answers the lines of its pods, read with the real kubectl (`kubectl logs
// --timestamps`) from the recording stand-in API server (test/helpers/fake-kube-api.ts), which
// answers the pods it is given and their logs. The container is deployed through the API and the
// runner with the built-in chart: BERTH_HELM_PATH is a wrapper that runs the real helm but answers
// `upgrade` with success (no cluster can run here). Not verified: a real kubelet's logs.

const SECRET = 'kube-logs-s3cret-value'

let api: FakeKubeApi
let t: DeploymentsTestApp
let calls: DeploymentCalls
let work: string

before(async () => {
  api = await startFakeKubeApi()
  work = mkdtempSync(path.join(os.tmpdir(), 'berth-kube-logs-test-'))
  const wrapper = path.join(work, 'helm')
  writeFileSync(wrapper, `#!/bin/sh\nif [ "$1" = upgrade ] || [ "$1" = uninstall ]; then exit 0; fi\nexec '${helmBinary(3)}' "$@"\n`, { mode: 0o755 })
  t = await createDeploymentsApp(0, {
    BERTH_HELM_PATH: wrapper,
    BERTH_KUBECTL_PATH: kubectlBinary(3),
    BERTH_RUNNER_POLL_MS: '50',
    BERTH_RATE_LIMIT_PER_CREDENTIAL: '0',
  })
  calls = deploymentCalls(t.app)
})

after(async () => {
  await t?.close()
  await api?.close()
  if (work) rmSync(work, { recursive: true, force: true })
})

interface Log {
  id: string
  created_at: string
  message: string
  pod_name?: string
  version?: string
  instance: string | null
  stream: string | null
}

/** The events of a server-sent event stream, as they come. */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const decoder = new TextDecoder()
  let buffer = ''
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true })
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const field = (name: string) =>
        block
          .split('\n')
          .filter((line) => line.startsWith(`${name}: `))
          .map((line) => line.slice(name.length + 2))
          .join('\n')
      if (field('event') !== '') yield { event: field('event'), data: field('data') }
    }
  }
}

describe('service logs on Kubernetes', () => {
  it("lists a built-in chart container's lines from its pods, secrets masked; none when no pod exists", async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const cluster = await f.cluster(organization.id, { executor: 'KUBERNETES' }, api.kubeconfig('kube-token'))
    const project = await f.project(organization.id)
    const environment = await f.environment(project.id, { clusterId: cluster.id })
    const container = await f.containerService(environment.id, { name: 'web' })
    const variable = await calls.inject('POST', '/variable', tokens.write.authorization, {
      key: 'API_KEY',
      value: SECRET,
      is_secret: true,
      variable_scope: 'CONTAINER',
      variable_parent_id: container.id,
    })
    assert.equal(variable.statusCode, 201, variable.body)

    const queued = await calls.trigger(`/container/${container.id}/deploy`, tokens.deploy.authorization)
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYED', JSON.stringify(entry))

    // No pod of the service exists (another service's does): the list is empty.
    const namespace = namespaceOf(environment.id)
    api.pods(namespace, [
      { name: 'other-0', labels: { 'berth.service-id': 'someone-else' }, log: [{ at: '2026-11-28T12:00:00.5Z', message: 'not mine' }] },
    ])
    const none = await calls.inject('GET', `/container/${container.id}/log`, tokens.read.authorization)
    assert.equal(none.statusCode, 200, none.body)
    assert.deepEqual(none.json(), { results: [] })

    // Two pods of the release, as the built-in chart labels them; their lines interleave by time.
    const labels = { 'berth.service-id': container.id, 'berth.execution-id': queued.execution_id as string, 'berth.kind': 'CONTAINER' }
    const logA = [
      { at: '2026-11-28T12:00:01.000000001Z', message: `the key is ${SECRET}` },
      { at: '2026-11-28T12:00:03.25Z', message: 'tick-2' },
    ]
    const logB = [{ at: '2026-11-28T12:00:02.5Z', message: 'tick-1' }]
    api.pods(namespace, [
      { name: 'web-pod-a', labels, log: logA },
      { name: 'web-pod-b', labels, log: logB },
      { name: 'other-0', labels: { 'berth.service-id': 'someone-else' }, log: [{ at: '2026-11-28T12:00:00.5Z', message: 'not mine' }] },
    ])
    const res = await calls.inject('GET', `/container/${container.id}/log`, tokens.read.authorization)
    assert.equal(res.statusCode, 200, res.body)
    assert.doesNotMatch(res.body, new RegExp(SECRET))
    const results = (res.json() as { results: Log[] }).results
    assert.deepEqual(
      results.map((log) => [log.message, log.pod_name, log.version, log.stream, Date.parse(log.created_at)]),
      [
        ['the key is ***', 'web-pod-a', queued.execution_id, null, Date.parse('2026-11-28T12:00:01.000Z')],
        ['tick-1', 'web-pod-b', queued.execution_id, null, Date.parse('2026-11-28T12:00:02.500Z')],
        ['tick-2', 'web-pod-a', queued.execution_id, null, Date.parse('2026-11-28T12:00:03.250Z')],
      ],
    )
    assert.deepEqual(new Set(results.map((log) => log.instance)), new Set(['0', '1']))

    // kubectl selected the service's pods by label in the environment's namespace, and read each log with timestamps and a tail.
    const list = api.requests.find((request) => request.url.startsWith(`/api/v1/namespaces/${namespace}/pods?`))
    assert.match(decodeURIComponent(list?.url ?? ''), new RegExp(`labelSelector=berth\\.service-id=${container.id}`))
    const log = api.requests.find((request) => request.url.startsWith(`/api/v1/namespaces/${namespace}/pods/web-pod-a/log?`))
    assert.match(log?.url ?? '', /timestamps=true/)
    assert.match(log?.url ?? '', /tailLines=1000/)
    assert.equal(log?.authorization, 'Bearer kube-token')

    // Following: the last lines, then a line printed meanwhile (kubectl logs --follow), and the end once no pod runs.
    const base = await t.listen()
    const stream = await fetch(`${base}/container/${container.id}/log/follow`, {
      headers: { authorization: tokens.read.authorization, accept: 'text/event-stream' },
      signal: AbortSignal.timeout(30_000),
    })
    assert.equal(stream.status, 200)
    const events = sseEvents(stream.body!)
    const followed: string[] = []
    const next = async () => {
      const { value, done } = await events.next()
      assert.ok(!done, `the stream ended early after ${JSON.stringify(followed)}`)
      return value
    }
    while (followed.length < 3) {
      const event = await next()
      if (event.event === 'log') followed.push((JSON.parse(event.data) as Log).message)
    }
    const podA = { name: 'web-pod-a', labels, log: [...logA, { at: '2026-11-28T12:00:04.75Z', message: 'tick-3' }] }
    api.pods(namespace, [podA, { name: 'web-pod-b', labels, log: logB }])
    for (let event = await next(); event.event !== 'log'; event = await next()) assert.notEqual(event.event, 'end')
    followed.push('tick-3')
    api.pods(namespace, [
      { ...podA, phase: 'Succeeded' },
      { name: 'web-pod-b', labels, phase: 'Succeeded', log: logB },
    ])
    let last = await next()
    while (last.event !== 'end') {
      assert.notEqual(last.event, 'log', `no line is given twice: ${last.data}`)
      last = await next()
    }
    assert.deepEqual(followed, ['the key is ***', 'tick-1', 'tick-2', 'tick-3'])
    assert.ok(api.requests.some((request) => request.url.includes('/pods/web-pod-a/log?') && request.url.includes('follow=true')))

    // Another organization's token gets 404.
    const stranger = await f.organizationWithTokens()
    const foreign = await calls.inject('GET', `/container/${container.id}/log`, stranger.tokens.read.authorization)
    assert.equal(foreign.statusCode, 404)
  })
})
