import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { type AddressInfo, connect } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { openMonitoring } from '#src/modules/alerting/monitoring-runtime.ts'
import { createTestApp, type TestApp, testSecretBox } from './helpers/app.ts'
import { call } from './helpers/berth-processes.ts'
import { busyboxImage, docker } from './helpers/docker.ts'
import { factories } from './helpers/factories.ts'

// Issue 46's "done means", on Debian's prometheus and prometheus-alertmanager run as `berth serve`
// runs them: a container of a service holding 80 MB makes a rule on its working set fire; a
// Slack-style receiver (an HTTP server on loopback) and an e-mail receiver (aiosmtpd (Debian's, under /usr/bin/python3), an SMTP sink on
// loopback) each get the alert with the service's name; the rule says NOTIFIED, then OK once the
// container stops. Broken PromQL is refused with Prometheus' message; another organization cannot
// aim a rule at the service; restarting Berth, or the engines (from empty files), keeps it all.
// The container is started with Berth's labels directly: what is measured is what the exporter
// reads of the engine, not a deployment (test/docker-applications.test.ts deploys).

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = await probe()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(500)
  }
}

const quiet = { info() {}, warn() {} }

describe('alerting on real Prometheus and Alertmanager', () => {
  let dataDir: string
  let env: Record<string, string>
  let t: TestApp
  let baseUrl: string
  let monitoring: { stop(): Promise<void> } | undefined
  let hook: Server
  const hookBodies: string[] = []
  let smtp: ChildProcess
  let smtpOutput = ''
  let hookUrl: string
  let smtpPort: number
  let containerId: string | undefined
  let w: Awaited<ReturnType<ReturnType<typeof factories>['environmentWithTokens']>>
  let other: Awaited<ReturnType<ReturnType<typeof factories>['organizationWithTokens']>>
  let service: { id: string; name: string }
  let clusterId: string
  const receiverIds: string[] = []
  let ruleId: string

  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token: string, body?: object) =>
    call(baseUrl, method, url, token, body === undefined ? {} : { body })

  const startBerth = async () => {
    t = await createTestApp(env)
    baseUrl = await t.listen()
    monitoring = await openMonitoring(t.config, t.db, testSecretBox(), Number(new URL(baseUrl).port), quiet)
  }
  const stopBerth = async () => {
    await monitoring?.stop()
    monitoring = undefined
    await t?.close()
  }

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'berth-alerting-'))
    hook = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk) => {
        body += chunk
      })
      req.on('end', () => {
        hookBodies.push(body)
        res.end('ok')
      })
    })
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve))
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/services/T000/B000/XXXX`
    smtpPort = await freePort()
    smtp = spawn('/usr/bin/python3', ['-u', '-m', 'aiosmtpd', '-n', '-l', `127.0.0.1:${smtpPort}`], { stdio: ['ignore', 'pipe', 'pipe'] })
    smtp.stdout?.on('data', (chunk) => {
      smtpOutput += chunk
    })
    env = {
      BERTH_EXECUTOR: 'docker',
      // The test runner turns the engines off for every other file (scripts/test.ts).
      BERTH_MONITORING: 'auto',
      BERTH_PROXY: 'off',
      BERTH_DATA_DIR: dataDir,
      BERTH_METRICS_INTERVAL_MS: '1000',
      BERTH_ALERT_GROUP_WAIT_MS: '1000',
      BERTH_PROMETHEUS_PORT: String(await freePort()),
      BERTH_ALERTMANAGER_PORT: String(await freePort()),
      BERTH_ALLOW_PRIVATE_URLS: 'true',
      BERTH_RATE_LIMIT_PER_CREDENTIAL: '0',
      BERTH_RATE_LIMIT_PER_ADDRESS: '0',
    }
    await startBerth()
    const f = factories(t.db)
    w = await f.environmentWithTokens()
    other = await f.organizationWithTokens()
    service = await f.containerService(w.environment.id, { name: 'memory-hog' })
    const clusters = await api('GET', `/organization/${w.organization.id}/cluster`, w.tokens.admin.authorization)
    clusterId = clusters.body.results[0].id
    await until(
      'the SMTP sink',
      () =>
        new Promise<true | undefined>((resolve) => {
          const socket = connect(smtpPort, '127.0.0.1', () => {
            socket.destroy()
            resolve(true)
          })
          socket.once('error', () => resolve(undefined))
        }),
    )
  })

  after(async () => {
    if (containerId)
      await docker
        .getContainer(containerId)
        .remove({ force: true })
        .catch(() => undefined)
    await stopBerth()
    smtp?.kill()
    await new Promise((resolve) => hook.close(resolve))
    await rm(dataDir, { recursive: true, force: true })
  })

  const ruleBody = (promql: string, extra: object = {}) => ({
    organization_id: w.organization.id,
    cluster_id: clusterId,
    name: 'MemoryHigh',
    description: 'the working set is over 50 MB',
    tag: 'memory',
    condition: { kind: 'CUSTOM', promql },
    for_duration: 'PT10S',
    severity: 'HIGH',
    presentation: { summary: null },
    enabled: true,
    alert_receiver_ids: receiverIds,
    target: { target_type: 'CONTAINER', target_id: service.id },
    ...extra,
  })

  it('creates a Slack-style and an e-mail receiver, secrets write-only, and each takes a real test notification', async () => {
    const slack = await api('POST', '/alert-receivers', w.tokens.write.authorization, {
      organization_id: w.organization.id,
      name: 'team-slack',
      description: 'the team channel',
      type: 'SLACK',
      send_resolved: true,
      webhook_url: hookUrl,
    })
    assert.equal(slack.status, 201, slack.text)
    assert.ok(!slack.text.includes(hookUrl), 'the webhook URL is never answered')
    const email = await api('POST', '/alert-receivers', w.tokens.write.authorization, {
      organization_id: w.organization.id,
      name: 'on-call mail',
      description: 'the on-call address',
      type: 'EMAIL',
      send_resolved: true,
      to: 'oncall@example.com',
      from: 'berth@example.com',
      smarthost: `127.0.0.1:${smtpPort}`,
      auth_password: '',
      require_tls: false,
    })
    assert.equal(email.status, 201, email.text)
    assert.equal(email.body.smarthost, `127.0.0.1:${smtpPort}`)
    receiverIds.push(slack.body.id, email.body.id)

    const slackTest = await api('POST', `/alert-receivers/${slack.body.id}/validate`, w.tokens.write.authorization, { message: 'hello slack' })
    assert.deepEqual(slackTest.body, { sent: true })
    assert.ok(hookBodies.some((b) => b.includes('hello slack')))
    const mailTest = await api('POST', `/alert-receivers/${email.body.id}/validate`, w.tokens.write.authorization, { message: 'hello mail' })
    assert.deepEqual(mailTest.body, { sent: true })
    await until('the test mail', async () => (smtpOutput.includes('hello mail') ? true : undefined), 10_000)
    const nowhere = await api('POST', '/alert-receivers/validate', w.tokens.write.authorization, {
      alert_receiver: {
        organization_id: w.organization.id,
        name: 'gone',
        description: '',
        type: 'SLACK',
        send_resolved: false,
        webhook_url: `http://127.0.0.1:${await freePort()}/hook`,
      },
    })
    assert.equal(nowhere.status, 200)
    assert.equal(nowhere.body.sent, false)
  })

  it("refuses broken PromQL with Prometheus' message", async () => {
    const res = await api('POST', '/alert-rules', w.tokens.write.authorization, ruleBody('container_memory_working_set_bytes{ > 3'))
    assert.equal(res.status, 400, res.text)
    assert.match(res.text, /parse error/)
  })

  it("lets no other organization aim a rule at the service, or use this organization's receivers", async () => {
    const otherClusters = await api('GET', `/organization/${other.organization.id}/cluster`, other.tokens.admin.authorization)
    const otherReceiver = await api('POST', '/alert-receivers', other.tokens.write.authorization, {
      organization_id: other.organization.id,
      name: 'theirs',
      description: '',
      type: 'SLACK',
      send_resolved: false,
      webhook_url: hookUrl,
    })
    assert.equal(otherReceiver.status, 201)
    const body = {
      ...ruleBody(`container_memory_working_set_bytes{service_id="${service.id}"} > 50e6`),
      organization_id: other.organization.id,
      cluster_id: otherClusters.body.results[0].id,
      alert_receiver_ids: [otherReceiver.body.id],
    }
    const aimed = await api('POST', '/alert-rules', other.tokens.write.authorization, body)
    assert.equal(aimed.status, 400, aimed.text)
    assert.match(aimed.text, /target/)
    const borrowed = await api('POST', '/alert-rules', other.tokens.write.authorization, {
      ...body,
      target: { target_type: ' CLUSTER', target_id: otherClusters.body.results[0].id },
      alert_receiver_ids: receiverIds,
    })
    assert.equal(borrowed.status, 400, borrowed.text)
    const foreign = await api('GET', `/alert-receivers/${receiverIds[0]}`, other.tokens.admin.authorization)
    assert.equal(foreign.status, 404)
  })

  it('fires on a container holding 80 MB, notifies both receivers with the service name, says NOTIFIED, and resolves when it stops', async () => {
    const created = await api(
      'POST',
      '/alert-rules',
      w.tokens.write.authorization,
      ruleBody(`container_memory_working_set_bytes{service_id="${service.id}"} > 50e6`),
    )
    assert.equal(created.status, 201, created.text)
    ruleId = created.body.id
    await until('the rule to run', async () => {
      const rule = await api('GET', `/alert-rules/${ruleId}`, w.tokens.read.authorization)
      return rule.body.is_up_to_date === true && rule.body.state === 'OK' ? true : undefined
    })

    const image = await busyboxImage()
    const container = await docker.createContainer({
      Image: image,
      Cmd: ['sh', '-c', 'x=$(/bin/busybox head -c 80000000 /dev/zero | /bin/busybox tr "\\0" a); while :; do sleep 60; done'],
      Labels: { 'berth.service-id': service.id, 'berth.environment-id': w.environment.id, 'berth.instance': '0' },
    })
    containerId = container.id
    await container.start()

    const slackMessage = await until('the Slack-style notification', async () =>
      hookBodies.find((b) => b.includes('FIRING') && b.includes('memory-hog')),
    )
    assert.match(slackMessage, /MemoryHigh/)
    await until('the e-mail notification', async () => (/FIRING[\s\S]*memory-hog/.test(smtpOutput) ? true : undefined))
    const notified = await until('NOTIFIED', async () => {
      const rule = await api('GET', `/alert-rules/${ruleId}`, w.tokens.read.authorization)
      return rule.body.state === 'NOTIFIED' ? rule.body : undefined
    })
    assert.equal(notified.is_up_to_date, true)
    assert.equal(notified.target.service.name, 'memory-hog')
    assert.ok(notified.starts_at)
    const listed = await api('GET', `/organization/${w.organization.id}/alert-rules`, w.tokens.read.authorization)
    assert.deepEqual(
      listed.body.results.map((r: Body) => [r.id, r.state]),
      [[ruleId, 'NOTIFIED']],
    )

    await container.stop({ t: 0 })
    await until('OK again', async () => {
      const rule = await api('GET', `/alert-rules/${ruleId}`, w.tokens.read.authorization)
      return rule.body.state === 'OK' ? true : undefined
    })
    await until('the resolved notification', async () => hookBodies.find((b) => b.includes('RESOLVED') && b.includes('memory-hog')))
  })

  it('keeps rules and receivers across restarts of Berth and of both engines, rebuilt from the database', async () => {
    await stopBerth()
    // The engines' files are gone: what they run must come back from the database.
    await rm(path.join(dataDir, 'monitoring', 'rules'), { recursive: true, force: true })
    await rm(path.join(dataDir, 'monitoring', 'alertmanager', 'alertmanager.yml'), { force: true })
    await startBerth()
    const receivers = await api('GET', `/organization/${w.organization.id}/alert-receivers`, w.tokens.read.authorization)
    assert.deepEqual(receivers.body.results.map((r: Body) => r.name).sort(), ['on-call mail', 'team-slack'])
    const rule = await until('the rule back in Prometheus', async () => {
      const answer = await api('GET', `/alert-rules/${ruleId}`, w.tokens.read.authorization)
      return answer.body.is_up_to_date === true ? answer.body : undefined
    })
    assert.equal(rule.state, 'OK')
    assert.deepEqual(rule.alert_receiver_ids, receiverIds)
    const test = await api('POST', `/alert-receivers/${receiverIds[0]}/validate`, w.tokens.write.authorization, { message: 'after restart' })
    assert.deepEqual(test.body, { sent: true })
  })
})
