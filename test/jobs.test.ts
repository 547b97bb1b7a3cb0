import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { SIMULATE_FAILURE_ARGUMENT } from '#src/modules/services/kinds/job/job-deployments.ts'
import { assertValidationError, UUID } from './helpers/assertions.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls, type ServiceEntry } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// Jobs over HTTP: the rules of a request (every broken one in one 400), reads and edits, what
// deploying, stopping and force-running a job does, its history details, and a failing lifecycle
// job failing its environment's deployment.

let t: DeploymentsTestApp
let make: ReturnType<typeof factories>
let calls: DeploymentCalls

before(async () => {
  t = await createDeploymentsApp(40)
  make = factories(t.db)
  calls = deploymentCalls(t.app)
})

after(() => t?.close())

const jobHistory = async (jobId: string, authorization: string): Promise<ServiceEntry[]> => {
  const res = await calls.inject('GET', `/job/${jobId}/deploymentHistoryV2?pageSize=100`, authorization)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().results
}

describe('job requests', () => {
  it('creates, reads, lists, edits with If-Match and deletes a lifecycle job', async () => {
    const { organization, environment, tokens } = await make.environmentWithTokens()
    const registry = await make.containerRegistry(organization.id)
    const body = {
      name: 'migrate',
      cpu: 250,
      memory: 256,
      max_nb_restart: 2,
      max_duration_seconds: 120,
      healthchecks: {},
      source: { image: { image_name: 'acme/migrate', tag: 'v1', registry_id: registry.id } },
      schedule: { on_start: { arguments: ['migrate', 'up'], entrypoint: '/bin/tool' }, on_delete: { arguments: ['migrate', 'down'] } },
      auto_deploy: false,
    }
    const created = await calls.inject('POST', `/environment/${environment.id}/job`, tokens.write.authorization, body)
    assert.equal(created.statusCode, 201, created.body)
    const job = created.json()
    assert.match(job.id, UUID)
    assert.equal(job.service_type, 'JOB')
    assert.equal(job.job_type, 'LIFECYCLE')
    assert.deepEqual(job.schedule, {
      on_start: { arguments: ['migrate', 'up'], entrypoint: '/bin/tool' },
      on_delete: { arguments: ['migrate', 'down'] },
    })
    assert.deepEqual(job.source, {
      image: {
        image_name: 'acme/migrate',
        tag: 'v1',
        registry_id: registry.id,
        registry: { id: registry.id, name: registry.name, url: registry.url, kind: registry.kind },
      },
    })
    assert.equal(job.cpu, 250)
    assert.equal(job.max_nb_restart, 2)
    assert.equal(job.max_duration_seconds, 120)
    assert.equal(job.auto_preview, false)
    const etag = created.headers.etag as string

    const read = await calls.inject('GET', `/job/${job.id}`, tokens.read.authorization)
    assert.equal(read.statusCode, 200)
    assert.deepEqual(read.json(), job)
    const listed = await calls.inject('GET', `/environment/${environment.id}/job`, tokens.read.authorization)
    assert.deepEqual(
      listed.json().results.map((row: { id: string }) => row.id),
      [job.id],
    )
    const everyService = await calls.inject('GET', `/environment/${environment.id}/services`, tokens.read.authorization)
    assert.deepEqual(
      everyService.json().results.map((row: { id: string; service_type: string }) => [row.id, row.service_type]),
      [[job.id, 'JOB']],
    )

    const cron = { ...body, schedule: { cronjob: { scheduled_at: '*/5 * * * *', timezone: 'Europe/Paris', arguments: ['report'] } } }
    const edited = await calls.inject('PUT', `/job/${job.id}`, tokens.write.authorization, cron, { 'if-match': etag })
    assert.equal(edited.statusCode, 200, edited.body)
    assert.equal(edited.json().job_type, 'CRON')
    assert.deepEqual(edited.json().schedule, { cronjob: { arguments: ['report'], timezone: 'Europe/Paris', scheduled_at: '*/5 * * * *' } })
    const stale = await calls.inject('PUT', `/job/${job.id}`, tokens.write.authorization, cron, { 'if-match': etag })
    assert.equal(stale.statusCode, 412, stale.body)

    assert.equal((await calls.inject('PUT', `/job/${job.id}`, tokens.read.authorization, cron)).statusCode, 403)
    const deleted = await t.app.inject({ method: 'DELETE', url: `/job/${job.id}`, headers: { authorization: tokens.write.authorization } })
    assert.equal(deleted.statusCode, 204)
    assert.equal((await calls.inject('GET', `/job/${job.id}`, tokens.read.authorization)).statusCode, 404)
  })

  it('answers one 400 naming every broken rule: unknown registry, a cron that never fires, a timezone that does not exist, two sources', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const errorsOf = async (body: object) =>
      assertValidationError(await calls.inject('POST', `/environment/${environment.id}/job`, tokens.write.authorization, body))
        .map((error) => error.path)
        .sort()

    assert.deepEqual(
      await errorsOf({
        name: 'nightly',
        healthchecks: {},
        source: { image: { image_name: 'busybox', tag: '1', registry_id: randomUUID() } },
        schedule: { cronjob: { scheduled_at: '0 0 31 2 *', timezone: 'Mars/Olympus_Mons' } },
      }),
      ['/schedule/cronjob/scheduled_at', '/schedule/cronjob/timezone', '/source/image/registry_id'],
    )
    assert.deepEqual(
      await errorsOf({
        name: 'both',
        healthchecks: {},
        source: {
          image: { image_name: 'busybox', tag: '1', registry_id: randomUUID() },
          docker: { git_repository: { url: 'https://github.com/acme/jobs' } },
        },
        schedule: { cronjob: { scheduled_at: '* * *' }, on_start: {} },
      }),
      ['/schedule', '/source', '/source/image/registry_id'],
    )
    assert.deepEqual(await errorsOf({ name: 'nothing', healthchecks: {}, source: { image: null, docker: null }, schedule: {} }), [
      '/schedule',
      '/source',
    ])
    assert.deepEqual(
      await errorsOf({
        name: 'bad cron',
        healthchecks: {},
        source: { docker: { git_repository: { url: 'https://github.com/acme/jobs' }, dockerfile_path: '../Dockerfile' } },
        schedule: { cronjob: { scheduled_at: '61 * * * *' } },
      }),
      ['/schedule/cronjob/scheduled_at', '/source/docker/dockerfile_path'],
    )
  })

  it('refuses a force-run of an event the job does not have, with a pointer to the query', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const job = await make.job(environment.id)
    const errors = assertValidationError(await calls.inject('POST', `/job/${job.id}/deploy?forceEvent=CRON`, tokens.deploy.authorization, {}))
    assert.deepEqual(
      errors.map((error) => [error.location, error.path]),
      [['query', '/forceEvent']],
    )
    const tagOnGit = await make.job(environment.id, {
      source: { docker: { git_repository: { url: 'https://github.com/acme/jobs', branch: 'main' }, dockerfile_path: 'Dockerfile' } },
    })
    const refused = assertValidationError(await calls.inject('POST', `/job/${tagOnGit.id}/deploy`, tokens.deploy.authorization, { image_tag: 'v2' }))
    assert.deepEqual(
      refused.map((error) => error.path),
      ['/image_tag'],
    )
  })
})

describe('job deployments', () => {
  it('runs a lifecycle job on deploy, stop and force-run, with the job details in its history', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const job = await make.job(environment.id, {
      schedule: { on_start: { arguments: ['seed'] }, on_stop: { arguments: ['drain'], entrypoint: '/bin/sh' }, lifecycle_type: 'TERRAFORM' },
    })
    const deploy = await calls.trigger(`/job/${job.id}/deploy`, tokens.deploy.authorization, { image_tag: 'v2' })
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const stop = await calls.trigger(`/job/${job.id}/stop`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const forced = await calls.trigger(`/job/${job.id}/deploy?forceEvent=STOP`, tokens.deploy.authorization, {})
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)

    const history = await jobHistory(job.id, tokens.read.authorization)
    assert.deepEqual(
      history.map((entry) => [entry.identifier.execution_id, entry.status, entry.auditing_data.origin]),
      [
        [forced.execution_id, 'DEPLOYED', 'API'],
        [stop.execution_id, 'STOPPED', 'API'],
        [deploy.execution_id, 'DEPLOYED', 'API'],
      ],
    )
    assert.deepEqual(history.at(-1)!.details, {
      image_name: 'busybox',
      tag: 'v2',
      schedule: { on_start: { arguments: ['seed'] }, on_stop: { arguments: ['drain'], entrypoint: '/bin/sh' }, lifecycle_type: 'IAC' },
      job_type: 'LIFECYCLE',
      build_pod_name: null,
    })
    const status = await calls.inject('GET', `/job/${job.id}/status`, tokens.read.authorization)
    assert.equal(status.json().state, 'DEPLOYED')

    const logs = await calls.inject(
      'GET',
      `/environment/${environment.id}/deploymentLogs?executionId=${forced.execution_id}`,
      tokens.read.authorization,
    )
    if (logs.statusCode === 200) assert.match(logs.body, /running the on_stop event/)
  })

  it('names the build pod of a job built from git in its history details', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const job = await make.job(environment.id, {
      source: { docker: { git_repository: { url: 'https://github.com/acme/jobs', branch: 'main' }, dockerfile_path: 'docker/Dockerfile' } },
      schedule: { cronjob: { scheduled_at: '0 3 * * *', timezone: 'Europe/Paris', arguments: ['backup'] } },
    })
    const queued = await calls.trigger(`/job/${job.id}/deploy`, tokens.deploy.authorization, { git_commit_id: 'abc123' })
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const [entry] = await jobHistory(job.id, tokens.read.authorization)
    assert.equal(entry!.status, 'DEPLOYED')
    assert.deepEqual(entry!.details, {
      image_name: 'acme/jobs',
      tag: 'abc123',
      schedule: { cron_job: { arguments: ['backup'], scheduled_at: '0 3 * * *', timezone: 'Europe/Paris' } },
      job_type: 'CRON',
      build_pod_name: `build-${queued.execution_id}-0`,
    })
  })

  it('fails the environment deployment in the job stage when a lifecycle job fails, and skips the later stages', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const job = await make.job(environment.id, { schedule: { on_start: { arguments: ['migrate', SIMULATE_FAILURE_ARGUMENT] } } })
    const helm = await make.helmService(environment.id)
    const queued = await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    const [entry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(entry!.identifier.execution_id, queued.execution_id)
    assert.equal(entry!.status, 'DEPLOYMENT_ERROR')
    assert.equal(entry!.action_status, 'ERROR')
    assert.deepEqual(
      entry!.stages.map((stage) => [stage.name, stage.status, stage.services.map((service) => [service.identifier.service_id, service.status])]),
      [
        ['JOB DEFAULT', 'ERROR', [[job.id, 'DEPLOYMENT_ERROR']]],
        ['HELM DEFAULT', 'SKIPPED', [[helm.id, 'READY']]],
      ],
    )
    assert.match(entry!.stages[0]!.services[0]!.message ?? '', /on_start event of the job failed/)

    // Its on_stop is what runs when the environment stops: without one, the job stops with nothing to run.
    const stopped = await calls.trigger(`/environment/${environment.id}/stop`, tokens.deploy.authorization)
    assert.ok(stopped)
    const [stopEntry] = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal(stopEntry!.trigger_action, 'STOP')
    assert.equal(stopEntry!.status, 'STOPPED')
  })
})

describe('environment deletion', () => {
  const environmentAnswer = async (environmentId: string, authorization: string) =>
    (await calls.inject('GET', `/environment/${environmentId}`, authorization)).statusCode

  it("runs each lifecycle job's on_delete: a failing one fails the deletion and keeps the environment with that job", async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const job = await make.job(environment.id, {
      schedule: { on_start: { arguments: ['seed'] }, on_delete: { arguments: ['drop', SIMULATE_FAILURE_ARGUMENT] } },
    })
    const helm = await make.helmService(environment.id)
    // The deletion queues behind a deployment under way, and is under way while the next requests come.
    const deployed = await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    assert.equal((await calls.inject('DELETE', `/environment/${environment.id}`, tokens.write.authorization)).statusCode, 204)
    assert.equal(await environmentAnswer(environment.id, tokens.read.authorization), 200)
    // Another delete meanwhile queues nothing more; a deployment behind the deletion is refused.
    assert.equal((await calls.inject('DELETE', `/environment/${environment.id}`, tokens.write.authorization)).statusCode, 204)
    const refused = await calls.inject('POST', `/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().message, /being deleted/)

    const entries = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.deepEqual(
      entries.map((entry) => [entry.trigger_action, entry.status]),
      [
        ['DELETE', 'DELETE_ERROR'],
        ['DEPLOY', 'DEPLOYED'],
      ],
    )
    assert.notEqual(entries[0]!.identifier.execution_id, deployed.execution_id)
    const jobPart = entries[0]!.stages.flatMap((stage) => stage.services).find((service) => service.identifier.service_id === job.id)
    assert.equal(jobPart?.status, 'DELETE_ERROR')
    assert.match(jobPart?.message ?? '', /on_delete event of the job failed/)
    // What went is gone; the environment stays with the job whose deletion failed.
    assert.equal(await environmentAnswer(environment.id, tokens.read.authorization), 200)
    assert.equal((await calls.inject('GET', `/helm/${helm.id}`, tokens.read.authorization)).statusCode, 404)
    assert.equal((await calls.inject('GET', `/job/${job.id}`, tokens.read.authorization)).statusCode, 200)
  })

  it("goes once its services went, each lifecycle job's on_delete run; one without services goes at once", async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const job = await make.job(environment.id, { schedule: { on_start: { arguments: ['seed'] }, on_delete: { arguments: ['drop'] } } })
    const helm = await make.helmService(environment.id)
    await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.equal((await calls.inject('DELETE', `/environment/${environment.id}`, tokens.write.authorization)).statusCode, 204)
    const logs: string[] = []
    for (let waited = 0; (await environmentAnswer(environment.id, tokens.read.authorization)) === 200; waited += 20) {
      assert.ok(waited < 30_000, 'the environment is still there after 30 s')
      const entries = await calls.inject('GET', `/environment/${environment.id}/deploymentHistoryV2`, tokens.read.authorization)
      if (entries.statusCode === 200)
        logs.push(...entries.json().results.map((entry: { trigger_action: string; status: string }) => `${entry.trigger_action} ${entry.status}`))
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    assert.equal(await environmentAnswer(environment.id, tokens.read.authorization), 404)
    assert.ok(
      logs.some((line) => /^DELETE (DELETE_QUEUED|DELETING)$/.test(line)),
      `the deletion was seen under way: ${logs.join(', ')}`,
    )
    for (const path of [`/job/${job.id}`, `/helm/${helm.id}`]) {
      assert.equal((await calls.inject('GET', path, tokens.read.authorization)).statusCode, 404, path)
    }

    const empty = await make.environment(environment.projectId)
    assert.equal((await calls.inject('DELETE', `/environment/${empty.id}`, tokens.write.authorization)).statusCode, 204)
    assert.equal(await environmentAnswer(empty.id, tokens.read.authorization), 404)
  })
})
