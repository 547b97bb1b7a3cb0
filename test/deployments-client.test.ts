import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  Configuration,
  type DeploymentHistoryEnvironmentV2,
  EnvironmentActionsApi,
  EnvironmentDeploymentHistoryApi,
  EnvironmentMainCallsApi,
  HelmActionsApi,
  HelmDeploymentHistoryApi,
  HelmMainCallsApi,
} from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, rejectedStatus, UUID } from './helpers/assertions.ts'
import { durationMs, ISO_DURATION, until } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './helpers/isolated-database.ts'

// Whole deployment lifecycles driven through the official client (qovery-typescript-axios)
// against a listening Berth with a deployment runner in-process.

const FINISHED = ['SUCCESS', 'ERROR', 'CANCELED']

/** The Berth extensions of a history page, which the client's types do not name. */
interface PageExtensions {
  next_start_id: string | null
  has_more: boolean
}

/** The Berth extension of entries and services: why it ended as it did. */
const messageOf = (value: object) => (value as { message?: string | null }).message

/** A Berth app with its runner on a database of its own, listening for the client. */
async function startBerth(stepMs: number): Promise<{ t: TestApp; basePath: string; close(): Promise<void> }> {
  const database: IsolatedDatabase = await createIsolatedDatabase()
  const t = await createTestApp(
    { DATABASE_URL: database.url, BERTH_SIMULATED_STEP_MS: String(stepMs), BERTH_RUNNER_POLL_MS: '50', BERTH_RUNNER_LEASE_MS: '2000' },
    { runner: true },
  )
  const basePath = await t.listen()
  return {
    t,
    basePath,
    async close() {
      await t.close()
      await database.drop()
    },
  }
}

/** The client's APIs for one credential (`Token …`). */
function client(basePath: string, authorization: string) {
  const configuration = new Configuration({ basePath, apiKey: authorization })
  return {
    environmentActions: new EnvironmentActionsApi(configuration),
    environmentMain: new EnvironmentMainCallsApi(configuration),
    environmentHistory: new EnvironmentDeploymentHistoryApi(configuration),
    helmActions: new HelmActionsApi(configuration),
    helmMain: new HelmMainCallsApi(configuration),
    helmHistory: new HelmDeploymentHistoryApi(configuration),
  }
}

type Client = ReturnType<typeof client>

async function newestEntries(reader: Client, environmentId: string, pageSize = 100): Promise<DeploymentHistoryEnvironmentV2[]> {
  const { data } = await reader.environmentHistory.listEnvironmentDeploymentHistoryV2(environmentId, pageSize)
  return data.results ?? []
}

/**
 * Polls the environment's history until every listed execution is finished, recording the
 * distinct states each execution was seen in, in order.
 */
async function watchUntilFinished(reader: Client, environmentId: string, executionIds: string[]) {
  const seen = new Map<string, string[]>(executionIds.map((id) => [id, []]))
  const entries = await until(
    async () => {
      const list = await newestEntries(reader, environmentId)
      for (const entry of list) {
        const states = seen.get(entry.identifier.execution_id)
        if (states && states.at(-1) !== entry.status) states.push(entry.status)
      }
      return list
    },
    (list) =>
      executionIds.every((id) => {
        const entry = list.find((found) => found.identifier.execution_id === id)
        return entry !== undefined && FINISHED.includes(entry.action_status)
      }),
    { what: `executions ${executionIds.join(', ')} finished`, intervalMs: 15, timeoutMs: 15_000 },
  )
  const byId = (id: string) => entries.find((entry) => entry.identifier.execution_id === id)!
  return { seen, byId, entries }
}

/** Whether `states` go forward along `path` (each one later in it than the one before). */
function followsPath(states: string[], path: string[]): boolean {
  const indexes = states.map((state) => path.indexOf(state))
  return indexes.every((index, i) => index >= 0 && (i === 0 || index > indexes[i - 1]!))
}

const DEPLOY_PATH = ['DEPLOYMENT_QUEUED', 'DEPLOYING', 'DEPLOYED']

describe('deployments through the official client', () => {
  let berth: Awaited<ReturnType<typeof startBerth>>
  let make: ReturnType<typeof factories>

  before(async () => {
    berth = await startBerth(150)
    make = factories(berth.t.db)
  })
  after(() => berth?.close())

  it('deploys an environment and watches its history go from queued to deployed', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helms = [await make.helmService(environment.id), await make.helmService(environment.id)]
    const deployer = client(berth.basePath, tokens.deploy.authorization)
    const reader = client(berth.basePath, tokens.read.authorization)

    const initial = (await reader.environmentMain.getEnvironmentStatus(environment.id)).data
    assert.equal(initial.state, 'READY')
    assert.equal(initial.last_deployment_id, null)
    assert.equal(initial.deployment_status, 'NEVER_DEPLOYED')

    const first = await deployer.environmentActions.deployEnvironment(environment.id)
    assert.equal(first.status, 202)
    assert.equal(first.data.id, environment.id)
    assert.equal(first.data.state, 'DEPLOYMENT_QUEUED')
    assert.deepEqual(first.data.status_details, { action: 'DEPLOY', status: 'QUEUED', sub_action: 'NONE' })
    assert.match(first.data.execution_id!, UUID)
    assert.equal(first.data.deployment_request_id, first.data.execution_id)
    assert.equal(first.data.service_deployment_status, 'NEVER_DEPLOYED')
    // A second deploy while the first is under way queues behind it.
    const second = await deployer.environmentActions.deployEnvironment(environment.id)
    assert.equal(second.status, 202)
    assert.equal(second.data.state, 'DEPLOYMENT_QUEUED')
    assert.notEqual(second.data.execution_id, first.data.execution_id)
    const ids = [first.data.execution_id!, second.data.execution_id!]

    const { seen, byId, entries } = await watchUntilFinished(reader, environment.id, ids)
    for (const id of ids) {
      const states = seen.get(id)!
      assert.ok(followsPath(states, DEPLOY_PATH), `${id} went ${states.join(' → ')}`)
      assert.equal(states.at(-1), 'DEPLOYED')
    }
    // Each run spends a simulated step deploying, the second as long queued behind the first.
    assert.ok(
      [...seen.values()].some((states) => states.length > 1),
      `no deployment was seen before its end: ${JSON.stringify([...seen])}`,
    )
    assert.deepEqual(
      entries.map((entry) => entry.identifier.execution_id),
      [ids[1], ids[0]],
      'newest first',
    )

    for (const id of ids) {
      const entry = byId(id)
      assert.deepEqual(entry.identifier, { execution_id: id, environment_id: environment.id })
      assert.equal(entry.status, 'DEPLOYED')
      assert.equal(entry.action_status, 'SUCCESS')
      assert.equal(entry.trigger_action, 'DEPLOY')
      assert.equal(entry.auditing_data.origin, 'API')
      assert.equal(entry.auditing_data.triggered_by, `API token ${tokens.deploy.name}`)
      assert.match(entry.total_duration, ISO_DURATION)
      assert.equal(messageOf(entry), null)
      assert.equal(entry.stages.length, 1)
      const [stage] = entry.stages
      assert.equal(stage!.name, 'HELM DEFAULT')
      assert.equal(stage!.status, 'DONE')
      assert.match(stage!.duration!, ISO_DURATION)
      assert.deepEqual(stage!.services.map((service) => service.identifier.service_id).sort(), helms.map((helm) => helm.id).sort())
      for (const service of stage!.services) {
        assert.equal(service.identifier.service_type, 'HELM')
        assert.equal(service.identifier.execution_id, id)
        assert.equal(service.status, 'DEPLOYED')
        assert.deepEqual(service.status_details, { action: 'DEPLOY', status: 'SUCCESS', sub_action: 'NONE' })
        assert.deepEqual((service.details as { repository?: unknown }).repository, { chart_name: 'app', chart_version: '1.0.0' })
        assert.match(service.total_duration!, ISO_DURATION)
      }
    }
    assert.ok(byId(ids[1]!).auditing_data.created_at > byId(ids[0]!).auditing_data.created_at)
    // One at a time: the second started (its end less its duration) once the first had ended.
    const end = (entry: DeploymentHistoryEnvironmentV2) => Date.parse(entry.auditing_data.updated_at)
    const start = (entry: DeploymentHistoryEnvironmentV2) => end(entry) - durationMs(entry.total_duration)
    assert.ok(start(byId(ids[1]!)) >= end(byId(ids[0]!)), 'the queued deployment started before the first ended')

    const status = (await reader.environmentMain.getEnvironmentStatus(environment.id)).data
    assert.equal(status.state, 'DEPLOYED')
    assert.equal(status.last_deployment_state, 'DEPLOYED')
    assert.equal(status.last_deployment_id, ids[1])
    assert.equal(status.deployment_status, 'UP_TO_DATE')
    assert.equal(status.deployment_request_id, null)
    assert.equal(status.origin, 'API')
    assert.equal(status.triggered_by, `API token ${tokens.deploy.name}`)
    assert.equal(typeof status.total_deployment_duration_in_seconds, 'number')

    for (const helm of helms) {
      const helmStatus = (await reader.helmMain.getHelmStatus(helm.id)).data
      assert.equal(helmStatus.state, 'DEPLOYED')
      assert.equal(helmStatus.execution_id, ids[1])
      assert.equal(helmStatus.is_part_last_deployment, true)
      assert.deepEqual(helmStatus.status_details, { action: 'DEPLOY', status: 'SUCCESS', sub_action: 'NONE' })
      assert.equal(helmStatus.deployment_request_id, null)
      assert.equal(helmStatus.deployment_requests_count, 0)
      assert.equal(helmStatus.service_deployment_status, 'UP_TO_DATE')
    }

    // READ cannot trigger.
    assert.equal(await rejectedStatus(reader.environmentActions.deployEnvironment(environment.id)), 403)
  })

  it('takes the empty form-typed body the client sends with bodiless triggers, and still refuses a form body', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const post = (payload: string) =>
      berth.t.app.inject({
        method: 'POST',
        url: `/environment/${environment.id}/deploy`,
        headers: { authorization: tokens.deploy.authorization, 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      })
    assert.equal((await post('')).statusCode, 202)
    assertError(await post('force=true'), 415, 'unsupported_media_type')
  })

  it('fails a deployment whose service is made to fail, and the service alone', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const healthy = await make.helmService(environment.id)
    const failing = await make.helmService(environment.id, { values_override: { set: [['berth.simulate.fail', 'true']] } })
    const deployer = client(berth.basePath, tokens.deploy.authorization)
    const reader = client(berth.basePath, tokens.read.authorization)

    const queued = (await deployer.environmentActions.deployEnvironment(environment.id)).data
    const { seen, byId } = await watchUntilFinished(reader, environment.id, [queued.execution_id!])
    const states = seen.get(queued.execution_id!)!
    assert.ok(followsPath(states, ['DEPLOYMENT_QUEUED', 'DEPLOYING', 'DEPLOYMENT_ERROR']), states.join(' → '))

    const entry = byId(queued.execution_id!)
    assert.equal(entry.status, 'DEPLOYMENT_ERROR')
    assert.equal(entry.action_status, 'ERROR')
    assert.match(messageOf(entry) ?? '', /HELM DEFAULT failed/)
    assert.ok(messageOf(entry)?.includes(failing.name), messageOf(entry) ?? '')
    assert.deepEqual(
      entry.stages.map((stage) => [stage.name, stage.status]),
      [['HELM DEFAULT', 'ERROR']],
    )
    const service = (id: string) => entry.stages[0]!.services.find((found) => found.identifier.service_id === id)!
    assert.equal(service(failing.id).status, 'DEPLOYMENT_ERROR')
    assert.deepEqual(service(failing.id).status_details, { action: 'DEPLOY', status: 'ERROR', sub_action: 'NONE' })
    assert.equal(messageOf(service(failing.id)), 'simulated deploy failure (values override berth.simulate.fail)')
    // The healthy service ran in the same stage, alongside, and succeeded.
    assert.equal(service(healthy.id).status, 'DEPLOYED')
    assert.deepEqual(service(healthy.id).status_details, { action: 'DEPLOY', status: 'SUCCESS', sub_action: 'NONE' })
    assert.equal(messageOf(service(healthy.id)), null)

    const status = (await reader.environmentMain.getEnvironmentStatus(environment.id)).data
    assert.equal(status.state, 'DEPLOYMENT_ERROR')
    assert.equal(status.last_deployment_state, 'DEPLOYMENT_ERROR')
    assert.equal(status.deployment_status, 'OUT_OF_DATE', 'one service is not deployed as configured')
    const failingStatus = (await reader.helmMain.getHelmStatus(failing.id)).data
    assert.equal(failingStatus.state, 'DEPLOYMENT_ERROR')
    assert.deepEqual(failingStatus.status_details, { action: 'DEPLOY', status: 'ERROR', sub_action: 'NONE' })
    assert.equal((await reader.helmMain.getHelmStatus(healthy.id)).data.state, 'DEPLOYED')

    // `true` fails every action: a redeploy ends in the RESTART family's error.
    const redeployed = await deployer.environmentActions.redeployEnvironment(environment.id)
    assert.equal(redeployed.status, 202)
    const [restart] = await until(
      () => newestEntries(reader, environment.id, 1),
      (list) => list[0]?.trigger_action === 'RESTART' && FINISHED.includes(list[0].action_status),
      { what: 'the redeploy finished' },
    )
    assert.equal(restart!.status, 'RESTART_ERROR')
    assert.equal(restart!.action_status, 'ERROR')
    assert.equal(
      messageOf(restart!.stages[0]!.services.find((found) => found.identifier.service_id === failing.id)!),
      'simulated restart failure (values override berth.simulate.fail)',
    )
  })

  it('pages through 45 deployments by 20 with startId: 20, 20, 5, newest first, even while another arrives', async () => {
    // No services: each deployment finishes as soon as it is claimed.
    const { environment, tokens } = await make.environmentWithTokens()
    const deployer = client(berth.basePath, tokens.deploy.authorization)
    const reader = client(berth.basePath, tokens.read.authorization)
    const ids: string[] = []
    for (let i = 0; i < 45; i++) ids.push((await deployer.environmentActions.deployEnvironment(environment.id)).data.execution_id!)
    assert.equal(new Set(ids).size, 45)
    await until(
      () => newestEntries(reader, environment.id),
      (list) => list.length === 45 && list.every((entry) => entry.status === 'DEPLOYED'),
      { what: '45 deployments deployed', timeoutMs: 20_000 },
    )

    const history = reader.environmentHistory
    const first = (await history.listEnvironmentDeploymentHistoryV2(environment.id, 20)).data
    const firstExtensions = first as unknown as PageExtensions
    assert.equal(first.page, 1)
    assert.equal(first.page_size, 20)
    assert.equal(first.results?.length, 20)
    assert.equal(firstExtensions.has_more, true)
    assert.equal(firstExtensions.next_start_id, first.results!.at(-1)!.identifier.execution_id)

    // A deployment arriving meanwhile shifts nothing for a client paging by startId.
    const late = (await deployer.environmentActions.deployEnvironment(environment.id)).data.execution_id!

    const second = (await history.listEnvironmentDeploymentHistoryV2(environment.id, 20, { params: { startId: firstExtensions.next_start_id } })).data
    const secondExtensions = second as unknown as PageExtensions
    assert.equal(second.page, 2)
    assert.equal(second.results?.length, 20)
    assert.equal(secondExtensions.has_more, true)
    assert.equal(secondExtensions.next_start_id, second.results!.at(-1)!.identifier.execution_id)

    const third = (await history.listEnvironmentDeploymentHistoryV2(environment.id, 20, { params: { startId: secondExtensions.next_start_id } })).data
    const thirdExtensions = third as unknown as PageExtensions
    assert.equal(third.page, 3)
    assert.equal(third.results?.length, 5)
    assert.equal(thirdExtensions.has_more, false)
    assert.equal(thirdExtensions.next_start_id, null)

    const listed = [...first.results!, ...second.results!, ...third.results!]
    assert.deepEqual(
      listed.map((entry) => entry.identifier.execution_id),
      [...ids].reverse(),
      'every deployment once, newest first',
    )
    for (const [i, entry] of listed.entries()) {
      if (i > 0) assert.ok(entry.auditing_data.created_at < listed[i - 1]!.auditing_data.created_at, 'created_at descending')
    }

    // Paging again from the top shows the late one first.
    await until(
      () => newestEntries(reader, environment.id, 1),
      (list) => list[0]?.identifier.execution_id === late && list[0].status === 'DEPLOYED',
      { what: 'the late deployment deployed' },
    )
    const lastEntry = ids[0]!
    const afterLast = (await history.listEnvironmentDeploymentHistoryV2(environment.id, 20, { params: { startId: lastEntry } })).data
    assert.deepEqual(afterLast.results, [])
    assert.equal((afterLast as unknown as PageExtensions).has_more, false)
    const otherEnvironment = await make.environment((await make.project((await make.organization()).id)).id)
    assert.equal(
      await rejectedStatus(history.listEnvironmentDeploymentHistoryV2(environment.id, 20, { params: { startId: otherEnvironment.id } })),
      400,
      'a startId that is no entry of this history',
    )
  })

  it('deploys, redeploys, stops and uninstalls one helm service, with its status and history', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    const bystander = await make.helmService(environment.id)
    const deployer = client(berth.basePath, tokens.deploy.authorization)
    const reader = client(berth.basePath, tokens.read.authorization)

    const never = (await reader.helmMain.getHelmStatus(helm.id)).data
    assert.equal(never.state, 'READY')
    assert.equal(never.service_deployment_status, 'NEVER_DEPLOYED')
    assert.deepEqual(never.status_details, { action: 'DEPLOY', status: 'NEVER', sub_action: 'NONE' })
    assert.equal(never.is_part_last_deployment, false)
    assert.equal(never.deployment_requests_count, 0)

    /** Waits for the helm service's status to settle in `state`; returns the states seen on the way. */
    const settle = async (executionId: string, state: string) => {
      const states: string[] = []
      const status = await until(
        async () => {
          const read = (await reader.helmMain.getHelmStatus(helm.id)).data
          if (read.execution_id === executionId && states.at(-1) !== read.state) states.push(read.state)
          return read
        },
        (read) =>
          read.execution_id === executionId && read.deployment_request_id === null && ['SUCCESS', 'ERROR'].includes(read.status_details.status),
        { what: `helm ${helm.id} at ${state}`, intervalMs: 15 },
      )
      assert.equal(status.state, state)
      return { status, states }
    }

    const deployed = await deployer.helmActions.deployHelm(helm.id, undefined, { chart_version: '1.2.3' })
    assert.equal(deployed.status, 202)
    assert.equal(deployed.data.id, helm.id)
    assert.equal(deployed.data.state, 'DEPLOYMENT_QUEUED')
    assert.deepEqual(deployed.data.status_details, { action: 'DEPLOY', status: 'QUEUED', sub_action: 'NONE' })
    assert.equal(deployed.data.deployment_request_id, deployed.data.execution_id)
    assert.equal(deployed.data.deployment_requests_count, 1)
    const deploy = await settle(deployed.data.execution_id!, 'DEPLOYED')
    assert.ok(followsPath(deploy.states, DEPLOY_PATH), deploy.states.join(' → '))
    assert.equal(deploy.status.is_part_last_deployment, true)
    // The deploy ran chart 1.2.3, not the configured version: what runs differs from the
    // configuration, which the status says (docs/deployments.md, "What runs after a deploy of another version").
    assert.equal(deploy.status.service_deployment_status, 'OUT_OF_DATE')

    const { data: helmPage } = await reader.helmHistory.listHelmDeploymentHistoryV2(helm.id, 10)
    assert.equal(helmPage.results?.length, 1)
    const [entry] = helmPage.results!
    assert.deepEqual(entry!.identifier, { name: helm.name, service_id: helm.id, service_type: 'HELM', execution_id: deployed.data.execution_id })
    assert.equal(entry!.status, 'DEPLOYED')
    assert.deepEqual(entry!.status_details, { action: 'DEPLOY', status: 'SUCCESS', sub_action: 'NONE' })
    assert.deepEqual((entry!.details as { repository?: unknown }).repository, { chart_name: 'app', chart_version: '1.2.3' })
    assert.equal(entry!.auditing_data.origin, 'API')
    assert.equal(entry!.auditing_data.triggered_by, `API token ${tokens.deploy.name}`)

    // The environment's history holds the helm deployment, with that service alone.
    const [environmentEntry] = await newestEntries(reader, environment.id, 1)
    assert.equal(environmentEntry!.identifier.execution_id, deployed.data.execution_id)
    assert.deepEqual(
      environmentEntry!.stages.flatMap((stage) => stage.services.map((service) => service.identifier.service_id)),
      [helm.id],
    )
    const bystanderStatus = (await reader.helmMain.getHelmStatus(bystander.id)).data
    assert.equal(bystanderStatus.state, 'READY')
    assert.equal(bystanderStatus.is_part_last_deployment, false)

    const redeployed = (await deployer.helmActions.redeployHelm(helm.id)).data
    assert.equal(redeployed.state, 'RESTART_QUEUED')
    await settle(redeployed.execution_id!, 'RESTARTED')

    const stopped = (await deployer.helmActions.stopHelm(helm.id)).data
    assert.equal(stopped.state, 'STOP_QUEUED')
    await settle(stopped.execution_id!, 'STOPPED')
    assert.equal(await rejectedStatus(deployer.helmActions.stopHelm(helm.id)), 409, 'already stopped')

    const uninstalled = await deployer.helmActions.uninstallHelm(helm.id)
    assert.equal(uninstalled.status, 202)
    assert.equal(uninstalled.data.state, 'DELETE_QUEUED')
    const uninstall = await settle(uninstalled.data.execution_id!, 'DELETED')
    assert.deepEqual(uninstall.status.status_details, { action: 'DELETE', status: 'SUCCESS', sub_action: 'NONE' })
    const again = await deployer.helmActions.uninstallHelm(helm.id)
    assert.equal(again.status, 204, 'nothing to uninstall')

    // Its own history, newest first, paged by 2 with startId.
    const firstPage = (await reader.helmHistory.listHelmDeploymentHistoryV2(helm.id, 2)).data
    const next = (firstPage as unknown as PageExtensions).next_start_id
    assert.equal(next, firstPage.results!.at(-1)!.identifier.execution_id)
    const secondPage = (await reader.helmHistory.listHelmDeploymentHistoryV2(helm.id, 2, { params: { startId: next } })).data
    assert.equal(secondPage.page, 2)
    assert.equal((secondPage as unknown as PageExtensions).has_more, false)
    assert.deepEqual(
      [...firstPage.results!, ...secondPage.results!].map((found) => [found.identifier.execution_id, found.status, found.status_details.action]),
      [
        [uninstalled.data.execution_id, 'DELETED', 'DELETE'],
        [stopped.execution_id, 'STOPPED', 'STOP'],
        [redeployed.execution_id, 'RESTARTED', 'RESTART'],
        [deployed.data.execution_id, 'DEPLOYED', 'DEPLOY'],
      ],
    )
    // The bystander took part in none of them.
    assert.deepEqual((await reader.helmHistory.listHelmDeploymentHistoryV2(bystander.id)).data.results, [])
  })
})

describe('canceling through the official client', () => {
  // A longer step, so that the deployment is surely still running when the cancel arrives.
  let berth: Awaited<ReturnType<typeof startBerth>>
  let make: ReturnType<typeof factories>

  before(async () => {
    berth = await startBerth(1_000)
    make = factories(berth.t.db)
  })
  after(() => berth?.close())

  it('cancels a running deployment through CANCELING to CANCELED, and the queued one behind it at once', async () => {
    const { environment, tokens } = await make.environmentWithTokens()
    await make.helmService(environment.id)
    await make.helmService(environment.id)
    const deployer = client(berth.basePath, tokens.deploy.authorization)
    const reader = client(berth.basePath, tokens.read.authorization)

    const running = (await deployer.environmentActions.deployEnvironment(environment.id)).data.execution_id!
    const queued = (await deployer.environmentActions.deployEnvironment(environment.id)).data.execution_id!
    await until(
      () => newestEntries(reader, environment.id),
      (list) => list.find((entry) => entry.identifier.execution_id === running)?.stages[0]?.status === 'ONGOING',
      { what: 'the first deployment running its stage' },
    )

    const canceled = await deployer.environmentActions.cancelEnvironmentDeployment(environment.id)
    assert.equal(canceled.status, 202)
    assert.equal(canceled.data.state, 'CANCELING')
    assert.equal(canceled.data.deployment_request_id, running)

    const entries = await newestEntries(reader, environment.id)
    const byId = (list: DeploymentHistoryEnvironmentV2[], id: string) => list.find((entry) => entry.identifier.execution_id === id)!
    // The queued one never started: canceled at once, its services as they were.
    const queuedEntry = byId(entries, queued)
    assert.equal(queuedEntry.status, 'CANCELED')
    assert.equal(queuedEntry.action_status, 'CANCELED')
    assert.deepEqual(
      queuedEntry.stages.map((stage) => stage.status),
      ['CANCELED'],
    )
    for (const service of queuedEntry.stages[0]!.services) {
      assert.equal(service.status, 'READY')
      assert.equal(service.status_details.status, 'CANCELED')
    }
    assert.equal(byId(entries, running).status, 'CANCELING')
    assert.equal(byId(entries, running).action_status, 'CANCELING')
    assert.equal(await rejectedStatus(deployer.environmentActions.cancelEnvironmentDeployment(environment.id)), 409, 'already being canceled')

    const { seen, byId: finished } = await watchUntilFinished(reader, environment.id, [running])
    assert.ok(followsPath(seen.get(running)!, ['CANCELING', 'CANCELED']), seen.get(running)!.join(' → '))
    const runningEntry = finished(running)
    assert.equal(runningEntry.status, 'CANCELED')
    assert.equal(runningEntry.action_status, 'CANCELED')
    assert.deepEqual(
      runningEntry.stages.map((stage) => stage.status),
      ['CANCELED'],
    )
    for (const service of runningEntry.stages[0]!.services) {
      assert.equal(service.status, 'CANCELED')
      assert.equal(service.status_details.status, 'CANCELED')
    }
    const status = (await reader.environmentMain.getEnvironmentStatus(environment.id)).data
    assert.equal(status.state, 'CANCELED')
    assert.equal(status.deployment_request_id, null)
    assert.equal(await rejectedStatus(deployer.environmentActions.cancelEnvironmentDeployment(environment.id)), 409, 'nothing left to cancel')

    // The queue is not stuck: the next deployment runs to its end.
    const next = (await deployer.environmentActions.deployEnvironment(environment.id)).data.execution_id!
    const resumed = await watchUntilFinished(reader, environment.id, [next])
    assert.equal(resumed.byId(next).status, 'DEPLOYED')
  })
})
