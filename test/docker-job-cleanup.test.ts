import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { LABELS } from '#src/modules/executors/docker/docker-objects.ts'
import { type DeploymentCalls, type DeploymentsTestApp, isFinished, until } from './helpers/deployments.ts'
import { buildScriptImage, docker, type LoopbackRegistry } from './helpers/docker.ts'
import { registryWorld, startDockerSuite, stopDockerSuite } from './helpers/docker-world.ts'

// cleanFailedJob and cleanFailedJobs on the real Docker engine: a job's failed runs stay as
// stopped containers for inspection, and cleaning removes them (docs/jobs.md, "Failed runs").

let t: DeploymentsTestApp
let calls: DeploymentCalls
let registry: LoopbackRegistry
const environments: string[] = []

before(async () => {
  ;({ registry, t, calls } = await startDockerSuite({}, async (registry) => {
    await buildScriptImage('berth-test/runner:build', 'run.sh', '#!/bin/sh\necho run\n')
    await registry.push('berth-test/runner:build', 'runner', '1')
  }))
})

after(() => stopDockerSuite({ t, registry }, environments))

const runs = (serviceId: string) => docker.listContainers({ all: true, filters: { label: [`${LABELS.service}=${serviceId}`] } })

describe("a job's failed runs on Docker", () => {
  it('are kept stopped after the run, and cleaning the job or the environment removes them', async () => {
    const { environment, tokens, registryId } = await registryWorld(t, calls, registry, environments)
    const job = async (name: string, script: string, retries = 0) => {
      const res = await calls.inject('POST', `/environment/${environment.id}/job`, tokens.write.authorization, {
        name,
        cpu: 250,
        memory: 64,
        max_nb_restart: retries,
        max_duration_seconds: 60,
        source: { image: { image_name: 'runner', tag: '1', registry_id: registryId } },
        schedule: { on_start: { entrypoint: '/bin/sh', arguments: ['-c', script] } },
        healthchecks: {},
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().id as string
    }
    const deploy = async (jobId: string) => {
      await calls.trigger(`/job/${jobId}/deploy`, tokens.deploy.authorization)
      const [entry] = await until(
        () => calls.entries(environment.id, tokens.read.authorization),
        (list) => list.every(isFinished),
        {
          what: 'the deployment finished',
          timeoutMs: 90_000,
        },
      )
      return entry!
    }

    const ok = await job('fine', 'exit 0')
    const flaky = await job('flaky', 'echo broken; exit 3', 1)
    const broken = await job('broken', 'exit 4')
    assert.equal((await deploy(ok)).status, 'DEPLOYED')
    assert.equal((await deploy(flaky)).status, 'DEPLOYMENT_ERROR')
    assert.equal((await deploy(broken)).status, 'DEPLOYMENT_ERROR')

    // A successful run leaves nothing; each failed run (both tries of `flaky`) is there, exited, with its logs.
    assert.deepEqual(await runs(ok), [])
    const left = await runs(flaky)
    assert.deepEqual(left.map((info) => [info.Labels[LABELS.instance], info.State]).sort(), [
      ['run-1', 'exited'],
      ['run-2', 'exited'],
    ])
    const logs = (await docker.getContainer(left[0]!.Id).logs({ stdout: true, stderr: true })).toString('utf8')
    assert.match(logs, /broken/)

    // DEPLOY may clean; READ may not.
    const refused = await calls.inject('POST', `/job/${flaky}/cleanFailedJob`, tokens.read.authorization)
    assert.equal(refused.statusCode, 403, refused.body)
    const cleaned = await calls.inject('POST', `/job/${flaky}/cleanFailedJob`, tokens.deploy.authorization)
    assert.equal(cleaned.statusCode, 200, cleaned.body)
    assert.deepEqual([...cleaned.json().clean_kubernetes_jobs].sort(), left.map((info) => info.Names[0]!.replace(/^\//, '')).sort())
    assert.deepEqual(await runs(flaky), [])
    assert.equal((await runs(broken)).length, 1, "another job's failed run is not touched")
    // Nothing left: nothing cleaned.
    assert.deepEqual((await calls.inject('POST', `/job/${flaky}/cleanFailedJob`, tokens.deploy.authorization)).json(), { clean_kubernetes_jobs: [] })

    // The environment's clean: every job, or those named.
    const named = await calls.inject('POST', `/environment/${environment.id}/cleanFailedJobs`, tokens.deploy.authorization, { job_ids: [ok] })
    assert.deepEqual(named.json(), { clean_job_ids: [], clean_kubernetes_jobs: [] })
    assert.equal((await runs(broken)).length, 1)
    const all = await calls.inject('POST', `/environment/${environment.id}/cleanFailedJobs`, tokens.deploy.authorization, {})
    assert.equal(all.statusCode, 200, all.body)
    assert.deepEqual(all.json().clean_job_ids, [broken])
    assert.equal(all.json().clean_kubernetes_jobs.length, 1)
    assert.deepEqual(await runs(broken), [])
    const stranger = await calls.inject('POST', `/environment/${environment.id}/cleanFailedJobs`, tokens.deploy.authorization, {
      job_ids: [environment.id],
    })
    assert.equal(stranger.statusCode, 400, stranger.body)
  })
})
