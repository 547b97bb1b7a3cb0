/**
 * Issue 48: policy API tokens. A policy token's rego policy (the subset Berth evaluates) is checked on
 * every request it makes, and its role bounds what the policy allows; it is hashed at rest, shown
 * once, listed with its policy apart from regular tokens, and stops working once deleted.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { parsePolicy, policyAllows } from '#src/platform/auth/token-policy.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

describe('policy API tokens', () => {
  let t: TestApp

  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, authorization: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) })

  it('authenticates requests its policy allows and its role permits; nothing else', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const base = `/organization/${organization.id}/policyApiToken`
    const policy = `import rego.v1

# reads only, in this organization
allow if {
  input.method in {"GET", "HEAD"}
  startswith(input.path, "/organization/${organization.id}")
}
allow if input.operation_id == "createProject"
`
    assert.equal((await call('POST', base, tokens.write.authorization, { name: 'agent', opa_policy: policy })).statusCode, 403)
    const created = await call('POST', base, tokens.admin.authorization, { name: 'agent', description: 'an agent', opa_policy: policy })
    assert.equal(created.statusCode, 201, created.body)
    const body = created.json()
    assert.match(body.token, /^berth_/)
    assert.equal(body.role_name, 'ADMIN')
    assert.equal(body.description, 'an agent')
    assert.match(body.creator_name, /^API token /)
    const agent = `Token ${body.token}`
    const stored = await t.db.selectFrom('apiTokens').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow()
    assert.ok(!stored.digest.toString('hex').includes(body.token) && stored.tokenStart.length < body.token.length, 'hashed at rest')

    assert.equal((await call('GET', `/organization/${organization.id}/project`, agent)).statusCode, 200)
    const created2 = await call('POST', `/organization/${organization.id}/project`, agent, { name: 'by the agent' })
    assert.ok(created2.statusCode === 200 || created2.statusCode === 201, created2.body)
    const refused = await call('DELETE', `/project/${created2.json().id}`, agent)
    assert.equal(refused.statusCode, 403, refused.body)
    assert.match(refused.json().message, /policy of the API token "agent" does not allow DELETE/)
    assert.equal((await call('GET', `/project/${created2.json().id}`, tokens.read.authorization)).statusCode, 200, 'not deleted')
    assert.equal((await call('GET', '/organization', agent)).statusCode, 403, 'outside the paths it allows')
    const mint = await call('POST', `/organization/${organization.id}/apiToken`, agent, { name: 'escape', role: 'ADMIN' })
    assert.equal(mint.statusCode, 403, 'a policy token mints no token without its policy')

    // The role bounds the policy: READ with a policy allowing everything still cannot write.
    const readOnly = await call('POST', base, tokens.admin.authorization, {
      name: 'reader',
      opa_policy: 'allow := true',
      role_id: '00000000-0000-4000-8000-0000000000a4',
    })
    assert.equal(readOnly.statusCode, 201, readOnly.body)
    assert.equal(readOnly.json().role_name, 'READ')
    const reader = `Token ${readOnly.json().token}`
    assert.equal((await call('GET', `/organization/${organization.id}/project`, reader)).statusCode, 200)
    assert.equal((await call('POST', `/organization/${organization.id}/project`, reader, { name: 'nope' })).statusCode, 403)

    const listed = await call('GET', base, tokens.admin.authorization)
    assert.equal(listed.statusCode, 200, listed.body)
    assert.deepEqual(
      listed.json().results.map((item: { name: string; opa_policy: string; token?: string }) => [item.name, item.opa_policy, item.token]),
      [
        ['agent', policy, undefined],
        ['reader', 'allow := true', undefined],
      ],
    )
    assert.equal((await call('GET', base, tokens.write.authorization)).statusCode, 403)
    const regular = (await call('GET', `/organization/${organization.id}/apiToken`, tokens.admin.authorization)).json().results
    assert.ok(!regular.some((item: { name: string }) => item.name === 'agent'), 'regular tokens are listed without policy tokens')
    assert.equal((await call('POST', base, tokens.admin.authorization, { name: 'AGENT', opa_policy: 'allow := true' })).statusCode, 409)

    assert.equal((await call('DELETE', `/organization/${organization.id}/apiToken/${body.id}`, tokens.admin.authorization)).statusCode, 404)
    assert.equal((await call('DELETE', `${base}/${tokens.read.id ?? body.id}`, tokens.write.authorization)).statusCode, 403)
    assert.equal((await call('DELETE', `${base}/${body.id}`, tokens.admin.authorization)).statusCode, 204)
    assert.equal((await call('GET', `/organization/${organization.id}/project`, agent)).statusCode, 401, 'deleted: it stops working')
    assert.equal((await call('DELETE', `${base}/${body.id}`, tokens.admin.authorization)).statusCode, 404)
  })

  it('refuses policies outside the rego Berth evaluates, naming the line', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const base = `/organization/${organization.id}/policyApiToken`
    for (const [policy, line] of [
      ['package agents\nallow := true', /line 1: no package/],
      ['allow if {\n  http.send({"url": "x"})\n}', /line 2/],
      ['deny := true', /line 1/],
      ['allow if {\n  input.method == "GET"\n', /not closed/],
      ['default allow := false', /must define an `allow` rule/],
      [`allow if input.path == "${' '.repeat(2000)}"`, /line 1: longer than 1000 characters/],
    ] as const) {
      const res = await call('POST', base, tokens.admin.authorization, { name: `p${Math.random()}`, opa_policy: policy })
      assert.equal(res.statusCode, 400, `${policy}: ${res.body}`)
      assert.equal(res.json().errors[0].path, '/opa_policy')
      assert.match(res.json().message, line)
    }
  })

  it('evaluates the subset as rego does', () => {
    const input = { method: 'GET', path: '/project/p1', route: '/project/:projectId', operation_id: 'getProject', params: { projectId: 'p1' } }
    const allows = (policy: string, changes: Partial<typeof input> = {}) => policyAllows(parsePolicy(policy), { ...input, ...changes })
    assert.equal(allows('allow := true'), true)
    assert.equal(allows('default allow := true'), true)
    assert.equal(allows('allow if input.method == "POST"'), false)
    assert.equal(allows('allow if { input.params.projectId == "p1"; endswith(input.route, ":projectId") }'), true)
    assert.equal(allows('allow if input.params.environmentId != "x"'), false, 'an absent field fails the expression')
    assert.equal(allows('allow if not input.params.environmentId == "x"'), true, '…and `not` of it holds')
    assert.equal(allows('allow if not input.operation_id in ["deleteProject", "editProject"]'), true)
    assert.equal(allows('allow if not input.operation_id in ["deleteProject", "editProject"]', { operation_id: 'deleteProject' }), false)
    assert.equal(allows('allow if contains(input.path, "proj")\nallow if input.method == "DELETE"', { path: '/x', method: 'DELETE' }), true)
  })
})
