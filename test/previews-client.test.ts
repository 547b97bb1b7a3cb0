import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Configuration, ContainersApi, EnvironmentDeploymentRuleApi, EnvironmentMainCallsApi, WeekdayEnum } from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { rejectedStatus } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'

// Issue 36 through the official client (docs/previews.md): previewContainerEnvironments as the
// client sends it, for a DEPLOY token and refused to a READ one, and the environment deployment
// rule that holds the environment's preview settings.

describe('previews through the official client', () => {
  let t: TestApp
  let basePath: string

  before(async () => {
    t = await createTestApp()
    basePath = await t.listen()
  })
  after(() => t.close())

  const client = (authorization: string) => new Configuration({ basePath, apiKey: authorization })

  it('previewContainerEnvironments makes a preview with the new tag for DEPLOY, and refuses READ', async () => {
    const f = factories(t.db)
    const w = await f.environmentWithTokens({ autoPreview: true })
    await f.containerService(w.environment.id, { name: 'web', image_name: 'acme/api', tag: 'v1' })
    const request = { image_name: 'acme/api', tag: 'v2' }
    assert.equal(
      await rejectedStatus(new ContainersApi(client(w.tokens.read.authorization)).previewContainerEnvironments(w.organization.id, request)),
      403,
    )
    const { status, data } = await new ContainersApi(client(w.tokens.deploy.authorization)).previewContainerEnvironments(w.organization.id, request)
    assert.equal(status, 202)
    const preview = await new EnvironmentMainCallsApi(client(w.tokens.read.authorization)).getEnvironment(data.id)
    assert.equal(preview.data.mode, 'PREVIEW')
    assert.equal(preview.data.name, `${w.environment.name}-v2`)
    const listed = await t.app.inject({
      method: 'GET',
      url: `/environment/${w.environment.id}/previews`,
      headers: { authorization: w.tokens.read.authorization },
    })
    assert.deepEqual(
      listed.json().results.map((row: { environment_id: string; image_tag: string; kind: string }) => [row.environment_id, row.image_tag, row.kind]),
      [[data.id, 'v2', 'CONTAINER_TAG']],
    )
  })

  it("reads and edits the environment deployment rule, its auto_preview the environment's", async () => {
    const f = factories(t.db)
    const w = await f.environmentWithTokens()
    const rules = new EnvironmentDeploymentRuleApi(client(w.tokens.write.authorization))
    const { data: rule } = await rules.getEnvironmentDeploymentRule(w.environment.id)
    assert.equal(rule.id, w.environment.id)
    assert.equal(rule.auto_preview, false)
    const { data: edited } = await rules.editEnvironmentDeploymentRule(w.environment.id, rule.id, {
      auto_preview: true,
      on_demand_preview: true,
      timezone: 'Europe/Paris',
      start_time: '1970-01-01T07:00:00.000Z',
      stop_time: '1970-01-01T20:00:00.000Z',
      weekdays: [WeekdayEnum.MONDAY, WeekdayEnum.FRIDAY],
    })
    assert.deepEqual(
      [edited.auto_preview, edited.on_demand_preview, edited.timezone, edited.weekdays],
      [true, true, 'Europe/Paris', ['MONDAY', 'FRIDAY']],
    )
    const { data: environment } = await new EnvironmentMainCallsApi(client(w.tokens.read.authorization)).getEnvironment(w.environment.id)
    assert.equal((environment as { auto_preview?: boolean }).auto_preview, true)
  })
})
