import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  Configuration,
  type CronJobResponse,
  JobActionsApi,
  JobConfigurationApi,
  JobDeploymentHistoryApi,
  JobDeploymentRestrictionApi,
  JobMainCallsApi,
  type JobRequest,
  JobsApi,
  type LifecycleJobResponse,
} from 'qovery-typescript-axios'
import { rejectedStatus } from './helpers/assertions.ts'
import { createDeploymentsApp, type DeploymentsTestApp, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// Both job types through the official TypeScript client: create, read, list, edit, deploy, stop,
// force-run, status, history, delete.

let t: DeploymentsTestApp
let basePath: string

before(async () => {
  t = await createDeploymentsApp(20)
  basePath = await t.listen()
})
after(() => t?.close())

describe('jobs through the official client', () => {
  it('runs the lifecycle of a lifecycle job from an image of a registry', async () => {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const registry = await f.containerRegistry(organization.id)
    const configuration = new Configuration({ basePath, apiKey: tokens.admin.authorization })
    const jobs = new JobsApi(configuration)
    const main = new JobMainCallsApi(configuration)
    const actions = new JobActionsApi(configuration)
    const history = new JobDeploymentHistoryApi(configuration)

    const request: JobRequest = {
      name: 'seed',
      cpu: 500,
      memory: 512,
      max_nb_restart: 1,
      max_duration_seconds: 60,
      auto_preview: false,
      healthchecks: {},
      source: { image: { image_name: 'acme/seed', tag: '1.0', registry_id: registry.id } },
      schedule: { on_start: { arguments: ['seed'] }, on_stop: { arguments: ['dump'], entrypoint: '/bin/dump' } },
    }
    const created = (await jobs.createJob(environment.id, request)).data as LifecycleJobResponse
    assert.equal(created.job_type, 'LIFECYCLE')
    assert.equal(created.name, 'seed')
    assert.deepEqual(created.schedule.on_stop, { arguments: ['dump'], entrypoint: '/bin/dump' })
    assert.equal('image' in created.source ? created.source.image.registry.id : undefined, registry.id)
    assert.equal((await main.getJob(created.id)).data.id, created.id)
    assert.deepEqual(
      (await jobs.listJobs(environment.id)).data.results?.map((job) => job.id),
      [created.id],
    )

    const edited = (await main.editJob(created.id, { ...request, name: 'seed-v2', memory: 1024 })).data as LifecycleJobResponse
    assert.equal(edited.name, 'seed-v2')
    assert.equal(edited.memory, 1024)

    const deployed = (await actions.deployJob(created.id, undefined, { image_tag: '1.1' })).data
    assert.equal(deployed.state, 'DEPLOYMENT_QUEUED')
    await until(
      async () => (await main.getJobStatus(created.id)).data,
      (status) => status.state === 'DEPLOYED',
      { what: 'the job deployed' },
    )
    await actions.stopJob(created.id)
    await until(
      async () => (await main.getJobStatus(created.id)).data,
      (status) => status.state === 'STOPPED',
      { what: 'the job stopped' },
    )
    await actions.deployJob(created.id, 'STOP')
    await until(
      async () => (await history.listJobDeploymentHistoryV2(created.id)).data.results ?? [],
      (entries) => entries.length === 3 && entries.every((entry) => ['DEPLOYED', 'STOPPED'].includes(entry.status as string)),
      { what: 'three finished entries' },
    )
    const entries = (await history.listJobDeploymentHistoryV2(created.id)).data.results!
    assert.deepEqual(
      entries.map((entry) => entry.status),
      ['DEPLOYED', 'STOPPED', 'DEPLOYED'],
    )
    // biome-ignore lint/suspicious/noExplicitAny: details are a union without discriminator
    const details = entries.at(-1)!.details as any
    assert.equal(details.job_type, 'LIFECYCLE')
    assert.equal(details.tag, '1.1')
    assert.equal(details.build_pod_name, null)
    assert.equal(await rejectedStatus(actions.deployJob(created.id, 'CRON')), 400)

    // What the Terraform provider reads and writes on every apply.
    const settings = new JobConfigurationApi(configuration)
    assert.equal((await settings.getJobAdvancedSettings(created.id)).data['job.delete_ttl_seconds_after_finished'], null)
    const written = (await settings.editJobAdvancedSettings(created.id, { 'job.delete_ttl_seconds_after_finished': 120 })).data
    assert.equal(written['job.delete_ttl_seconds_after_finished'], 120)
    assert.equal((await settings.getJobAdvancedSettings(created.id)).data['job.delete_ttl_seconds_after_finished'], 120)
    assert.deepEqual((await new JobDeploymentRestrictionApi(configuration).getJobDeploymentRestrictions(created.id)).data.results, [])
    const readOnly = new JobConfigurationApi(new Configuration({ basePath, apiKey: tokens.read.authorization }))
    assert.equal(await rejectedStatus(readOnly.editJobAdvancedSettings(created.id, {})), 403)

    // A deployed job is deleted by a deployment (its on_delete runs), then it is gone.
    assert.equal((await main.deleteJob(created.id)).status, 204)
    await until(
      () =>
        main.getJob(created.id).then(
          (res) => res.status,
          (error) => error.response?.status,
        ),
      (status) => status === 404,
      { what: 'the job deleted' },
    )
  })

  it('runs the lifecycle of a cron job built from a Dockerfile in git', async () => {
    const f = factories(t.db)
    const { environment, tokens } = await f.environmentWithTokens()
    const configuration = new Configuration({ basePath, apiKey: tokens.admin.authorization })
    const jobs = new JobsApi(configuration)
    const main = new JobMainCallsApi(configuration)
    const actions = new JobActionsApi(configuration)
    const history = new JobDeploymentHistoryApi(configuration)

    const request: JobRequest = {
      name: 'nightly',
      healthchecks: {},
      auto_deploy: true,
      source: {
        docker: {
          git_repository: { url: 'https://github.com/acme/jobs.git', branch: 'main', root_path: '/', provider: 'GITHUB' },
          dockerfile_path: 'Dockerfile',
        },
      },
      schedule: { cronjob: { scheduled_at: '0 2 * * *', timezone: 'America/New_York', arguments: ['backup'] } },
    }
    const created = (await jobs.createJob(environment.id, request)).data as CronJobResponse
    assert.equal(created.job_type, 'CRON')
    assert.deepEqual(created.schedule.cronjob, { arguments: ['backup'], timezone: 'America/New_York', scheduled_at: '0 2 * * *' })
    assert.equal('docker' in created.source ? created.source.docker.git_repository?.name : undefined, 'jobs')
    assert.equal(created.auto_deploy, true)

    const queued = (await actions.deployJob(created.id, undefined, { git_commit_id: 'c0ffee' })).data
    await until(
      async () => (await main.getJobStatus(created.id)).data,
      (status) => status.state === 'DEPLOYED',
      { what: 'the cron job deployed' },
    )
    const [entry] = (await history.listJobDeploymentHistoryV2(created.id)).data.results!
    // biome-ignore lint/suspicious/noExplicitAny: details are a union without discriminator
    const details = entry!.details as any
    assert.equal(details.job_type, 'CRON')
    assert.equal(details.build_pod_name, `build-${queued.execution_id}-0`)
    assert.deepEqual(details.schedule.cron_job, { arguments: ['backup'], scheduled_at: '0 2 * * *', timezone: 'America/New_York' })

    // A force-run of the cron event runs it once now, besides its schedule.
    await actions.deployJob(created.id, 'CRON')
    await until(
      async () => (await history.listJobDeploymentHistoryV2(created.id)).data.results ?? [],
      (entries) => entries.length === 2 && entries[0]!.status === 'DEPLOYED',
      { what: 'the force-run finished' },
    )
    assert.equal(await rejectedStatus(actions.deployJob(created.id, 'START')), 400)
    const badSchedule = { ...request, schedule: { cronjob: { scheduled_at: '0 0 30 2 *' } } }
    assert.equal(await rejectedStatus(main.editJob(created.id, badSchedule)), 400)
    await main.deleteJob(created.id)
  })
})
