import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { LABELS, networkName } from '#src/modules/executors/docker/docker-objects.ts'
import { RUN_OUTPUT_LINES } from '#src/modules/executors/docker/job-runs.ts'
import { databaseVolume } from '#src/modules/services/kinds/database/database.workload.ts'
import { TEST_SECRET_KEY, testDatabaseUrl } from './helpers/app.ts'
import { type DeploymentCalls, type DeploymentsTestApp, until } from './helpers/deployments.ts'
import { buildScriptImage, docker, type LoopbackRegistry } from './helpers/docker.ts'
import {
  fetchText,
  readinessProbe,
  registryWorld,
  serviceInstances,
  startDockerSuite,
  stopDockerSuite,
  webContainerRequest,
} from './helpers/docker-world.ts'
import { factories } from './helpers/factories.ts'
import { runCli } from './helpers/process.ts'

// Issue 21: deployments that really run, in the Docker engine of this machine (`.ci/run` starts
// dockerd). Images are made here on Debian's busybox and served by Debian's docker-registry on
// loopback with credentials; the executor pulls them as a registry's services would.

const WEB_SCRIPT = `#!/bin/sh
mkdir -p /tmp/www
echo "$GREETING" > /tmp/www/index.html
if [ -f /config/extra.txt ]; then cat /config/extra.txt > /tmp/www/extra.txt; fi
echo "web starting: $GREETING"
echo "using key $API_KEY"
trap 'exit 0' TERM
if [ -n "$BREAK_HTTP" ]; then echo "not serving today"; sleep 3600 & wait; fi
httpd -f -p 8080 -h /tmp/www &
wait
`
const DATABASE_SCRIPT = `#!/bin/sh
mkdir -p /var/lib/postgresql/data /tmp/www
echo "$POSTGRES_USER:$POSTGRES_PASSWORD:$POSTGRES_DB" > /tmp/www/credentials
date >> /var/lib/postgresql/data/starts
cat /var/lib/postgresql/data/starts > /tmp/www/starts
trap 'exit 0' TERM
httpd -f -p 5432 -h /tmp/www &
wait
`

let t: DeploymentsTestApp
let calls: DeploymentCalls
let registry: LoopbackRegistry
const environments: string[] = []

before(async () => {
  ;({ registry, t, calls } = await startDockerSuite({ BERTH_DOCKER_DATABASE_IMAGES: 'berth-test/library' }, async (registry) => {
    await buildScriptImage('berth-test/web:build', 'serve.sh', WEB_SCRIPT)
    await registry.push('berth-test/web:build', 'web', '1')
    await buildScriptImage('berth-test/library/postgres:16', 'db.sh', DATABASE_SCRIPT)
  }))
})

after(() => stopDockerSuite({ t, registry }, environments))

const make = () => factories(t.db)

const world = () => registryWorld(t, calls, registry, environments)

async function variable(authorization: string, scope: string, parentId: string, key: string, value: string, extra: object = {}) {
  const res = await calls.inject('POST', '/variable', authorization, {
    key,
    value,
    is_secret: false,
    variable_scope: scope,
    variable_parent_id: parentId,
    ...extra,
  })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().id as string
}

const running = async (serviceId: string) => (await serviceInstances(serviceId)).filter((info) => info.State === 'running')

/** The address the engine published an instance's port 8080 on. */
const published = (info: { Ports: { PrivatePort: number; PublicPort?: number; IP?: string }[] }, port = 8080) => {
  const binding = info.Ports.find((candidate) => candidate.PrivatePort === port && candidate.PublicPort)
  return binding ? `http://127.0.0.1:${binding.PublicPort}` : undefined
}

async function logsOf(environmentId: string, executionId: string, authorization: string): Promise<string> {
  const res = await calls.inject('GET', `/environment/${environmentId}/logs?version=${executionId}`, authorization)
  assert.equal(res.statusCode, 200, res.body)
  return res.body
}

const webRequest = (registryId: string, extra: object = {}) =>
  webContainerRequest(registryId, { imageName: 'web', tag: '1' }, readinessProbe('http', 5), extra)

describe('the Docker executor', () => {
  it('runs a container of a registry image pulled with its credentials, with its variables, files, limits and published port; redeploys it with an instance answering throughout; a failed readiness keeps the previous version; stop and delete', async () => {
    const { environment, organization, tokens, registryId } = await world()
    const group = await calls.inject('POST', `/organization/${organization.id}/labelsGroups`, tokens.admin.authorization, {
      name: 'team',
      labels: [
        { key: 'team', value: 'payments', propagate_to_cloud_provider: false },
        { key: 'berth.service-id', value: 'not-this-one', propagate_to_cloud_provider: false },
      ],
    })
    assert.equal(group.statusCode, 201, group.body)
    const created = await calls.inject(
      'POST',
      `/environment/${environment.id}/container`,
      tokens.write.authorization,
      webRequest(registryId, { labels_groups: [{ id: group.json().id }] }),
    )
    assert.equal(created.statusCode, 201, created.body)
    const containerId = created.json().id as string
    const greeting = await variable(tokens.write.authorization, 'CONTAINER', containerId, 'GREETING', 'hello')
    await variable(tokens.write.authorization, 'CONTAINER', containerId, 'API_KEY', 's3cret-value', { is_secret: true })
    await variable(tokens.write.authorization, 'CONTAINER', containerId, 'EXTRA', 'from a file', { mount_path: '/config/extra.txt' })

    const first = await calls.trigger(`/container/${containerId}/deploy`, tokens.deploy.authorization)
    const [deployed] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(deployed!.status, 'DEPLOYED', JSON.stringify(deployed))
    const [instance] = await running(containerId)
    assert.ok(instance, 'a running instance')
    assert.equal(instance.Labels[LABELS.execution], first.execution_id)
    assert.equal(instance.Labels[LABELS.environment], environment.id)
    // Its labels groups' labels too, none replacing Berth's own.
    assert.equal(instance.Labels.team, 'payments')
    assert.equal(instance.Labels[LABELS.service], containerId)
    const url = published(instance)
    assert.ok(url, 'port 8080 published')
    assert.equal(await fetchText(`${url}/`), 'hello')
    assert.equal(await fetchText(`${url}/extra.txt`), 'from a file')
    const inspected = await docker.getContainer(instance.Id).inspect()
    assert.equal(inspected.HostConfig.Privileged, false)
    assert.equal(inspected.HostConfig.NanoCpus, 250_000_000)
    assert.equal(inspected.HostConfig.Memory, 64 * 1024 * 1024)
    assert.equal(inspected.HostConfig.NetworkMode, networkName(environment.id))
    assert.deepEqual(inspected.HostConfig.Binds ?? [], [])
    assert.ok(inspected.Config.Env.includes('API_KEY=s3cret-value'), 'the secret reaches the container')
    const firstLogs = await logsOf(environment.id, first.execution_id, tokens.read.authorization)
    assert.match(firstLogs, /pulling image 127\.0\.0\.1:\d+\/web:1/)
    assert.doesNotMatch(firstLogs, /s3cret-value/)
    // The instance's first lines, what it prints of its secret masked.
    assert.match(firstLogs, /instance 0: web starting: hello/)
    assert.match(firstLogs, /instance 0: using key \*\*\*/)
    assert.doesNotMatch(firstLogs, new RegExp(registry.password))

    // A redeploy with a new value: at every look, some instance answers.
    assert.equal(
      (await calls.inject('PUT', `/variable/${greeting}`, tokens.write.authorization, { key: 'GREETING', value: 'hello again' })).statusCode,
      200,
    )
    await calls.trigger(`/container/${containerId}/redeploy`, tokens.deploy.authorization)
    let looks = 0
    const deadline = Date.now() + 60_000
    for (;;) {
      assert.ok(Date.now() < deadline, 'the redeploy did not end within 60 s')
      const entries = (await calls.environmentHistory(environment.id, tokens.read.authorization)).results
      const answers = await Promise.all((await running(containerId)).map((info) => fetchText(`${published(info)}/`)))
      assert.ok(
        answers.some((answer) => answer !== undefined),
        `no instance answered during the redeploy (look ${looks})`,
      )
      looks++
      if (entries.every((entry) => ['SUCCESS', 'ERROR', 'CANCELED'].includes(entry.action_status))) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    // The previous instance stops in the background once its replacement serves (issue 33).
    const after = await until(
      () => running(containerId),
      (list) => list.length === 1,
      { what: 'the previous instance stopped', timeoutMs: 20_000, intervalMs: 100 },
    )
    assert.notEqual(after[0]!.Id, instance.Id)
    assert.equal(await fetchText(`${published(after[0]!)}/`), 'hello again')

    // A version that never gets ready fails, with its last lines, and leaves the previous one running.
    await variable(tokens.write.authorization, 'CONTAINER', containerId, 'BREAK_HTTP', '1')
    await calls.trigger(`/container/${containerId}/redeploy`, tokens.deploy.authorization)
    const [broken] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(broken!.status, 'RESTART_ERROR')
    const message = broken!.stages.flatMap((stage) => stage.services)[0]!.message ?? ''
    assert.match(message, /is not ready: its readiness probe failed/)
    assert.match(message, /not serving today/)
    assert.match(message, /using key \*\*\*/)
    assert.doesNotMatch(message, /s3cret-value/)
    const kept = await running(containerId)
    assert.deepEqual(
      kept.map((info) => info.Id),
      [after[0]!.Id],
    )
    assert.equal(await fetchText(`${published(kept[0]!)}/`), 'hello again')

    // Stop keeps the instance, stopped; deleting the service removes it.
    await calls.trigger(`/container/${containerId}/stop`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.deepEqual(await running(containerId), [])
    assert.equal((await calls.inject('DELETE', `/container/${containerId}`, tokens.write.authorization)).statusCode, 204)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.deepEqual(await docker.listContainers({ all: true, filters: { label: [`${LABELS.service}=${containerId}`] } }), [])
  })

  it('runs a job to completion: exit 0 succeeds, another code fails after max_nb_restart more tries, max_duration_seconds kills', async () => {
    const { environment, tokens, registryId } = await world()
    const job = async (name: string, script: string, extra: object = {}) => {
      const res = await calls.inject('POST', `/environment/${environment.id}/job`, tokens.write.authorization, {
        name,
        cpu: 250,
        memory: 64,
        max_nb_restart: 0,
        max_duration_seconds: 60,
        source: { image: { image_name: 'web', tag: '1', registry_id: registryId } },
        schedule: { on_start: { entrypoint: '/bin/sh', arguments: ['-c', script] } },
        healthchecks: {},
        ...extra,
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().id as string
    }
    const outcome = async (jobId: string) => {
      const queued = await calls.trigger(`/job/${jobId}/deploy`, tokens.deploy.authorization)
      const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
      return { entry: entry!, logs: await logsOf(environment.id, queued.execution_id, tokens.read.authorization) }
    }

    await variable(tokens.write.authorization, 'ENVIRONMENT', environment.id, 'JOB_TOKEN', 'job-s3cret', { is_secret: true })
    const ok = await outcome(await job('migrate', 'echo "migrated with $JOB_TOKEN"; exit 0'))
    assert.equal(ok.entry.status, 'DEPLOYED')
    assert.match(ok.logs, /migrated with \*\*\*/)
    assert.doesNotMatch(ok.logs, /job-s3cret/)

    // A run's output reaches the logs while it runs.
    const liveJob = await job('live', 'echo halfway there; sleep 6; echo finished')
    const live = await calls.trigger(`/job/${liveJob}/deploy`, tokens.deploy.authorization)
    await until(
      () => logsOf(environment.id, live.execution_id, tokens.read.authorization),
      (logs) => /halfway there/.test(logs),
      { what: "the run's first line in the logs", timeoutMs: 20_000 },
    )
    const during = await logsOf(environment.id, live.execution_id, tokens.read.authorization)
    assert.doesNotMatch(during, /finished/, 'the line came before the run ended')
    const [liveEntry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(liveEntry!.status, 'DEPLOYED')
    assert.match(await logsOf(environment.id, live.execution_id, tokens.read.authorization), /finished/)

    // Past RUN_OUTPUT_LINES lines, the rest is dropped but for the run's last lines.
    const chatty = await outcome(await job('chatty', `i=1; while [ $i -le ${RUN_OUTPUT_LINES + 100} ]; do echo "line-$i"; i=$((i+1)); done`))
    assert.equal(chatty.entry.status, 'DEPLOYED')
    assert.match(chatty.logs, new RegExp(`line-${RUN_OUTPUT_LINES}\\b`))
    assert.match(chatty.logs, new RegExp(`printed more than ${RUN_OUTPUT_LINES} lines`))
    assert.doesNotMatch(chatty.logs, new RegExp(`line-${RUN_OUTPUT_LINES + 20}\\b`))
    assert.match(chatty.logs, new RegExp(`line-${RUN_OUTPUT_LINES + 100}\\b`))

    const failing = await job('flaky', 'echo trying; exit 3', { max_nb_restart: 1 })
    const failed = await outcome(failing)
    assert.equal(failed.entry.status, 'DEPLOYMENT_ERROR')
    assert.match(failed.entry.stages.flatMap((stage) => stage.services)[0]!.message ?? '', /run 2 exited with code 3/)
    assert.match(failed.logs, /run 1 exited with code 3/)

    const slowJob = await job('slow', 'sleep 30', { max_duration_seconds: 1 })
    const slow = await outcome(slowJob)
    assert.equal(slow.entry.status, 'DEPLOYMENT_ERROR')
    assert.match(slow.entry.stages.flatMap((stage) => stage.services)[0]!.message ?? '', /killed after max_duration_seconds \(1 s\)/)
    // A successful run's container is removed once it ended; failed runs' stay, stopped, for inspection (cleanFailedJob).
    const left = await docker.listContainers({ all: true, filters: { label: [`${LABELS.environment}=${environment.id}`] } })
    assert.deepEqual(
      left.map((info) => [info.Labels[LABELS.service] === failing || info.Labels[LABELS.service] === slowJob, info.State === 'running']).sort(),
      [
        [true, false],
        [true, false],
        [true, false],
      ],
    )
  })

  it('runs a container database with its master credentials and a volume kept on stop and removed on delete; a helm service fails saying why', async () => {
    const { environment, tokens } = await world()
    const database = await make().database(environment.id, {
      name: 'main',
      type: 'POSTGRESQL',
      version: '16',
      mode: 'CONTAINER',
      accessibility: 'PUBLIC',
    })
    await calls.trigger(`/database/${database.id}/deploy`, tokens.deploy.authorization)
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYED', JSON.stringify(entry))
    const [instance] = await running(database.id)
    assert.ok(instance)
    const credentials = (await calls.inject('GET', `/database/${database.id}/masterCredentials`, tokens.write.authorization)).json()
    const url = published(instance, 5432)
    assert.equal(await fetchText(`${url}/credentials`), `${credentials.login}:${credentials.password}:postgres`)
    const inspected = await docker.getContainer(instance.Id).inspect()
    assert.ok(Object.values(inspected.NetworkSettings.Networks)[0]!.Aliases?.includes(credentials.host), 'reachable by its host name')
    assert.equal((await docker.getVolume(databaseVolume(database.id)).inspect()).Name, databaseVolume(database.id))

    await calls.trigger(`/database/${database.id}/stop`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.deepEqual(await running(database.id), [])
    await calls.trigger(`/database/${database.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const [again] = await running(database.id)
    // Its storage outlived the stop: two starts are written in it.
    assert.equal((await fetchText(`${published(again!, 5432)}/starts`))?.split('\n').length, 2)

    assert.equal((await calls.inject('DELETE', `/database/${database.id}`, tokens.write.authorization)).statusCode, 204)
    const [deleted] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(deleted!.status, 'DELETED', JSON.stringify(deleted))
    await assert.rejects(docker.getVolume(databaseVolume(database.id)).inspect(), (error: { statusCode?: number }) => error.statusCode === 404)

    const helm = await make().helmService(environment.id)
    await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization)
    const [helmEntry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(helmEntry!.status, 'DEPLOYMENT_ERROR')
    assert.match(helmEntry!.stages.flatMap((stage) => stage.services)[0]!.message ?? '', /needs a Kubernetes cluster/)
  })

  it('keeps berth worker from starting when the Docker engine it was told to use does not answer', async () => {
    // The run's database, with the key every test process seals with: a worker records its key there.
    const env = { BERTH_EXECUTOR: 'docker', DOCKER_HOST: 'tcp://127.0.0.1:9', DATABASE_URL: testDatabaseUrl(), BERTH_SECRET_KEY: TEST_SECRET_KEY }
    const result = await runCli(['worker'], env, { timeoutMs: 60_000 })
    assert.notEqual(result.code, 0)
    assert.match(result.stderr + result.stdout, /BERTH_EXECUTOR=docker, but the Docker engine at tcp:\/\/127\.0\.0\.1:9 does not answer/)
  })
})
