import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { referencedVariables, resolvePlaceholders } from '#src/modules/services/kinds/helm/helm-deployments.ts'
import { revealVariables } from '#src/modules/variables/resolved-variables.ts'
import type { SnapshotVariable } from '#src/platform/snapshot-variable.ts'
import { testSecretBox } from './helpers/app.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './helpers/deployments.ts'
import { factories } from './helpers/factories.ts'

// What a deployment makes of variables: the resolved set its snapshot keeps (precedence, overrides,
// aliases, secrets still sealed), its logs (names, never values), OUT_OF_DATE after a change, and
// helm values that name variables.

let d: DeploymentsTestApp
let make: ReturnType<typeof factories>
let calls: DeploymentCalls

before(async () => {
  d = await createDeploymentsApp(30)
  make = factories(d.db)
  calls = deploymentCalls(d.app)
})
after(() => d?.close())

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

async function create(auth: string, body: Body): Promise<Body> {
  const res = await calls.inject('POST', '/variable', auth, body)
  assert.equal(res.statusCode, 201, res.body)
  return res.json()
}

async function setUp(valuesOverride: object = {}) {
  const { environment, project, tokens } = await make.environmentWithTokens()
  const helm = await make.helmService(environment.id, { values_override: valuesOverride })
  const auth = tokens.write.authorization
  const deploy = async () => {
    const queued = await calls.trigger(`/helm/${helm.id}/deploy`, tokens.deploy.authorization)
    const entries = await calls.waitUntilIdle(environment.id, tokens.read.authorization)
    return { executionId: queued.execution_id as string, entry: entries.find((e) => e.identifier.execution_id === queued.execution_id)! }
  }
  const snapshot = async (executionId: string) => {
    const { rows } = await sql<{ variables: SnapshotVariable[] }>`
      select variables from deployment_snapshots where execution_id = ${executionId} and service_id = ${helm.id}`.execute(d.db)
    return rows[0]!.variables
  }
  const logText = async (executionId: string) => {
    const res = await calls.inject('GET', `/environment/${environment.id}/logs?version=${executionId}`, tokens.read.authorization)
    assert.equal(res.statusCode, 200, res.body)
    return res.body
  }
  const status = async () => (await calls.helmStatus(helm.id, tokens.read.authorization)).service_deployment_status as string
  return { environment, project, helm, tokens, auth, deploy, snapshot, logText, status }
}

describe('variables in deployments', () => {
  it('deploys each service with one value per key, the service over its environment over its project, aliases and secrets resolved', async () => {
    const { environment, project, helm, auth, deploy, snapshot, logText } = await setUp()
    const projectUrl = await create(auth, {
      key: 'URL',
      value: 'https://project',
      is_secret: false,
      variable_scope: 'PROJECT',
      variable_parent_id: project.id,
    })
    await create(auth, { key: 'ONLY_PROJECT', value: 'p', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: project.id })
    const overridden = await calls.inject('POST', `/variable/${projectUrl.id}/override`, auth, {
      value: 'https://environment',
      override_scope: 'ENVIRONMENT',
      override_parent_id: environment.id,
    })
    assert.equal(overridden.statusCode, 201, overridden.body)
    await create(auth, { key: 'LEVEL', value: 'environment', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: environment.id })
    await create(auth, { key: 'LEVEL', value: 'service', is_secret: false, variable_scope: 'HELM', variable_parent_id: helm.id })
    const secret = await create(auth, {
      key: 'PASSWORD',
      value: 'never-shown-s3cret',
      is_secret: true,
      variable_scope: 'ENVIRONMENT',
      variable_parent_id: environment.id,
    })
    const alias = await calls.inject('POST', `/variable/${projectUrl.id}/alias`, auth, {
      key: 'SITE_URL',
      alias_scope: 'HELM',
      alias_parent_id: helm.id,
    })
    assert.equal(alias.statusCode, 201, alias.body)
    const secretAlias = await calls.inject('POST', `/variable/${secret.id}/alias`, auth, {
      key: 'DB_PASSWORD',
      alias_scope: 'HELM',
      alias_parent_id: helm.id,
    })
    assert.equal(secretAlias.statusCode, 201, secretAlias.body)
    await create(auth, {
      key: 'CONFIG',
      value: '{"debug":true}',
      is_secret: false,
      variable_scope: 'HELM',
      variable_parent_id: helm.id,
      mount_path: '/etc/app/config.json',
    })

    const { executionId, entry } = await deploy()
    assert.equal(entry.status, 'DEPLOYED')
    const variables = await snapshot(executionId)
    const byKey = new Map(variables.map((variable) => [variable.key, variable]))
    assert.equal(byKey.get('URL')?.value, 'https://environment', 'the override wins over its parent')
    assert.equal(byKey.get('LEVEL')?.value, 'service', 'the service wins over its environment')
    assert.equal(byKey.get('ONLY_PROJECT')?.value, 'p')
    assert.equal(byKey.get('SITE_URL')?.value, 'https://environment', 'an alias takes the value its target key has for the service')
    assert.equal(byKey.get('QOVERY_SERVICE_ID')?.value, helm.id, 'built-ins are delivered')
    assert.equal(byKey.get('CONFIG')?.mountPath, '/etc/app/config.json')
    for (const key of ['PASSWORD', 'DB_PASSWORD']) {
      const sealed = byKey.get(key)!
      assert.equal(sealed.isSecret, true)
      assert.equal(sealed.value, undefined, 'a secret stays sealed in the snapshot')
    }
    assert.ok(!JSON.stringify(variables).includes('never-shown-s3cret'))
    const revealed = new Map(revealVariables(variables, testSecretBox()).map((variable) => [variable.key, variable.value]))
    assert.equal(revealed.get('PASSWORD'), 'never-shown-s3cret', 'an executor opens what the snapshot sealed')
    assert.equal(revealed.get('DB_PASSWORD'), 'never-shown-s3cret')
    assert.equal(variables.filter((variable) => variable.key === 'URL').length, 1, 'one value per key')

    const logs = await logText(executionId)
    assert.match(logs, /variables: .*DB_PASSWORD \(secret\).*PASSWORD \(secret\)/)
    assert.match(logs, /CONFIG \(file at \/etc\/app\/config.json\)/)
    for (const value of ['never-shown-s3cret', 'https://environment', '{\\"debug\\":true}']) assert.ok(!logs.includes(value), `${value} in the logs`)
  })

  it('says OUT_OF_DATE after a variable the service sees changes, and UP_TO_DATE again once redeployed', async () => {
    const { environment, project, auth, deploy, status } = await setUp()
    const variable = await create(auth, {
      key: 'FEATURE',
      value: 'off',
      is_secret: false,
      variable_scope: 'ENVIRONMENT',
      variable_parent_id: environment.id,
    })
    await deploy()
    assert.equal(await status(), 'UP_TO_DATE')
    const edited = await calls.inject('PUT', `/variable/${variable.id}`, auth, { key: 'FEATURE', value: 'on' })
    assert.equal(edited.statusCode, 200, edited.body)
    assert.equal(await status(), 'OUT_OF_DATE', 'a changed value')
    await deploy()
    assert.equal(await status(), 'UP_TO_DATE')
    await create(auth, { key: 'NEW_ONE', value: 'x', is_secret: true, variable_scope: 'PROJECT', variable_parent_id: project.id })
    assert.equal(await status(), 'OUT_OF_DATE', 'a new variable in a parent scope')
    await deploy()
    // Another service's variables are not this service's.
    const other = await make.helmService(environment.id)
    await create(auth, { key: 'OTHERS', value: 'x', is_secret: false, variable_scope: 'HELM', variable_parent_id: other.id })
    assert.equal(await status(), 'UP_TO_DATE')
    const gone = await d.app.inject({ method: 'DELETE', url: `/variable/${variable.id}`, headers: { authorization: auth } })
    assert.equal(gone.statusCode, 204)
    assert.equal(await status(), 'OUT_OF_DATE', 'a deleted variable')
  })

  it('resolves qovery.env.NAME in helm values at deploy time, and fails the deployment when no such variable exists', async () => {
    const { environment, auth, deploy, logText } = await setUp({ set: [['image.tag', 'qovery.env.IMAGE_TAG']] })
    const failed = await deploy()
    assert.equal(failed.entry.status, 'DEPLOYMENT_ERROR')
    const failedLogs = await logText(failed.executionId)
    assert.match(failedLogs, /names qovery\.env\.IMAGE_TAG, which this service has no variable for/)

    await create(auth, { key: 'IMAGE_TAG', value: '1.4.2', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: environment.id })
    const succeeded = await deploy()
    assert.equal(succeeded.entry.status, 'DEPLOYED')
    const logs = await logText(succeeded.executionId)
    assert.match(logs, /variables the values name \(qovery\.env\.\*\): IMAGE_TAG/)
    assert.ok(!logs.includes('1.4.2'), 'the value itself is never logged')
  })
})

describe('qovery.env placeholders', () => {
  it('are replaced by the service’s values, and a name it has no value for is left as written', () => {
    const values = new Map([
      ['IMAGE_TAG', '1.4.2'],
      ['HOST', 'db.internal'],
    ])
    assert.equal(
      resolvePlaceholders('image:\n  tag: qovery.env.IMAGE_TAG\nurl: postgres://qovery.env.HOST:5432/qovery.env.MISSING', values),
      'image:\n  tag: 1.4.2\nurl: postgres://db.internal:5432/qovery.env.MISSING',
    )
    assert.deepEqual(
      referencedVariables({
        valuesOverride: {
          set: [['a', 'qovery.env.A and qovery.env.B']],
          setString: [['b', 'qovery.env.A']],
          setJson: [],
          file: { raw: { values: [{ name: 'v', content: 'x: qovery.env.C' }] } },
        },
      }),
      ['A', 'B', 'C'],
    )
  })
})
