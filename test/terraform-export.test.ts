/**
 * Issue 48: exportEnvironmentConfigurationIntoTerraform. The ZIP it answers is unpacked with the
 * real `unzip`, its main.tf and variables.tf parsed as HCL (@cdktf/hcl2json, HashiCorp's parser
 * compiled to WebAssembly), and compared with the environment and its services read back through
 * the API: one `qovery_*` resource per service with the provider's attribute names, stages in
 * order, plain variables as values, secrets as sensitive variables whose values appear nowhere.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

// biome-ignore lint/suspicious/noExplicitAny: parsed HCL and API answers are read field by field
type Json = Record<string, any>

// Loaded without its type declarations, which pull the DOM's types into the whole program.
const { parse } = createRequire(import.meta.url)('@cdktf/hcl2json') as { parse(fileName: string, content: string): Promise<Json> }

describe('export to Terraform', () => {
  let t: TestApp
  let dir: string
  before(async () => {
    t = await createTestApp()
    dir = mkdtempSync(path.join(os.tmpdir(), 'berth-tf-export-'))
  })
  after(async () => {
    await t?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('writes the environment and every service as the provider names them, secrets as variables', async () => {
    const f = factories(t.db)
    const w = await f.environmentWithTokens()
    const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const res = await t.app.inject({ method, url, headers: { authorization: w.tokens.admin.authorization }, ...(payload ? { payload } : {}) })
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
      return res
    }
    const web = await f.containerService(w.environment.id, {
      name: 'web',
      cpu: 500,
      memory: 256,
      ports: [{ name: 'http', internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP', is_default: true }],
      healthchecks: {
        readiness_probe: {
          type: { http: { path: '/ready', port: 8080 } },
          initial_delay_seconds: 1,
          period_seconds: 5,
          timeout_seconds: 2,
          success_threshold: 1,
          failure_threshold: 3,
        },
      },
    })
    const job = await f.job(w.environment.id, { name: 'migrate' })
    const db = await f.database(w.environment.id, { name: 'main-db' })
    const chart = await f.helmService(w.environment.id, { name: 'redis' })
    const SECRET = 'hunter2-never-exported'
    for (const [scope, parentId, key, value, isSecret] of [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a value that must not be read as an interpolation
      ['ENVIRONMENT', w.environment.id, 'LOG_LEVEL', 'debug "quoted" ${not_interpolated}', false],
      ['ENVIRONMENT', w.environment.id, 'API_KEY', SECRET, true],
      ['CONTAINER', web.id, 'PORT', '8080', false],
      ['CONTAINER', web.id, 'DB_PASSWORD', `${SECRET}-2`, true],
    ] as const) {
      await call('POST', '/variable', { key, value, is_secret: isSecret, variable_scope: scope, variable_parent_id: parentId })
    }

    const denied = await t.app.inject({
      method: 'GET',
      url: `/environment/${w.environment.id}/terraformExport`,
      headers: { authorization: (await f.organizationWithTokens()).tokens.admin.authorization },
    })
    assert.equal(denied.statusCode, 404)
    const res = await t.app.inject({
      method: 'GET',
      url: `/environment/${w.environment.id}/terraformExport?exportSecrets=true`,
      headers: { authorization: w.tokens.read.authorization },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.headers['content-type'], 'application/octet-stream')
    const zipFile = path.join(dir, 'export.zip')
    writeFileSync(zipFile, res.rawPayload)
    assert.deepEqual(execFileSync('unzip', ['-Z1', zipFile], { encoding: 'utf8' }).trim().split('\n'), ['main.tf', 'variables.tf'])
    const main = execFileSync('unzip', ['-p', zipFile, 'main.tf'], { encoding: 'utf8' })
    const variablesTf = execFileSync('unzip', ['-p', zipFile, 'variables.tf'], { encoding: 'utf8' })
    assert.ok(!res.rawPayload.toString('latin1').includes(SECRET), "no secret's value is in the export")

    const parsed: Json = await parse('main.tf', main)
    const declared: Json = await parse('variables.tf', variablesTf)
    const resources = parsed.resource as Json
    assert.equal(parsed.terraform[0].required_providers[0].qovery.source, 'qovery/qovery')

    const environment = (await call('GET', `/environment/${w.environment.id}`)).json()
    const [environmentLabel, [environmentBlock]] = Object.entries(resources.qovery_environment)[0] as [string, [Json]]
    assert.deepEqual(
      { name: environmentBlock.name, mode: environmentBlock.mode, cluster_id: environmentBlock.cluster_id, project_id: environmentBlock.project_id },
      { name: environment.name, mode: environment.mode, cluster_id: environment.cluster_id, project_id: environment.project.id },
    )
    // Nothing in the value is taken for an interpolation: Terraform's JSON form of the literal escapes it as HCL does.
    assert.deepEqual(environmentBlock.environment_variables, [{ key: 'LOG_LEVEL', value: 'debug "quoted" $${not_interpolated}' }])
    assert.ok(main.includes('$${not_interpolated}'), 'written escaped')
    const environmentSecret = environmentBlock.secrets[0]
    assert.equal(environmentSecret.key, 'API_KEY')
    const secretVariable = /^\$\{var\.(\w+)\}$/.exec(environmentSecret.value)?.[1]
    assert.ok(secretVariable, environmentSecret.value)
    assert.deepEqual(declared.variable[secretVariable!][0].sensitive, true)
    assert.equal(declared.variable[secretVariable!][0].default, undefined)

    // Every service, named as the API names it, in the environment, on its stage.
    const byName = (type: string) =>
      Object.fromEntries(Object.values(resources[type] ?? {}).map((blocks) => [(blocks as Json[])[0]!.name, (blocks as Json[])[0]!]))
    const containers = byName('qovery_container')
    const jobs = byName('qovery_job')
    const databases = byName('qovery_database')
    const helms = byName('qovery_helm')
    assert.deepEqual(Object.keys({ ...containers, ...jobs, ...databases, ...helms }).sort(), ['main-db', 'migrate', 'redis', 'web'])
    for (const block of [containers.web, jobs.migrate, databases['main-db'], helms.redis]) {
      assert.equal(block.environment_id, `\${qovery_environment.${environmentLabel}.id}`)
      assert.match(block.deployment_stage_id, /^\$\{qovery_deployment_stage\.\w+\.id\}$/)
    }

    const container = (await call('GET', `/container/${web.id}`)).json()
    const exported = containers.web
    assert.deepEqual(
      [exported.registry_id, exported.image_name, exported.tag, exported.cpu, exported.memory],
      [container.registry.id, container.image_name, container.tag, container.cpu, container.memory],
    )
    assert.deepEqual(exported.ports, [
      { name: 'http', internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP', is_default: true },
    ])
    assert.equal(exported.healthchecks.readiness_probe.type.http.path, '/ready')
    assert.deepEqual(exported.environment_variables, [{ key: 'PORT', value: '8080' }])
    assert.match(exported.secrets[0].value, /^\$\{var\.\w+\}$/)

    const jobAnswer = (await call('GET', `/job/${job.id}`)).json()
    assert.deepEqual(jobs.migrate.source.image, {
      name: jobAnswer.source.image.image_name,
      tag: jobAnswer.source.image.tag,
      registry_id: jobAnswer.source.image.registry_id,
    })
    assert.deepEqual(jobs.migrate.schedule.on_start.arguments, jobAnswer.schedule.on_start.arguments)

    const database = (await call('GET', `/database/${db.id}`)).json()
    assert.deepEqual(
      [databases['main-db'].type, databases['main-db'].version, databases['main-db'].mode, databases['main-db'].accessibility],
      [database.type, database.version, database.mode, database.accessibility],
    )

    const helm = (await call('GET', `/helm/${chart.id}`)).json()
    assert.deepEqual(helms.redis.source.helm_repository, {
      helm_repository_id: helm.source.repository.repository.id,
      chart_name: helm.source.repository.chart_name,
      chart_version: helm.source.repository.chart_version,
    })
    assert.equal(helms.redis.allow_cluster_wide_resources, helm.allow_cluster_wide_resources)

    // The stages, in the environment's order, each after the one before.
    const stages = (await call('GET', `/environment/${w.environment.id}/deploymentStage`)).json().results as Json[]
    // Each after the one before: the chain of is_after gives the environment's order.
    const exportedStages: Json[] = Object.entries(resources.qovery_deployment_stage).map(([label, blocks]) => ({ label, ...(blocks as Json[])[0]! }))
    const ordered = [exportedStages.find((stage) => stage.is_after === undefined)!]
    while (ordered.length < exportedStages.length) {
      const next = exportedStages.find((stage) => stage.is_after === `\${qovery_deployment_stage.${ordered.at(-1)!.label}.id}`)
      assert.ok(next, 'every stage follows the one before')
      ordered.push(next)
    }
    assert.deepEqual(
      ordered.map((stage) => stage.name),
      stages.map((stage) => stage.name),
    )
  })
})
