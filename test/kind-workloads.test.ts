import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, it } from 'node:test'
import type { ExecutorAction, ServiceSnapshot } from '#src/modules/executors/executor.ts'
import type { KindWorkload, NextStep, StepsWorkload, Workload } from '#src/modules/executors/workload.ts'
import { newDatabaseCredentials } from '#src/modules/services/kinds/database/database-credentials.ts'
import type { IacConfig } from '#src/modules/services/kinds/iac/iac.types.ts'
import type { JobConfig } from '#src/modules/services/kinds/job/job.types.ts'
import { DOCKER_KINDS, KUBERNETES_KINDS } from '#src/modules/services/kinds/registry.ts'
import { testSecretBox } from './helpers/app.ts'

// What each kind describes to the executors (docs/executors.md): pure functions of a snapshot and
// an action, read here without an engine. What the engines do with them is tested by the Docker
// and Kubernetes files.

const secrets = testSecretBox()
const openSecret = (sealed: string) => secrets.open(Buffer.from(sealed, 'base64'))
const settings = { databaseImages: 'mirror.example/library', iacImages: '' }

function describeOf(kinds: typeof DOCKER_KINDS, kind: string, configuration: unknown, action: ExecutorAction, overrides = {}): Workload {
  const snapshot: ServiceSnapshot = {
    serviceId: '0f1e2d3c-0000-4000-8000-000000000000',
    kind,
    name: 'Web',
    version: 1,
    configuration,
    overrides,
    variables: [],
    variablesFingerprint: '',
    advancedSettings: {},
  }
  return (kinds[kind] as KindWorkload).describe(snapshot, { action, settings, openSecret, namespace: 'berth-ns' })
}

const job = (schedule: JobConfig['schedule']) =>
  ({
    cpu: 250,
    memory: 128,
    maxNbRestart: 2,
    maxDurationSeconds: 900,
    source: { image: { imageName: 'acme/migrate', tag: '7', registryId: 'r1' } },
    schedule,
  }) as JobConfig

describe('the workloads kinds describe', () => {
  it('a container: its registry image at the deploy’s tag, its instances, ports and probes, whatever the action', () => {
    const config = {
      registryId: 'r1',
      imageName: 'acme/web',
      tag: '1.0',
      entrypoint: null,
      arguments: ['serve'],
      cpu: 500,
      memory: 256,
      minRunningInstances: 0,
      ports: [{ internalPort: 8080, externalPort: null, protocol: 'HTTP', publiclyAccessible: true, isDefault: true, publicPath: null }],
      storage: [],
      healthchecks: { readinessProbe: null, livenessProbe: null },
    }
    const workload = describeOf(DOCKER_KINDS, 'CONTAINER', config, 'STOP', { imageTag: '2.0' })
    assert.equal(workload.type, 'instances')
    if (workload.type !== 'instances') return
    assert.deepEqual(workload.image, { registry: { registryId: 'r1', imageName: 'acme/web', tag: '2.0' } })
    assert.equal(workload.instances, 1, 'at least one instance')
    assert.deepEqual(workload.args, ['serve'])
    assert.equal(workload.ports[0]!.protocol, 'HTTP')
  })

  it('a database: its official image from the settings, its host, its one volume where its data already is; MANAGED runs nothing', () => {
    const credentials = newDatabaseCredentials(randomUUID(), 'REDIS', secrets)
    const config = { type: 'REDIS', version: '7.2', mode: 'CONTAINER', accessibility: 'PUBLIC', cpu: 250, memory: 256, storage: 10, credentials }
    const workload = describeOf(DOCKER_KINDS, 'DATABASE', config, 'DEPLOY')
    if (workload.type !== 'instances') return assert.fail(workload.type)
    assert.deepEqual(workload.image, { public: 'mirror.example/library/redis:7.2' })
    assert.equal(workload.hostname, credentials.host)
    assert.deepEqual(workload.args, ['redis-server', '--requirepass', '$(BERTH_DATABASE_PASSWORD)', '--appendonly', 'yes'])
    assert.equal(workload.env.BERTH_DATABASE_PASSWORD, openSecret(credentials.passwordSealed))
    assert.equal(workload.variables, false)
    assert.deepEqual(workload.volumes[0]!.names, { docker: `berth-db-0f1e2d3c-0000-4000-8000-000000000000`, kubernetes: 'data' })
    const managed = { ...config, mode: 'MANAGED' }
    assert.equal(describeOf(DOCKER_KINDS, 'DATABASE', managed, 'DEPLOY').type, 'refused')
    assert.equal(describeOf(KUBERNETES_KINDS, 'DATABASE', managed, 'STOP').type, 'nothing')
  })

  it('a job: the command of the action’s event; no command, nothing; a cron job is a schedule, its tick a run', () => {
    const lifecycle = job({
      lifecycle: { onStart: { arguments: ['up'], entrypoint: '/bin/tool' }, onStop: null, onDelete: null, lifecycleType: null },
    })
    const started = describeOf(DOCKER_KINDS, 'JOB', lifecycle, 'DEPLOY')
    if (started.type !== 'run') return assert.fail(started.type)
    assert.deepEqual(started.command, { what: 'the START event', entrypoint: ['/bin/tool'], args: ['up'] })
    assert.deepEqual(started.timeout, { seconds: 900, setting: 'max_duration_seconds' })
    assert.equal(describeOf(DOCKER_KINDS, 'JOB', lifecycle, 'STOP').type, 'nothing')
    const cron = job({ cronjob: { scheduledAt: '*/5 * * * *', timezone: 'UTC', arguments: ['tick'], entrypoint: null } })
    const scheduled = describeOf(KUBERNETES_KINDS, 'JOB', cron, 'DEPLOY')
    assert.deepEqual(scheduled.type === 'schedule' && [scheduled.cron, scheduled.runNow], ['*/5 * * * *', false])
    const forced = describeOf(KUBERNETES_KINDS, 'JOB', cron, 'DEPLOY', { forceEvent: 'CRON' })
    assert.equal(forced.type === 'schedule' && forced.runNow, true)
    const tick = describeOf(KUBERNETES_KINDS, 'JOB', cron, 'DEPLOY', { forceEvent: 'CRON', scheduledFor: new Date().toISOString() })
    assert.equal(tick.type === 'run' && tick.tick, true)
  })

  describe('an IAC run', () => {
    const config = {
      git: { url: 'https://github.com/acme/infra', branch: 'main', rootPath: '/', gitTokenId: null, provider: 'GITHUB' },
      tfVarFilePaths: [],
      tfVars: [],
      backend: { kubernetes: {} },
      engine: 'OPEN_TOFU',
      engineVersion: '1.9.4',
      timeoutSec: 60,
      jobResources: { cpuMilli: 500, ramMib: 512 },
      actionExtraArguments: {},
      dockerfileFragment: null,
    } as unknown as IacConfig
    const result = (code: number, stdout = '') => ({ code, lines: [], stdout })
    /** The steps a run goes through, given each step's exit code by its command. */
    function walk(workload: StepsWorkload, codes: Record<string, number>, stdout = ''): { steps: string[]; end: NextStep } {
      const steps: string[] = []
      let next = workload.first
      while ('run' in next) {
        steps.push(next.run.args[0]!)
        next = workload.next(next.run, result(codes[next.run.args[0]!] ?? 0, stdout))
      }
      return { steps, end: next }
    }

    it('on Docker: applies only what the plan changes, then reads the state’s resources', () => {
      const deploy = describeOf(DOCKER_KINDS, 'IAC', config, 'DEPLOY') as StepsWorkload
      assert.equal(deploy.type, 'steps')
      // The state is served by the executor to the run alone: no Berth credential, no database address.
      assert.equal(deploy.stateEndpoint, true)
      assert.deepEqual(
        deploy.files.map((file) => file.content),
        ['terraform {\n  backend "http" {}\n}\n'],
      )
      assert.ok(deploy.first && 'run' in deploy.first)
      assert.deepEqual(deploy.first.run.args, ['init', '-input=false', '-no-color', '-reconfigure'])
      assert.doesNotMatch(JSON.stringify(deploy.env), /postgres|conn_str|TF_HTTP/)
      const state = JSON.stringify({
        format_version: '1.0',
        values: { root_module: { resources: [{ address: 'null_resource.a', mode: 'managed', type: 'null_resource', name: 'a' }] } },
      })
      const changed = walk(deploy, { plan: 2 }, state)
      assert.deepEqual(changed.steps, ['init', 'plan', 'apply', 'show'])
      assert.deepEqual('done' in changed.end && changed.end.done.details, { resource_count: 1 })
      const unchanged = walk(deploy, { plan: 0 }, state)
      assert.deepEqual(unchanged.steps, ['init', 'plan', 'show'])
      assert.deepEqual(walk(deploy, { init: 1 }).steps, ['init'])
      assert.ok('failed' in walk(deploy, { init: 1 }).end)
      const dryRun = walk(describeOf(DOCKER_KINDS, 'IAC', config, 'DEPLOY_DRY_RUN') as StepsWorkload, { plan: 2 })
      assert.deepEqual(dryRun.steps, ['init', 'plan'], 'a dry run plans only')
      const destroyed = walk(describeOf(DOCKER_KINDS, 'IAC', config, 'DELETE') as StepsWorkload, {})
      assert.deepEqual(destroyed.steps, ['init', 'destroy'])
      const skipped = describeOf(DOCKER_KINDS, 'IAC', config, 'DELETE', { skipDestroy: true }) as StepsWorkload
      assert.deepEqual(walk(skipped, {}).steps, [], 'SKIP_DESTROY runs nothing')
    })

    it('on Docker: masks in the resources every value the engine marks sensitive and every secret variable’s value', () => {
      const sealed = (value: string) => secrets.seal(value).toString('base64')
      const withSecrets = {
        ...config,
        tfVars: [
          { key: 'region', secret: false, value: 'eu-west-3' },
          { key: 'api_key', secret: true, sealed: sealed('key-0123456789') },
          { key: 'pin', secret: true, sealed: sealed('42') },
        ],
      } as unknown as IacConfig
      const deploy = describeOf(DOCKER_KINDS, 'IAC', withSecrets, 'DEPLOY') as StepsWorkload
      const state = JSON.stringify({
        format_version: '1.0',
        values: {
          outputs: { token: { sensitive: true, value: 'tok-abcdef' } },
          root_module: {
            resources: [
              {
                address: 'standin_database.main',
                mode: 'managed',
                type: 'standin_database',
                name: 'main',
                values: {
                  region: 'eu-west-3',
                  password: 'hunter2-long',
                  nested: { keys: ['a', 'b-secret'], plain: 'key-0123456789 in a sentence' },
                  pin: '42',
                },
                sensitive_values: { password: true, nested: { keys: [false, true] } },
              },
            ],
          },
        },
      })
      const end = walk(deploy, { plan: 0 }, state).end
      assert.ok('done' in end)
      const [resource] = (end.done.output?.terraform_resources ?? []) as { attributes: Record<string, unknown> }[]
      assert.deepEqual(resource!.attributes, {
        region: 'eu-west-3',
        password: '***',
        nested: { keys: ['a', '***'], plain: '*** in a sentence' },
        pin: '***',
      })
    })

    it('on Kubernetes: init, plan and apply laid out as one Job; force-unlock refused', () => {
      const deploy = describeOf(KUBERNETES_KINDS, 'IAC', config, 'DEPLOY') as StepsWorkload
      assert.deepEqual(walk(deploy, {}).steps, ['init', 'plan', 'apply'])
      assert.ok(deploy.first && 'run' in deploy.first && deploy.first.run.args.includes('-backend-config=namespace=berth-ns'))
      assert.equal(deploy.stateAccess, true)
      assert.equal(describeOf(KUBERNETES_KINDS, 'IAC', config, 'DEPLOY', { action: 'FORCE_UNLOCK' }).type, 'refused')
    })
  })

  it('a helm service: its own chart, at the deploy’s version, its values’ placeholders resolved by the kind', () => {
    const config = {
      source: { helmRepository: { repositoryId: 'h1', chartName: 'webapp', chartVersion: '1.0.0' } },
      valuesOverride: { set: [['a', 'qovery.env.GREETING']], setString: [], setJson: [], file: null },
      allowClusterWideResources: false,
      timeoutSec: 300,
      arguments: ['--atomic', '--history-max 3'],
    }
    const workload = describeOf(KUBERNETES_KINDS, 'HELM', config, 'DEPLOY', { chartVersion: '1.1.0' })
    if (workload.type !== 'chart') return assert.fail(workload.type)
    assert.deepEqual(workload.source, { repository: { repositoryId: 'h1', chartName: 'webapp', version: '1.1.0' } })
    assert.deepEqual(workload.extraArguments, ['--atomic', '--history-max', '3'])
    assert.equal(workload.values.resolve('qovery.env.GREETING!', new Map([['GREETING', 'hello']])), 'hello!')
    assert.equal(describeOf(DOCKER_KINDS, 'HELM', config, 'DEPLOY').type, 'chart', 'the Docker executor refuses a chart itself')
  })
})
