import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type DeploymentCalls, type DeploymentsTestApp, until } from './helpers/deployments.ts'
import { buildScriptImage, docker, type LoopbackRegistry } from './helpers/docker.ts'
import { createContainer, registryWorld, serviceInstances, startDockerSuite, stopDockerSuite } from './helpers/docker-world.ts'
import { factories } from './helpers/factories.ts'

// Issue 35, "Dry runs": `dry_run=true` on a deploy pulls what a deploy would and says what would
// change, in the real Docker engine, and changes nothing running nor any status.

const serveScript = (version: string) => `#!/bin/sh
mkdir -p /tmp/www
echo "${version}" > /tmp/www/index.html
trap 'exit 0' TERM
httpd -f -p 8080 -h /tmp/www &
wait
`

let t: DeploymentsTestApp
let calls: DeploymentCalls
let registry: LoopbackRegistry
const environments: string[] = []

before(async () => {
  ;({ registry, t, calls } = await startDockerSuite({ BERTH_DOCKER_DATABASE_IMAGES: 'berth-test/dry-run-library' }, async (registry) => {
    for (const version of ['v1', 'v2']) {
      const local = `berth-test/dry-run-web:${version}`
      await buildScriptImage(local, 'serve.sh', serveScript(version))
      await registry.push(local, 'dry-run-web', version.slice(1))
    }
    // A stand-in for the official postgres image: it serves on the engine's port until stopped.
    await buildScriptImage('berth-test/dry-run-library/postgres:16', 'db.sh', serveScript('db').replace('-p 8080', '-p 5432'))
  }))
})

after(() => stopDockerSuite({ t, registry }, environments))

const containerRequest = (registryId: string, tag: string) => ({
  name: 'web',
  registry_id: registryId,
  image_name: 'dry-run-web',
  tag,
  arguments: [],
  cpu: 250,
  memory: 64,
  min_running_instances: 1,
  max_running_instances: 1,
  ports: [{ name: 'http', internal_port: 8080, external_port: 443, publicly_accessible: false, protocol: 'HTTP' }],
  healthchecks: {},
})

/** The service's one running instance: its container id and image. */
async function runningAlone(serviceId: string): Promise<{ id: string; image: string }> {
  const [instance] = await until(
    async () => (await serviceInstances(serviceId)).filter((info) => info.State === 'running'),
    (list) => list.length === 1,
    { what: 'one instance running', timeoutMs: 30_000, intervalMs: 100 },
  )
  return { id: instance!.Id, image: instance!.Image }
}

async function deployedContainer() {
  const w = await registryWorld(t, calls, registry, environments)
  const containerId = await createContainer(calls, w, containerRequest(w.registryId, '1'))
  const deployed = await calls.trigger(`/container/${containerId}/deploy`, w.tokens.deploy.authorization)
  await calls.waitUntilIdle(w.environment.id, w.tokens.read.authorization)
  return { ...w, containerId, deployed }
}

const statusOf = async (containerId: string, authorization: string) => {
  const res = await calls.inject('GET', `/container/${containerId}/status`, authorization)
  assert.equal(res.statusCode, 200, res.body)
  const { id, state, service_deployment_status, last_deployment_date, execution_id, status_details } = res.json()
  return { id, state, service_deployment_status, last_deployment_date, execution_id, status_details }
}

const environmentStatusOf = async (environmentId: string, authorization: string) => {
  const { state, last_deployment_id, last_deployment_state, deployment_status } = await calls.environmentStatus(environmentId, authorization)
  return { state, last_deployment_id, last_deployment_state, deployment_status }
}

async function logsOf(environmentId: string, executionId: string, authorization: string): Promise<string> {
  const res = await calls.inject('GET', `/environment/${environmentId}/logs?version=${executionId}`, authorization)
  assert.equal(res.statusCode, 200, res.body)
  return res.body
}

/** The entry of `executionId` in the environment's history, and its one service's. */
async function entryOf(environmentId: string, executionId: string, authorization: string) {
  const entry = (await calls.entries(environmentId, authorization)).find((candidate) => candidate.identifier.execution_id === executionId)
  assert.ok(entry, `an entry for ${executionId}`)
  return { entry, service: entry.stages.flatMap((stage) => stage.services)[0]! }
}

describe('dry runs', () => {
  it('of a container with a new tag pulls it, says what would change, leaves the old container running and every status as it was', async () => {
    const { environment, tokens, containerId, deployed } = await deployedContainer()
    const before = await runningAlone(containerId)
    assert.match(before.image, /dry-run-web:1$/)
    const statusBefore = await statusOf(containerId, tokens.read.authorization)
    assert.equal(statusBefore.state, 'DEPLOYED')
    assert.equal(statusBefore.service_deployment_status, 'UP_TO_DATE')
    const environmentBefore = await environmentStatusOf(environment.id, tokens.read.authorization)

    const dryRun = await calls.trigger(`/container/${containerId}/deploy?dry_run=true`, tokens.deploy.authorization, { image_tag: '2' })
    assert.notEqual(dryRun.execution_id, deployed.execution_id)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)

    const { entry, service } = await entryOf(environment.id, dryRun.execution_id, tokens.read.authorization)
    assert.equal(entry.trigger_action, 'DEPLOY_DRY_RUN')
    assert.equal(entry.action_status, 'SUCCESS')
    assert.deepEqual(service.status_details, { action: 'DEPLOY', status: 'SUCCESS', sub_action: 'NONE' })
    const logs = await logsOf(environment.id, dryRun.execution_id, tokens.read.authorization)
    assert.match(logs, /runs \S*dry-run-web:1 now \(1 instance\(s\)\): a deploy would run \S*dry-run-web:2 instead/)
    assert.match(logs, /nothing running was changed/)

    // The same container still runs the same image; no status moved.
    assert.deepEqual(await runningAlone(containerId), before)
    assert.deepEqual(await statusOf(containerId, tokens.read.authorization), statusBefore)
    assert.deepEqual(await environmentStatusOf(environment.id, tokens.read.authorization), environmentBefore)
    // The image a deploy would run was pulled.
    assert.ok((await docker.listImages()).some((image) => image.RepoTags?.some((tag) => tag.endsWith('dry-run-web:2'))))
  })

  it('of an environment deploys nothing: the container edited to another tag keeps running its old image and reads OUT_OF_DATE as before', async () => {
    const { environment, tokens, containerId, registryId, deployed } = await deployedContainer()
    const before = await runningAlone(containerId)
    const edited = await calls.inject('PUT', `/container/${containerId}`, tokens.write.authorization, containerRequest(registryId, '2'))
    assert.equal(edited.statusCode, 200, edited.body)
    const statusBefore = await statusOf(containerId, tokens.read.authorization)
    assert.equal(statusBefore.service_deployment_status, 'OUT_OF_DATE')
    const environmentBefore = await environmentStatusOf(environment.id, tokens.read.authorization)
    assert.equal(environmentBefore.last_deployment_id, deployed.execution_id)

    const dryRun = await calls.trigger(`/environment/${environment.id}/deploy?dry_run=true`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    const { entry } = await entryOf(environment.id, dryRun.execution_id, tokens.read.authorization)
    assert.equal(entry.trigger_action, 'DEPLOY_DRY_RUN')
    assert.equal(entry.action_status, 'SUCCESS')
    assert.match(await logsOf(environment.id, dryRun.execution_id, tokens.read.authorization), /a deploy would run \S*dry-run-web:2 instead/)

    assert.deepEqual(await runningAlone(containerId), before)
    assert.deepEqual(await statusOf(containerId, tokens.read.authorization), statusBefore)
    assert.deepEqual(await environmentStatusOf(environment.id, tokens.read.authorization), environmentBefore)

    // A plain deploy still deploys: dry runs left nothing in its way.
    await calls.trigger(`/environment/${environment.id}/deploy?dry_run=false`, tokens.deploy.authorization)
    await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    assert.match((await runningAlone(containerId)).image, /dry-run-web:2$/)
    assert.equal((await statusOf(containerId, tokens.read.authorization)).service_deployment_status, 'UP_TO_DATE')
  })

  it('of a job pulls the image a deploy would run and says what it would run, running nothing', async () => {
    const w = await registryWorld(t, calls, registry, environments)
    const created = await calls.inject('POST', `/environment/${w.environment.id}/job`, w.tokens.write.authorization, {
      name: 'migrate',
      cpu: 250,
      memory: 64,
      max_nb_restart: 0,
      max_duration_seconds: 60,
      source: { image: { image_name: 'dry-run-web', tag: '1', registry_id: w.registryId } },
      schedule: { on_start: { entrypoint: '/bin/sh', arguments: ['-c', 'echo the-job-ran'] } },
      healthchecks: {},
    })
    assert.equal(created.statusCode, 201, created.body)
    const jobId = created.json().id as string
    await docker
      .getImage(`${registry.host}/dry-run-web:2`)
      .remove({ force: true })
      .catch(() => undefined)
    const dryRun = await calls.trigger(`/job/${jobId}/deploy?dry_run=true`, w.tokens.deploy.authorization, { image_tag: '2' })
    await calls.waitUntilIdle(w.environment.id, w.tokens.read.authorization)
    const { entry } = await entryOf(w.environment.id, dryRun.execution_id, w.tokens.read.authorization)
    const logs = await logsOf(w.environment.id, dryRun.execution_id, w.tokens.read.authorization)
    assert.equal(entry.trigger_action, 'DEPLOY_DRY_RUN')
    assert.equal(entry.action_status, 'SUCCESS', logs)
    assert.match(logs, /a deploy would run the START event in \S*dry-run-web:2: entrypoint \/bin\/sh, 2 argument\(s\)/)
    assert.match(logs, /dry run: the job was not run/)
    assert.doesNotMatch(logs, /the-job-ran/)
    assert.deepEqual(await serviceInstances(jobId, { all: true }), [], 'no container of the job was made')
    assert.ok(
      (await docker.listImages()).some((image) => image.RepoTags?.includes(`${registry.host}/dry-run-web:2`)),
      'the image was pulled',
    )
    assert.equal((await calls.inject('GET', `/job/${jobId}/status`, w.tokens.read.authorization)).json().state, 'READY', 'the job never ran')
  })

  it('of a database pulls its image and compares it with the one running, leaving the instance and its volume as they were', async () => {
    const w = await registryWorld(t, calls, registry, environments)
    const database = await factories(t.db).database(w.environment.id, {
      name: 'main',
      type: 'POSTGRESQL',
      version: '16',
      mode: 'CONTAINER',
      accessibility: 'PRIVATE',
    })
    await calls.trigger(`/database/${database.id}/deploy`, w.tokens.deploy.authorization)
    const [deployed] = await calls.waitUntilIdle(w.environment.id, w.tokens.read.authorization)
    assert.equal(deployed!.status, 'DEPLOYED', JSON.stringify(deployed))
    const before = await runningAlone(database.id)
    const dryRun = await calls.trigger(`/database/${database.id}/deploy?dry_run=true`, w.tokens.deploy.authorization)
    await calls.waitUntilIdle(w.environment.id, w.tokens.read.authorization)
    const { entry } = await entryOf(w.environment.id, dryRun.execution_id, w.tokens.read.authorization)
    const logs = await logsOf(w.environment.id, dryRun.execution_id, w.tokens.read.authorization)
    assert.equal(entry.trigger_action, 'DEPLOY_DRY_RUN')
    assert.equal(entry.action_status, 'SUCCESS', logs)
    assert.match(logs, /main runs berth-test\/dry-run-library\/postgres:16 now \(1 instance\(s\)\): a deploy would roll out the same image/)
    assert.match(logs, new RegExp(`its data stays in the volume berth-db-${database.id}, which a deploy keeps`))
    assert.deepEqual(await runningAlone(database.id), before, 'the same instance runs')
  })

  it('needs DEPLOY: READ gets a 403 and nothing is queued', async () => {
    const { environment, tokens, containerId, deployed } = await deployedContainer()
    for (const url of [`/container/${containerId}/deploy?dry_run=true`, `/environment/${environment.id}/deploy?dry_run=true`]) {
      const res = await calls.inject('POST', url, tokens.read.authorization, {})
      assert.equal(res.statusCode, 403, `${url}: ${res.body}`)
    }
    const notBoolean = await calls.inject('POST', `/container/${containerId}/deploy?dry_run=maybe`, tokens.deploy.authorization, {})
    assert.equal(notBoolean.statusCode, 400, notBoolean.body)
    assert.equal((await calls.entries(environment.id, tokens.read.authorization))[0]!.identifier.execution_id, deployed.execution_id)
  })
})
