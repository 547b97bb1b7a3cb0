import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError, UUID, assertValidationError as validationErrors } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// Variables and secrets (reference "Variable Main Calls" and the per-scope tags): one store behind
// the generic and per-scope APIs, scopes and their precedence in lists, aliases, overrides,
// built-ins, secrets that are never read back, key rules, limits, import, roles and organizations.

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

const VARIABLE_KEYS = [
  'created_at',
  'description',
  'enable_interpolation_in_file',
  'id',
  'is_secret',
  'key',
  'mount_path',
  'owned_by',
  'scope',
  'secret_manager_access_id',
  'updated_at',
  'value',
  'variable_type',
]

function variableCalls(app: FastifyInstance) {
  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: object) =>
    app.inject({ method, url, headers: { authorization }, ...(payload === undefined ? {} : { payload }) })
  const ok = (res: LightMyRequestResponse, status = 200): Body => {
    assert.equal(res.statusCode, status, `${res.statusCode}: ${res.body}`)
    return res.json() as Body
  }
  return {
    send,
    ok,
    list: async (scope: string, parentId: string, auth: string, isSecret?: boolean): Promise<Body[]> =>
      ok(await send('GET', `/variable?scope=${scope}&parent_id=${parentId}${isSecret === undefined ? '' : `&is_secret=${isSecret}`}`, auth)).results,
    create: async (auth: string, body: Body) => ok(await send('POST', '/variable', auth, body), 201),
    edit: async (id: string, auth: string, body: Body) => ok(await send('PUT', `/variable/${id}`, auth, body)),
    alias: async (id: string, auth: string, body: Body) => ok(await send('POST', `/variable/${id}/alias`, auth, body), 201),
    override: async (id: string, auth: string, body: Body) => ok(await send('POST', `/variable/${id}/override`, auth, body), 201),
  }
}

/** A 400 that names `path` among its field errors. */
function assertValidationError(res: LightMyRequestResponse, path: string) {
  const errors = validationErrors(res)
  assert.ok(
    errors.some((error) => error.path === path),
    `no error at ${path} in ${res.body}`,
  )
}

/** The variables of a list as `key=value` strings, with their scope, sorted. */
const shown = (list: Body[]) => list.map((v) => `${v.scope}:${v.key}=${v.value}`).sort()

describe('variables and secrets', () => {
  let t: TestApp
  let make: ReturnType<typeof factories>
  let calls: ReturnType<typeof variableCalls>
  before(async () => {
    t = await createTestApp()
    make = factories(t.db)
    calls = variableCalls(t.app)
  })
  after(() => t?.close())

  /** An environment with a helm service, its project, and tokens of every role. */
  async function place() {
    const { environment, tokens, organization, project } = await make.environmentWithTokens()
    const helm = await make.helmService(environment.id)
    return { environment, projectId: project.id, helm, tokens, organization }
  }

  it('creates a variable at each scope through the generic API, in the reference shape, and lists what each scope sees', async () => {
    const { environment, projectId, helm, tokens } = await place()
    const auth = tokens.write.authorization
    const project = await calls.create(auth, {
      key: 'LEVEL',
      value: 'project',
      is_secret: false,
      variable_scope: 'PROJECT',
      variable_parent_id: projectId,
    })
    assert.deepEqual(Object.keys(project).sort(), VARIABLE_KEYS)
    assert.match(project.id, UUID)
    assert.equal(project.scope, 'PROJECT')
    assert.equal(project.variable_type, 'VALUE')
    assert.equal(project.value, 'project')
    assert.equal(project.description, '')
    assert.equal(project.mount_path, null)
    await calls.create(auth, { key: 'ENV_ONLY', value: 'e', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: environment.id })
    const own = await calls.create(auth, {
      key: 'HELM_ONLY',
      value: 'h',
      is_secret: false,
      variable_scope: 'HELM',
      variable_parent_id: helm.id,
      description: 'mine',
    })
    assert.equal(own.service_id, helm.id)
    assert.equal(own.service_name, helm.name)
    assert.equal(own.service_type, 'HELM')
    assert.equal(own.description, 'mine')

    const read = tokens.read.authorization
    assert.deepEqual(shown(await calls.list('PROJECT', projectId, read)), ['PROJECT:LEVEL=project'])
    const fromEnvironment = shown(await calls.list('ENVIRONMENT', environment.id, read))
    assert.ok(fromEnvironment.includes('PROJECT:LEVEL=project') && fromEnvironment.includes('ENVIRONMENT:ENV_ONLY=e'))
    assert.ok(!fromEnvironment.some((line) => line.includes('HELM_ONLY')), 'an environment does not see its services’ variables')
    const fromHelm = shown(await calls.list('HELM', helm.id, read))
    for (const line of ['PROJECT:LEVEL=project', 'ENVIRONMENT:ENV_ONLY=e', 'HELM:HELM_ONLY=h']) assert.ok(fromHelm.includes(line), line)
  })

  it('gives every environment and service built-in variables that follow renames, and refuses to edit or delete them', async () => {
    const { environment, projectId, helm, tokens } = await place()
    const auth = tokens.write.authorization
    const builtIns = (list: Body[]) => Object.fromEntries(list.filter((v) => v.scope === 'BUILT_IN').map((v) => [v.key, v.value]))
    const seen = builtIns(await calls.list('HELM', helm.id, auth))
    assert.equal(seen.QOVERY_PROJECT_ID, projectId)
    assert.equal(seen.QOVERY_ENVIRONMENT_ID, environment.id)
    assert.equal(seen.QOVERY_ENVIRONMENT_NAME, environment.name)
    assert.equal(seen.QOVERY_HELM_ID, helm.id)
    assert.equal(seen.QOVERY_SERVICE_ID, helm.id)
    assert.equal(seen.QOVERY_SERVICE_NAME, helm.name)
    assert.equal(seen.QOVERY_SERVICE_TYPE, 'HELM')
    assert.ok((await calls.list('HELM', helm.id, auth)).filter((v) => v.scope === 'BUILT_IN').every((v) => v.variable_type === 'BUILT_IN'))

    const renamed = `renamed-${randomUUID().slice(0, 6)}`
    const res = await t.app.inject({
      method: 'PUT',
      url: `/environment/${environment.id}`,
      headers: { authorization: auth },
      payload: { name: renamed },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(builtIns(await calls.list('ENVIRONMENT', environment.id, auth)).QOVERY_ENVIRONMENT_NAME, renamed)

    const builtIn = (await calls.list('ENVIRONMENT', environment.id, auth)).find((v) => v.key === 'QOVERY_ENVIRONMENT_ID')!
    assertError(await calls.send('PUT', `/variable/${builtIn.id}`, auth, { key: 'QOVERY_ENVIRONMENT_ID', value: 'x' }), 400, 'validation_failed')
    assertError(await calls.send('DELETE', `/variable/${builtIn.id}`, auth), 400, 'validation_failed')
  })

  it('is one store: a variable created through a per-scope API is read, edited and deleted through the generic one, and the other way round', async () => {
    const { environment, tokens } = await place()
    const auth = tokens.write.authorization
    const viaScope = calls.ok(
      await calls.send('POST', `/environment/${environment.id}/environmentVariable`, auth, { key: 'FROM_SCOPE', value: 'one' }),
      201,
    )
    assert.equal(viaScope.scope, 'ENVIRONMENT')
    const generic = (await calls.list('ENVIRONMENT', environment.id, auth)).find((v) => v.key === 'FROM_SCOPE')
    assert.equal(generic?.id, viaScope.id)
    assert.equal(generic?.value, 'one')
    await calls.edit(viaScope.id, auth, { key: 'FROM_SCOPE', value: 'two' })
    const perScope = calls.ok(await calls.send('GET', `/environment/${environment.id}/environmentVariable`, auth)).results as Body[]
    assert.equal(perScope.find((v) => v.id === viaScope.id)?.value, 'two')

    const viaGeneric = await calls.create(auth, {
      key: 'FROM_GENERIC',
      value: 'g',
      is_secret: false,
      variable_scope: 'ENVIRONMENT',
      variable_parent_id: environment.id,
    })
    const edited = calls.ok(
      await calls.send('PUT', `/environment/${environment.id}/environmentVariable/${viaGeneric.id}`, auth, { key: 'RENAMED', value: 'g2' }),
    )
    assert.equal(edited.key, 'RENAMED')
    assert.equal(edited.value, 'g2')
    assert.equal((await calls.send('DELETE', `/environment/${environment.id}/environmentVariable/${viaGeneric.id}`, auth)).statusCode, 204)
    assert.ok(!(await calls.list('ENVIRONMENT', environment.id, auth)).some((v) => v.id === viaGeneric.id))
    assertError(await calls.send('DELETE', `/variable/${viaGeneric.id}`, auth), 404, 'not_found')
  })

  it('never returns a secret value, lets it be overwritten, and keeps secrets and variables apart in the per-scope APIs', async () => {
    const { environment, projectId, tokens } = await place()
    const auth = tokens.write.authorization
    const secret = await calls.create(auth, {
      key: 'DB_PASSWORD',
      value: 'hunter2-very-secret',
      is_secret: true,
      variable_scope: 'PROJECT',
      variable_parent_id: projectId,
    })
    assert.equal(secret.value, null)
    assert.equal(secret.is_secret, true)
    const perScope = calls.ok(await calls.send('POST', `/project/${projectId}/secret`, auth, { key: 'API_KEY', value: 'sk-live-secret-value' }), 201)
    assert.ok(!('value' in perScope))
    const overwritten = await calls.edit(secret.id, auth, { key: 'DB_PASSWORD', value: 'another-secret-value' })
    assert.equal(overwritten.value, null)
    const keptWithoutValue = await calls.edit(secret.id, auth, { key: 'DB_PASSWORD_2' })
    assert.equal(keptWithoutValue.key, 'DB_PASSWORD_2')
    const stored = await sql<{
      value: string | null
      sealed: Buffer | null
    }>`select value, value_sealed as sealed from variables where id = ${secret.id}`.execute(t.db)
    assert.equal(stored.rows[0]!.value, null)
    assert.ok(!stored.rows[0]!.sealed!.toString('latin1').includes('another-secret-value'), 'sealed at rest')

    const bodies = [
      (await calls.send('GET', `/variable?scope=ENVIRONMENT&parent_id=${environment.id}`, auth)).body,
      (await calls.send('GET', `/project/${projectId}/secret`, auth)).body,
      (await calls.send('GET', `/environment/${environment.id}/secret`, auth)).body,
      (await calls.send('GET', `/project/${projectId}/environmentVariable`, auth)).body,
    ]
    for (const body of bodies) {
      for (const value of ['hunter2-very-secret', 'sk-live-secret-value', 'another-secret-value'])
        assert.ok(!body.includes(value), `${value} in ${body}`)
    }
    const secrets = calls.ok(await calls.send('GET', `/project/${projectId}/secret`, auth)).results as Body[]
    assert.deepEqual(secrets.map((s) => s.key).sort(), ['API_KEY', 'DB_PASSWORD_2'])
    for (const s of secrets) assert.equal(typeof s.variable_type, 'string', 'the Terraform provider dereferences variable_type')
    const variables = calls.ok(await calls.send('GET', `/project/${projectId}/environmentVariable`, auth)).results as Body[]
    assert.deepEqual(variables, [])
    // A per-scope route names its own kind only.
    assertError(await calls.send('DELETE', `/project/${projectId}/environmentVariable/${secret.id}`, auth), 404, 'not_found')
    assert.deepEqual((await calls.list('PROJECT', projectId, auth, true)).map((v) => v.key).sort(), ['API_KEY', 'DB_PASSWORD_2'])
    assert.deepEqual(await calls.list('PROJECT', projectId, auth, false), [])
  })

  it('overrides a parent variable at a lower scope, keeping its key, and deletes overrides and aliases with their variable', async () => {
    const { environment, projectId, helm, tokens } = await place()
    const auth = tokens.write.authorization
    const parent = await calls.create(auth, {
      key: 'URL',
      value: 'https://project',
      is_secret: false,
      variable_scope: 'PROJECT',
      variable_parent_id: projectId,
    })
    const override = await calls.override(parent.id, auth, {
      value: 'https://env',
      override_scope: 'ENVIRONMENT',
      override_parent_id: environment.id,
    })
    assert.equal(override.key, 'URL')
    assert.equal(override.variable_type, 'OVERRIDE')
    assert.equal(override.scope, 'ENVIRONMENT')
    assert.deepEqual(
      {
        id: override.overridden_variable.id,
        key: override.overridden_variable.key,
        value: override.overridden_variable.value,
        scope: override.overridden_variable.scope,
      },
      { id: parent.id, key: 'URL', value: 'https://project', scope: 'PROJECT' },
    )
    // An override keeps its parent's key, and follows it when the parent is renamed.
    assertValidationError(await calls.send('PUT', `/variable/${override.id}`, auth, { key: 'OTHER', value: 'x' }), '/key')
    await calls.edit(parent.id, auth, { key: 'BASE_URL' })
    const afterRename = (await calls.list('ENVIRONMENT', environment.id, auth)).find((v) => v.id === override.id)
    assert.equal(afterRename?.key, 'BASE_URL')
    assert.equal(afterRename?.value, 'https://env')
    // Not at the same scope or above.
    assertError(
      await calls.send('POST', `/variable/${override.id}/override`, auth, { value: 'x', override_scope: 'HELM', override_parent_id: helm.id }),
      400,
      'validation_failed',
    )
    assertError(
      await calls.send('POST', `/variable/${parent.id}/override`, auth, { value: 'x', override_scope: 'PROJECT', override_parent_id: projectId }),
      400,
      'validation_failed',
    )

    const alias = await calls.alias(parent.id, auth, { key: 'SITE', alias_scope: 'HELM', alias_parent_id: helm.id })
    assert.equal(alias.variable_type, 'ALIAS')
    assert.equal(alias.value, 'BASE_URL', "an alias's value is the key it aliases")
    assert.equal(alias.aliased_variable.id, parent.id)
    assertError(
      await calls.send('POST', `/variable/${alias.id}/alias`, auth, { key: 'SITE2', alias_scope: 'HELM', alias_parent_id: helm.id }),
      400,
      'validation_failed',
    )
    // An alias lives at the scope of its target or below, never above.
    const helmOwn = await calls.create(auth, { key: 'LOCAL', value: 'l', is_secret: false, variable_scope: 'HELM', variable_parent_id: helm.id })
    assertError(
      await calls.send('POST', `/variable/${helmOwn.id}/alias`, auth, { key: 'UP', alias_scope: 'ENVIRONMENT', alias_parent_id: environment.id }),
      400,
      'validation_failed',
    )
    assertValidationError(await calls.send('PUT', `/variable/${alias.id}`, auth, { key: 'SITE', value: 'not-the-key' }), '/value')

    assert.equal((await calls.send('DELETE', `/variable/${parent.id}`, auth)).statusCode, 204)
    const left = await calls.list('HELM', helm.id, auth)
    assert.ok(!left.some((v) => [parent.id, override.id, alias.id].includes(v.id)), 'overrides and aliases went with their variable')
    assertError(await calls.send('DELETE', `/variable/${alias.id}`, auth), 404, 'not_found')
  })

  it('aliases a built-in variable, as a database URL is aliased', async () => {
    const { environment, helm, tokens } = await place()
    const auth = tokens.write.authorization
    const builtIn = (await calls.list('ENVIRONMENT', environment.id, auth)).find((v) => v.key === 'QOVERY_ENVIRONMENT_ID')!
    const alias = await calls.alias(builtIn.id, auth, { key: 'ENV_ID', alias_scope: 'HELM', alias_parent_id: helm.id })
    assert.equal(alias.value, 'QOVERY_ENVIRONMENT_ID')
    assert.equal(alias.aliased_variable.value, environment.id)
  })

  it('checks keys, values and mount paths, and answers 409 for a key taken in its scope', async () => {
    const { projectId, environment, tokens } = await place()
    const auth = tokens.write.authorization
    const create = (key: string, extra: Body = {}) =>
      calls.send('POST', '/variable', auth, { key, value: 'v', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: projectId, ...extra })
    for (const key of ['', '1ABC', 'WITH-DASH', 'WITH SPACE', 'QOVERY_MINE', 'qovery_mine', '__HIDDEN', 'É', 'A'.repeat(256)]) {
      assertValidationError(await create(key), '/key')
    }
    assertValidationError(await create('BIG', { value: 'x'.repeat(64 * 1024 + 1) }), '/value')
    for (const mountPath of ['relative/file', '/etc/../passwd', '/dir/', '/a//b', '/a/\u0000b']) {
      assertValidationError(await create('FILE_VAR', { mount_path: mountPath }), '/mount_path')
    }
    const file = calls.ok(await create('CONFIG_FILE', { mount_path: '/etc/app/config.json', value: '{"a":1}' }), 201)
    assert.equal(file.variable_type, 'FILE')
    assert.equal(file.mount_path, '/etc/app/config.json')
    assert.equal(calls.ok(await create('lower_case_ok'), 201).key, 'lower_case_ok')
    assertError(await create('lower_case_ok'), 409, 'conflict')
    // Keys are case-sensitive; the same key at another scope is allowed (it takes precedence there).
    assert.equal(calls.ok(await create('LOWER_CASE_OK'), 201).key, 'LOWER_CASE_OK')
    const lower = await calls.send('POST', '/variable', auth, {
      key: 'lower_case_ok',
      value: 'v',
      is_secret: false,
      variable_scope: 'ENVIRONMENT',
      variable_parent_id: environment.id,
    })
    assert.equal(lower.statusCode, 201)
    // Renaming onto a taken key is 409 too.
    assertError(await calls.send('PUT', `/variable/${file.id}`, auth, { key: 'LOWER_CASE_OK' }), 409, 'conflict')
    // Scopes variables are not kept in.
    assertValidationError(
      await calls.send('POST', '/variable', auth, {
        key: 'X',
        value: 'v',
        is_secret: false,
        variable_scope: 'BUILT_IN',
        variable_parent_id: projectId,
      }),
      '/variable_scope',
    )
    // TERRAFORM is the reference's word for IAC, whose services hold variables: a project is no such service.
    assertError(await calls.send('GET', `/variable?scope=TERRAFORM&parent_id=${projectId}`, auth), 404, 'not_found')
    // The scopes are the kinds whose services hold variables, named in the document's order.
    assert.deepEqual(validationErrors(await calls.send('GET', `/variable?scope=AGENTIC_WORKFLOW&parent_id=${projectId}`, auth)), [
      {
        path: '/scope',
        message: 'must be PROJECT, ENVIRONMENT, APPLICATION, CONTAINER, JOB, HELM or IAC (AGENTIC_WORKFLOW holds no variables here)',
        location: 'query',
      },
    ])
    assertValidationError(
      await calls.send('POST', '/variable', auth, {
        key: 'X',
        value: 'v',
        is_secret: true,
        variable_scope: 'PROJECT',
        variable_parent_id: projectId,
        secret_manager_access_id: randomUUID(),
      }),
      '/secret_manager_access_id',
    )
  })

  it('answers 404 for a parent of the wrong kind or scope, as for one that does not exist', async () => {
    const { environment, projectId, helm, tokens } = await place()
    const auth = tokens.write.authorization
    const body = { key: 'K', value: 'v', is_secret: false }
    assertError(
      await calls.send('POST', '/variable', auth, { ...body, variable_scope: 'ENVIRONMENT', variable_parent_id: projectId }),
      404,
      'not_found',
    )
    assertError(await calls.send('POST', '/variable', auth, { ...body, variable_scope: 'CONTAINER', variable_parent_id: helm.id }), 404, 'not_found')
    assertError(await calls.send('GET', `/application/${helm.id}/environmentVariable`, auth), 404, 'not_found')
    assertError(await calls.send('GET', `/job/${randomUUID()}/secret`, auth), 404, 'not_found')
    assertError(await calls.send('GET', `/variable?scope=PROJECT&parent_id=${environment.id}`, auth), 404, 'not_found')
  })

  it('keeps each scope within its limits, counting concurrent creates', async () => {
    const limited = await createTestApp({ BERTH_VARIABLES_PER_SCOPE: '3', BERTH_VARIABLE_BYTES_PER_SCOPE: '2048' })
    try {
      const m = factories(limited.db)
      const c = variableCalls(limited.app)
      const { environment, tokens } = await m.environmentWithTokens()
      const auth = tokens.write.authorization
      const create = (key: string, value = 'v') =>
        c.send('POST', '/variable', auth, { key, value, is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: environment.id })
      const answers = await Promise.all(['A', 'B', 'C', 'D', 'E'].map((key) => create(key)))
      assert.deepEqual(answers.map((res) => res.statusCode).sort(), [201, 201, 201, 409, 409])
      assert.match(answers.find((res) => res.statusCode === 409)!.json().message, /BERTH_VARIABLES_PER_SCOPE/)

      const second = await m.environmentWithTokens()
      const secondAuth = second.tokens.write.authorization
      const large = (key: string) =>
        c.send('POST', '/variable', secondAuth, {
          key,
          value: 'x'.repeat(1500),
          is_secret: false,
          variable_scope: 'ENVIRONMENT',
          variable_parent_id: second.environment.id,
        })
      assert.equal((await large('FIRST')).statusCode, 201)
      const over = await large('SECOND')
      assertError(over, 409, 'conflict')
      assert.match(over.json().message, /BERTH_VARIABLE_BYTES_PER_SCOPE/)
    } finally {
      await limited.close()
    }
  })

  it('imports a set of variables into a service and its parents, leaving or overwriting existing keys as asked', async () => {
    const { projectId, helm, tokens } = await place()
    const auth = tokens.write.authorization
    await calls.create(auth, { key: 'EXISTING', value: 'old', is_secret: false, variable_scope: 'HELM', variable_parent_id: helm.id })
    const vars = [
      { name: 'EXISTING', value: 'new', scope: 'HELM', is_secret: false },
      { name: 'SHARED', value: 's', scope: 'ENVIRONMENT', is_secret: false },
      { name: 'TOKEN', value: 'imported-secret-value', scope: 'PROJECT', is_secret: true },
    ]
    const first = calls.ok(
      await calls.send('POST', `/variable/import?service_id=${helm.id}&service_type=HELM`, auth, { overwrite: false, vars }),
      201,
    )
    assert.equal(first.total_variables_to_import, 3)
    assert.deepEqual(
      first.successful_imported_variables.map((v: Body) => [v.name, v.scope, v.value]),
      [
        ['TOKEN', 'PROJECT', undefined],
        ['SHARED', 'ENVIRONMENT', 's'],
      ],
    )
    const seen = await calls.list('HELM', helm.id, auth)
    assert.equal(seen.find((v) => v.key === 'EXISTING')?.value, 'old', 'left alone without overwrite')
    assert.equal(seen.find((v) => v.key === 'SHARED')?.scope, 'ENVIRONMENT')
    assert.equal(seen.find((v) => v.key === 'TOKEN')?.value, null)
    assert.equal((await calls.list('PROJECT', projectId, auth)).find((v) => v.key === 'TOKEN')?.is_secret, true)

    const second = calls.ok(
      await calls.send('POST', `/variable/import?service_id=${helm.id}&service_type=HELM`, auth, { overwrite: true, vars: vars.slice(0, 1) }),
      201,
    )
    assert.deepEqual(
      second.successful_imported_variables.map((v: Body) => v.name),
      ['EXISTING'],
    )
    assert.equal((await calls.list('HELM', helm.id, auth)).find((v) => v.key === 'EXISTING')?.value, 'new')

    // One bad entry refuses all, naming each.
    const bad = await calls.send('POST', `/variable/import?service_id=${helm.id}&service_type=HELM`, auth, {
      overwrite: false,
      vars: [
        { name: 'GOOD', value: 'g', scope: 'HELM', is_secret: false },
        { name: 'BAD-NAME', value: 'b', scope: 'HELM', is_secret: false },
        { name: 'WRONG_SCOPE', value: 'w', scope: 'CONTAINER', is_secret: false },
      ],
    })
    assertValidationError(bad, '/vars/1/name')
    assertValidationError(bad, '/vars/2/scope')
    // An import into a kind that holds no variables is refused, naming the kinds that do.
    assert.deepEqual(
      validationErrors(
        await calls.send('POST', `/variable/import?service_id=${helm.id}&service_type=AGENTIC_WORKFLOW`, auth, { overwrite: false, vars: [] }),
      ),
      [{ path: '/service_type', message: 'must be APPLICATION, CONTAINER, JOB, HELM or IAC', location: 'query' }],
    )
    assert.ok(!(await calls.list('HELM', helm.id, auth)).some((v) => v.key === 'GOOD'))
  })

  it('lets READ list variables and WRITE change them, and hides other organizations’ variables behind 404', async () => {
    const { projectId, tokens } = await place()
    const variable = await calls.create(tokens.write.authorization, {
      key: 'K',
      value: 'v',
      is_secret: false,
      variable_scope: 'PROJECT',
      variable_parent_id: projectId,
    })
    for (const role of ['read', 'deploy'] as const) {
      const auth = tokens[role].authorization
      assert.equal((await calls.list('PROJECT', projectId, auth)).length, 1)
      assertError(
        await calls.send('POST', '/variable', auth, {
          key: 'N',
          value: 'v',
          is_secret: false,
          variable_scope: 'PROJECT',
          variable_parent_id: projectId,
        }),
        403,
        'forbidden',
      )
      assertError(await calls.send('PUT', `/variable/${variable.id}`, auth, { key: 'K', value: 'x' }), 403, 'forbidden')
      assertError(await calls.send('DELETE', `/variable/${variable.id}`, auth), 403, 'forbidden')
      assertError(await calls.send('POST', `/project/${projectId}/environmentVariable`, auth, { key: 'N', value: 'v' }), 403, 'forbidden')
    }

    const stranger = await make.organizationWithTokens()
    const auth = stranger.tokens.admin.authorization
    const random = randomUUID()
    const pairs: [string, string, object?][] = [
      ['GET', `/variable?scope=PROJECT&parent_id=${projectId}`],
      ['PUT', `/variable/${variable.id}`, { key: 'K', value: 'x' }],
      ['DELETE', `/variable/${variable.id}`],
      ['POST', `/variable/${variable.id}/alias`, { key: 'A', alias_scope: 'PROJECT', alias_parent_id: projectId }],
      ['GET', `/project/${projectId}/environmentVariable`],
    ]
    for (const [method, url, payload] of pairs) {
      const real = await calls.send(method as 'GET', url, auth, payload)
      const fake = await calls.send(method as 'GET', url.replaceAll(variable.id, random).replaceAll(projectId, random), auth, payload)
      assertError(real, 404, 'not_found')
      assert.equal(real.json().message, fake.json().message, `${method} ${url}`)
    }
  })
})
