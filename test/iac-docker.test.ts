import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { LABELS } from '#src/modules/executors/docker/docker-objects.ts'
import { builtImageRepository } from '#src/modules/executors/docker/image-builds.ts'
import { scratchVolume } from '#src/modules/executors/docker/step-workloads.ts'
import { type DeploymentCalls, type DeploymentsTestApp, type EnvironmentEntry, isFinished, until } from './helpers/deployments.ts'
import { docker } from './helpers/docker.ts'
import { factories } from './helpers/factories.ts'
import type { FakeProvider, FakeRepository } from './helpers/fake-git-providers.ts'
import { type GitBuildWorld, startGitBuildWorld } from './helpers/git-build-world.ts'
import type { LoopbackGitServer } from './helpers/git-server.ts'
import { tofuStandinImage } from './helpers/tofu-standin-image.ts'

// Issue 37: IAC services really run on the Docker executor, up to the engine, which is the
// stand-in (test/fixtures/tofu-standin): the repository served on loopback over HTTPS and fetched
// through the applications' checkout, the run's image built by the engine FROM the stand-in's image
// with the service's fragment, init/plan/apply/destroy/force-unlock as containers, the state in
// Berth's iac_states through the engine's http backend and the run's state endpoint (locks
// included), the resources of show -json served by terraformResources, secrets masked in the logs
// and in the resources.

const SECRET = `s3cr3t-${Math.random().toString(36).slice(2)}`
const API_KEY = `key-${Math.random().toString(36).slice(2)}`

const MAIN_TF = `
variable "region" {}
variable "size" { default = "small" }
variable "db_password" { sensitive = true }
# Not marked sensitive: the stand-in prints it, and Berth masks it.
variable "api_key" {}

resource "standin_bucket" "assets" {
  region = "\${var.region}"
  size   = "\${var.size}"
  key    = "\${var.api_key}"
}

resource "standin_database" "main" {
  password = "\${var.db_password}"
  owner    = "\${var.owner}"
}

variable "owner" { default = "nobody" }

output "bucket_region" { value = "\${var.region}" }
`

let t: DeploymentsTestApp
let calls: DeploymentCalls
let git: LoopbackGitServer
let github: FakeProvider
let repository: { commit(files: Record<string, string>, message: string): Promise<string> }
const fakeRepository: FakeRepository = { defaultBranch: 'main', branches: [], commits: [] }
const environments: string[] = []
const services: string[] = []

let builds: GitBuildWorld

before(async () => {
  const { tag } = await tofuStandinImage()
  builds = await startGitBuildWorld({
    name: 'acme/infra',
    fakeRepository,
    environments,
    services,
    env: { BERTH_IAC_IMAGES: `OPEN_TOFU=berth-test/tofu-standin:${tag},TERRAFORM=berth-test/tofu-standin:${tag}` },
  })
  ;({ t, calls, git, github } = builds)
  repository = await git.repository('acme/infra.git')
})

after(async () => {
  await builds?.close()
  for (const id of services)
    await docker
      .getVolume(scratchVolume('IAC', id))
      .remove()
      .catch(() => undefined)
})

const commit = (files: Record<string, string>, message: string) => builds.commit(repository, files, message)

async function logsOf(environmentId: string, executionId: string, authorization: string): Promise<string> {
  const res = await calls.inject('GET', `/environment/${environmentId}/logs?version=${executionId}`, authorization)
  assert.equal(res.statusCode, 200, res.body)
  return res.body
}

const serviceOf = (entry: EnvironmentEntry) => entry.stages.flatMap((stage) => stage.services)[0]!

/** Waits until every deployment of the environment ended (runs on the real engine take their time); the newest entry. */
async function settled(environmentId: string, authorization: string): Promise<EnvironmentEntry> {
  const list = await until(
    () => calls.entries(environmentId, authorization),
    (entries) => entries.length > 0 && entries.every(isFinished),
    { what: 'every deployment finished', timeoutMs: 240_000, intervalMs: 250 },
  )
  return list[0]!
}

const databaseUrl = () => t.config.database.url!

describe('IAC services on the Docker executor, with the engine stand-in', () => {
  it('plans and applies, plans only, waits on a lock and force-unlocks, times out, cancels, destroys', async () => {
    const first = await commit(
      { 'envs/prod/main.tf': MAIN_TF, 'envs/prod/prod.tfvars': 'size = "large"\n', 'README.md': 'infra\n' },
      'The bucket and the database',
    )
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    environments.push(environment.id)
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token: builds.token, gitApiUrl: github.url })
    const write = tokens.write.authorization
    const deploy = tokens.deploy.authorization
    const body = {
      name: 'infra',
      description: 'the bucket',
      auto_deploy_config: { auto_deploy: false, terraform_action: 'DEFAULT' },
      terraform_files_source: {
        git_repository: { url: `${git.url}/acme/infra.git`, branch: 'main', root_path: '/envs/prod', git_token_id: gitToken.id },
      },
      terraform_variables_source: {
        tf_var_file_paths: ['prod.tfvars'],
        tf_vars: [
          { key: 'region', value: 'eu-west-3', secret: false },
          { key: 'db_password', value: SECRET, secret: true },
          { key: 'api_key', value: API_KEY, secret: true },
        ],
      },
      backend: { kubernetes: {} },
      engine: 'OPEN_TOFU',
      provider_version: { explicit_version: '1.9.4' },
      job_resources: { cpu_milli: 500, ram_mib: 256, gpu: 0, storage_gib: 1 },
      timeout_sec: 600,
      action_extra_arguments: { plan: ['-parallelism=4'] },
      dockerfile_fragment: { type: 'inline', content: 'ENV STANDIN_FRAGMENT=applied' },
    }
    /** An edit: the secrets given without their values keep the stored ones. */
    const edit = (region: string, changes: Record<string, unknown> = {}) =>
      calls.inject('PUT', `/terraform/${id}`, write, {
        ...body,
        terraform_variables_source: {
          tf_var_file_paths: ['prod.tfvars'],
          tf_vars: [
            { key: 'region', value: region, secret: false },
            { key: 'db_password', secret: true },
            { key: 'api_key', secret: true },
          ],
        },
        ...changes,
      })
    const created = await calls.inject('POST', `/environment/${environment.id}/terraform`, write, body)
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().id as string
    services.push(id)
    // A variable of the service reaches the run as its environment (TF_VAR_owner here).
    const variable = await calls.inject('POST', '/variable', write, {
      key: 'TF_VAR_owner',
      value: 'team-a',
      is_secret: false,
      variable_scope: 'TERRAFORM',
      variable_parent_id: id,
    })
    assert.equal(variable.statusCode, 201, variable.body)
    assert.equal(variable.json().scope, 'IAC')

    // 1. A deploy: init, plan, apply, show -json.
    const applied = await calls.trigger(`/terraform/${id}/deploy`, deploy, {})
    let entry: EnvironmentEntry | undefined = await settled(environment.id, deploy)
    const logs = await logsOf(environment.id, applied.execution_id, deploy)
    assert.equal(entry!.status, 'DEPLOYED', serviceOf(entry!).message ?? '')
    assert.equal(entry!.trigger_action, 'DEPLOY')
    assert.equal(serviceOf(entry!).status_details.sub_action, 'IAC_PLAN_AND_APPLY')
    assert.equal(serviceOf(entry!).details.resource_count, 2)
    assert.match(logs, /tofu init -input=false -no-color -reconfigure"/)
    assert.doesNotMatch(logs, /conn_str|postgres:\/\//)
    assert.match(logs, /tofu plan -parallelism=4 -input=false -no-color -detailed-exitcode/)
    assert.match(logs, /Plan: 2 to add, 0 to change, 0 to destroy\./)
    assert.match(logs, /Apply complete! Resources: 2 added, 0 changed, 0 destroyed\./)
    assert.match(logs, /password = \(sensitive value\)/)
    assert.match(logs, /key = \\"\*\*\*\\"/, 'the api key the stand-in prints is masked')
    assert.doesNotMatch(logs, new RegExp(`${SECRET}|${API_KEY}`))
    // The run's image: the stand-in's, with the fragment applied.
    const image = await docker.getImage(`${builtImageRepository(id)}:${first}`).inspect()
    assert.ok(image.Config.Env.includes('STANDIN_FRAGMENT=applied'), image.Config.Env.join(' '))

    const resources = (await calls.inject('GET', `/terraform/${id}/terraformResources`, deploy)).json().results as {
      resource_type: string
      address: string
      provider: string
      mode: string
      attributes: Record<string, string>
    }[]
    assert.deepEqual(
      resources.map((resource) => [resource.address, resource.resource_type, resource.provider, resource.mode]),
      [
        ['standin_bucket.assets', 'standin_bucket', 'standin', 'managed'],
        ['standin_database.main', 'standin_database', 'standin', 'managed'],
      ],
    )
    assert.equal(resources[0]!.attributes.region, 'eu-west-3')
    assert.equal(resources[0]!.attributes.size, 'large', 'the tfvars file is read')
    assert.equal(resources[1]!.attributes.owner, 'team-a', "the service's variable reaches the run")

    // Sensitive values and secret variables are masked in the resources, for every role.
    assert.equal((resources[1]!.attributes as Record<string, unknown>).password, '***')
    assert.equal((resources[0]!.attributes as Record<string, unknown>).key, '***')
    for (const authorization of [tokens.read.authorization, tokens.admin.authorization]) {
      const body = (await calls.inject('GET', `/terraform/${id}/terraformResources`, authorization)).body
      assert.doesNotMatch(body, new RegExp(`${SECRET}|${API_KEY}`))
      assert.match(body, /"password":"\*\*\*"/)
    }

    // The state is in Berth's iac_states, written by the engine's http backend through the run's endpoint.
    const client = new pg.Client({ connectionString: databaseUrl() })
    await client.connect()
    const stateOf = async () => (await client.query('select state, lock_info from iac_states where service_id = $1', [id])).rows
    try {
      const rows = await stateOf()
      assert.equal(rows.length, 1)
      assert.equal(rows[0].lock_info, null, 'the run released its lock')
      assert.equal(JSON.parse(rows[0].state).resources.length, 2)

      // A dry run is a plan: nothing to change after the apply, and nothing is changed.
      const dry = await calls.trigger(`/terraform/${id}/deploy?dry_run=true`, deploy, {})
      entry = await settled(environment.id, deploy)
      assert.equal(entry!.trigger_action, 'DEPLOY_DRY_RUN')
      assert.equal(entry!.status, 'DEPLOYED', serviceOf(entry!).message ?? '')
      assert.equal(serviceOf(entry!).status_details.sub_action, 'IAC_PLAN_ONLY')
      const dryLogs = await logsOf(environment.id, dry.execution_id, deploy)
      assert.match(dryLogs, /No changes\. Your infrastructure matches the configuration\./)
      assert.doesNotMatch(dryLogs, /tofu apply/)

      // 2. Plan only: the plan is the output, nothing is applied.
      const edited = await edit('eu-west-1')
      assert.equal(edited.statusCode, 200, edited.body)
      const planned = await calls.trigger(`/terraform/${id}/deploy`, deploy, { action: 'PLAN' })
      entry = await settled(environment.id, deploy)
      assert.equal(entry!.status, 'DEPLOYED', serviceOf(entry!).message ?? '')
      assert.equal(serviceOf(entry!).status_details.sub_action, 'IAC_PLAN_ONLY')
      const planLogs = await logsOf(environment.id, planned.execution_id, deploy)
      assert.match(planLogs, /Plan: 0 to add, 1 to change, 0 to destroy\./)
      assert.match(planLogs, /plan only: the changes above are not applied/)
      assert.doesNotMatch(planLogs, /tofu apply/)
      const stillThere = (await calls.inject('GET', `/terraform/${id}/terraformResources`, deploy)).json().results
      assert.equal(stillThere[0].attributes.region, 'eu-west-3')

      // 3. A lock is held on the state (as a run that died holding it leaves): a deploy fails on it.
      const lockId = crypto.randomUUID()
      await client.query('update iac_states set lock_info = $2 where service_id = $1', [
        id,
        JSON.stringify({ ID: lockId, Operation: 'OperationTypeApply', Who: 'someone@elsewhere' }),
      ])
      await calls.trigger(`/terraform/${id}/deploy`, deploy, {})
      entry = await settled(environment.id, deploy)
      assert.equal(entry!.status, 'DEPLOYMENT_ERROR')
      assert.match(serviceOf(entry!).message ?? '', /HTTP remote state already locked/)
      // Force-unlock finds the lock the engine names and runs force-unlock with its id.
      const unlocked = await calls.trigger(`/terraform/${id}/deploy`, deploy, { action: 'FORCE_UNLOCK' })
      entry = await settled(environment.id, deploy)
      assert.equal(entry!.trigger_action, 'IAC_FORCE_UNLOCK')
      assert.equal(serviceOf(entry!).status_details.sub_action, 'IAC_FORCE_UNLOCK_STATE')
      const unlockLogs = await logsOf(environment.id, unlocked.execution_id, deploy)
      assert.equal(entry!.status, 'DEPLOYED', unlockLogs)
      assert.match(unlockLogs, new RegExp(`tofu force-unlock -force ${lockId}`))
      assert.match(unlockLogs, /OpenTofu state has been successfully unlocked!/)
      assert.equal((await stateOf())[0].lock_info, null)

      // 4. The lock released, a second run sees the state: one change, applied.
      await calls.trigger(`/terraform/${id}/deploy`, deploy, {})
      entry = await settled(environment.id, deploy)
      assert.equal(entry!.status, 'DEPLOYED', serviceOf(entry!).message ?? '')
      const after = (await calls.inject('GET', `/terraform/${id}/terraformResources`, deploy)).json().results
      assert.equal(after[0].attributes.region, 'eu-west-1')
      const serial = JSON.parse((await stateOf())[0].state).serial
      assert.ok(serial >= 2, `serial ${serial}`)

      // 5. timeout_sec kills a run; cancel stops one.
      const slow = await commit({ 'envs/prod/slow.tf': 'resource "standin_sleep" "wait" {\n  seconds = 120\n}\n' }, 'A slow resource')
      const timed = await edit('eu-west-1', { timeout_sec: 8 })
      assert.equal(timed.statusCode, 200, timed.body)
      await calls.trigger(`/terraform/${id}/deploy`, deploy, { git_commit_id: slow })
      entry = await settled(environment.id, deploy)
      assert.equal(entry!.status, 'DEPLOYMENT_ERROR')
      assert.match(serviceOf(entry!).message ?? '', /killed after timeout_sec \(8 s\)/)
      const restored = await edit('eu-west-1')
      assert.equal(restored.statusCode, 200, restored.body)
      const canceled = await calls.trigger(`/terraform/${id}/deploy`, deploy, { git_commit_id: slow })
      await until(
        async () => logsOf(environment.id, canceled.execution_id, deploy),
        (text) => text.includes('standin_sleep.wait: Creating...'),
        { what: 'the slow apply running', timeoutMs: 120_000 },
      )
      const cancel = await calls.inject('POST', `/environment/${environment.id}/cancelDeployment`, deploy, { force_cancel: false })
      assert.equal(cancel.statusCode, 202, cancel.body)
      entry = await settled(environment.id, deploy)
      assert.equal(entry!.status, 'CANCELED')
      await until(
        async () => docker.listContainers({ all: true, filters: { label: [`${LABELS.service}=${id}`] } }),
        (containers) => containers.length === 0,
        { what: 'the canceled run removed' },
      )

      // 6. Uninstall destroys what the state holds.
      const uninstalled = await calls.inject('POST', `/terraform/${id}/uninstall`, deploy, {})
      assert.equal(uninstalled.statusCode, 202, uninstalled.body)
      entry = await settled(environment.id, deploy)
      assert.equal(entry!.status, 'DELETED', serviceOf(entry!).message ?? '')
      assert.equal(serviceOf(entry!).status_details.sub_action, 'IAC_DESTROY')
      assert.deepEqual((await calls.inject('GET', `/terraform/${id}/terraformResources`, deploy)).json().results, [])
      const destroyed = JSON.parse((await stateOf())[0].state)
      assert.equal(destroyed.resources.length, 0)

      // 7. Nothing of the runs is left: no volume, no image.
      assert.deepEqual(await docker.listImages({ filters: { reference: [builtImageRepository(id)] } }), [])
      await until(
        async () => (await docker.listVolumes({ filters: { name: [scratchVolume('IAC', id)] } })).Volumes ?? [],
        (volumes) => volumes.length === 0,
        { what: 'the volume removed', timeoutMs: 120_000 },
      )
    } finally {
      await client.end()
    }
  })
})
