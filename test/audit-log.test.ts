import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Configuration, ProjectMainCallsApi, ProjectsApi } from 'qovery-typescript-axios'
import { createAuditRetention } from '#src/modules/audit/audit-retention.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories, uniqueName } from './helpers/factories.ts'

// Issue 45: the audit log. Every write through the API is recorded in its own transaction, with who
// made it and from where; ADMINs read it with the reference's filters and paging; nobody else.

interface Event {
  id: string
  timestamp: string
  event_type: string
  target_type: string
  target_id: string | null
  target_name: string
  sub_target_type: string | null
  change: string | null
  origin: string
  triggered_by: string
  triggered_by_id: string | null
  project_id: string | null
  project_name: string
  environment_id: string | null
  environment_name: string
  user_agent: string | null
}

interface EventPage {
  links: { previous?: string; next?: string }
  organization_max_limit_reached: boolean
  events: Event[]
}

let t: TestApp
let baseUrl: string

before(async () => {
  t = await createTestApp()
  baseUrl = await t.listen()
})
after(() => t?.close())

const CONSOLE = { 'x-berth-console': '1' }
const TERRAFORM = { 'user-agent': 'terraform-provider-qovery/0.1.0' }

async function send(
  method: 'POST' | 'PUT' | 'DELETE' | 'GET',
  url: string,
  authorization: string,
  payload?: object,
  headers: Record<string, string> = {},
) {
  return t.app.inject({ method, url, headers: { authorization, ...headers }, ...(payload === undefined ? {} : { payload }) })
}

async function page(organizationId: string, authorization: string, query = ''): Promise<EventPage> {
  const res = await send('GET', `/organization/${organizationId}/events${query}`, authorization)
  assert.equal(res.statusCode, 200, res.body)
  return res.json()
}

/** Makes the writes the tests read back, each with its caller and its client. */
async function writes() {
  const make = factories(t.db)
  const { organization, tokens } = await make.organizationWithTokens()
  const admin = tokens.admin.authorization
  const write = tokens.write.authorization
  // The official client, with its own user agent.
  const client = new Configuration({ basePath: baseUrl, apiKey: `Token ${tokens.write.token}` })
  const projectName = uniqueName('shop')
  const project = (await new ProjectsApi(client).createProject(organization.id, { name: projectName })).data
  await new ProjectMainCallsApi(client).editProject(project.id, { name: `${projectName} renamed` })
  const environment = await send('POST', `/project/${project.id}/environment`, write, { name: 'staging', mode: 'STAGING' }, CONSOLE)
  assert.equal(environment.statusCode, 201, environment.body)
  const environmentId = environment.json().id as string
  const secret = await send(
    'POST',
    '/variable',
    write,
    { key: 'DB_PASSWORD', value: 'hunter2-s3cret', is_secret: true, variable_scope: 'ENVIRONMENT', variable_parent_id: environmentId },
    TERRAFORM,
  )
  assert.equal(secret.statusCode, 201, secret.body)
  const deploy = await send('POST', `/environment/${environmentId}/deploy`, tokens.deploy.authorization)
  assert.equal(deploy.statusCode, 202, deploy.body)
  const gitToken = await send('POST', `/organization/${organization.id}/gitToken`, write, {
    name: 'gh',
    type: 'GITHUB',
    token: 'ghp_tokenvalue12345',
  })
  assert.equal(gitToken.statusCode, 201, gitToken.body)
  // Refused in its transaction (the name is taken): nothing to record.
  const refused = await send('POST', `/organization/${organization.id}/gitToken`, write, { name: 'gh', type: 'GITHUB', token: 'ghp_other' })
  assert.equal(refused.statusCode, 409)
  const deleted = await send('DELETE', `/organization/${organization.id}/gitToken/${gitToken.json().id}`, admin)
  assert.equal(deleted.statusCode, 204)
  return { organization, tokens, project, projectName, environmentId, gitTokenId: gitToken.json().id as string, deployment: deploy.json() }
}

describe('the audit log', () => {
  it('lists every write in order, newest first, with who made it, from where, and the secret masked', async () => {
    const w = await writes()
    const { events } = await page(w.organization.id, w.tokens.admin.authorization, '?pageSize=100')
    const row = (event: Event) => [event.event_type, event.target_type, event.sub_target_type ?? '', event.origin, event.triggered_by]
    // Creating the first environment also makes the organization's default cluster and the
    // environment's built-in variables: writes of the same request, recorded with it.
    const madeWithTheEnvironment = (event: Event) => event.target_type === 'CLUSTER' || event.sub_target_type === 'VARIABLE'
    assert.deepEqual(
      events
        .filter((event) => !madeWithTheEnvironment(event))
        .map(row)
        .reverse(),
      [
        ['CREATE', 'PROJECT', '', 'API', w.tokens.write.name],
        ['UPDATE', 'PROJECT', '', 'API', w.tokens.write.name],
        ['CREATE', 'ENVIRONMENT', '', 'CONSOLE', w.tokens.write.name],
        ['CREATE', 'ENVIRONMENT', 'SECRET', 'IAC_PROVIDER', w.tokens.write.name],
        ['TRIGGER_DEPLOY', 'ENVIRONMENT', '', 'API', w.tokens.deploy.name],
        ['CREATE', 'ORGANIZATION', 'GIT_TOKEN', 'API', w.tokens.write.name],
        ['DELETE', 'ORGANIZATION', 'GIT_TOKEN', 'API', w.tokens.admin.name],
      ],
    )
    const withTheEnvironment = events.filter(madeWithTheEnvironment)
    assert.ok(withTheEnvironment.length > 0)
    for (const event of withTheEnvironment)
      assert.deepEqual(row(event).slice(0, 1).concat(row(event).slice(3)), ['CREATE', 'CONSOLE', w.tokens.write.name])
    events.reverse()
    const [created, renamed] = events.slice(0, 2)
    assert.equal(created!.target_id, w.project.id)
    assert.equal(created!.triggered_by_id, w.tokens.write.id)
    assert.equal(created!.project_id, w.project.id)
    assert.match(created!.user_agent ?? '', /axios/, "the official client's user agent")
    assert.deepEqual(JSON.parse(renamed!.change!), {
      id: w.project.id,
      name: `${w.projectName} renamed`,
      before: { name: w.projectName },
      after: { name: `${w.projectName} renamed` },
    })
    const secret = events.find((event) => event.sub_target_type === 'SECRET')!
    assert.equal(secret.environment_id, w.environmentId)
    assert.equal(secret.environment_name, 'staging')
    assert.equal(secret.project_name, `${w.projectName} renamed`)
    assert.equal(JSON.parse(secret.change!).name, 'DB_PASSWORD')
    const everything = JSON.stringify(events)
    assert.equal(everything.includes('hunter2-s3cret'), false, 'a secret value never appears')
    assert.equal(everything.includes('ghp_tokenvalue12345'), false, 'nor a git token')
    assert.ok(everything.includes('********'))
    const deploy = events.find((event) => event.event_type === 'TRIGGER_DEPLOY')!
    assert.equal(JSON.parse(deploy.change!).execution_id, w.deployment.execution_id)
    // Oldest first since reversed above.
    for (let i = 1; i < events.length; i++) assert.ok(events[i - 1]!.timestamp <= events[i]!.timestamp)
  })

  it('filters by event type, target, sub-target, origin, who, project, environment and time', async () => {
    const w = await writes()
    const admin = w.tokens.admin.authorization
    const only = async (query: string) => (await page(w.organization.id, admin, `?pageSize=100&${query}`)).events
    const all = await only('')
    const expect = async (query: string, keep: (event: Event) => boolean) => {
      const got = await only(query)
      assert.deepEqual(
        got.map((event) => event.id),
        all.filter(keep).map((event) => event.id),
        query,
      )
      assert.ok(got.length > 0, query)
    }
    await expect('eventType=UPDATE', (event) => event.event_type === 'UPDATE')
    await expect(`targetType=PROJECT&targetId=${w.project.id}`, (event) => event.target_id === w.project.id)
    await expect('subTargetType=SECRET', (event) => event.sub_target_type === 'SECRET')
    await expect('origin=CONSOLE', (event) => event.origin === 'CONSOLE')
    await expect('origin=IAC_PROVIDER', (event) => event.origin === 'IAC_PROVIDER')
    await expect(`triggeredBy=${encodeURIComponent(w.tokens.admin.name)}`, (event) => event.triggered_by === w.tokens.admin.name)
    await expect(`triggeredBy=${w.tokens.deploy.id}`, (event) => event.triggered_by === w.tokens.deploy.name)
    await expect(`serviceProjectId=${w.project.id}`, (event) => event.project_id === w.project.id)
    await expect(`serviceEnvironmentId=${w.environmentId}`, (event) => event.environment_id === w.environmentId)
    const middle = all[3]!.timestamp
    const newer = await only(`fromTimestamp=${encodeURIComponent(middle)}`)
    const older = await only(`toTimestamp=${encodeURIComponent(middle)}`)
    assert.equal(newer.length + older.length, all.length)
    const nanos = `${BigInt(Date.parse(middle)) * 1_000_000n}`
    assert.ok((await only(`fromTimestamp=${nanos}`)).length >= newer.length, 'nanoseconds since 1970 too')
    const bad = await send('GET', `/organization/${w.organization.id}/events?fromTimestamp=yesterday`, admin)
    assert.equal(bad.statusCode, 400)
  })

  it('pages with continueToken and stepBackToken through links, with the filters kept', async () => {
    const w = await writes()
    const admin = w.tokens.admin.authorization
    const all = (await page(w.organization.id, admin, '?pageSize=100')).events.map((event) => event.id)
    const pages: EventPage[] = [await page(w.organization.id, admin, '?pageSize=3')]
    assert.equal(pages[0]!.links.previous, undefined, 'the newest page has nothing newer')
    while (pages.at(-1)!.links.next) {
      const res = await send('GET', pages.at(-1)!.links.next!, admin)
      assert.equal(res.statusCode, 200, res.body)
      pages.push(res.json())
    }
    assert.deepEqual(
      pages.flatMap((one) => one.events.map((event) => event.id)),
      all,
    )
    assert.ok(pages.length >= 3)
    assert.ok(pages.slice(0, -1).every((one) => one.events.length === 3))
    const back = await send('GET', pages[2]!.links.previous!, admin)
    assert.equal(back.statusCode, 200, back.body)
    assert.deepEqual(
      back.json().events.map((event: Event) => event.id),
      pages[1]!.events.map((event) => event.id),
    )
    const filtered = await page(w.organization.id, admin, '?pageSize=1&targetType=PROJECT')
    assert.match(filtered.links.next!, /targetType=PROJECT/)
    const second = await send('GET', filtered.links.next!, admin)
    assert.deepEqual(
      second.json().events.map((event: Event) => event.event_type),
      ['CREATE'],
    )
  })

  it('lists the targets that can be filtered on', async () => {
    const w = await writes()
    const res = await send('GET', `/organization/${w.organization.id}/targets?targetType=PROJECT`, w.tokens.admin.authorization)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().targets, [{ id: w.project.id, name: `${w.projectName} renamed` }])
    const environments = await send('GET', `/organization/${w.organization.id}/targets?targetLevelToFetch=ENVIRONMENT`, w.tokens.admin.authorization)
    assert.deepEqual(environments.json().targets, [{ id: w.environmentId, name: 'staging' }])
  })

  it('is read by ADMINs of the organization only, and cannot be changed through the API', async () => {
    const w = await writes()
    for (const role of ['write', 'deploy', 'read'] as const) {
      const res = await send('GET', `/organization/${w.organization.id}/events`, w.tokens[role].authorization)
      assert.equal(res.statusCode, 403, role)
    }
    const other = await factories(t.db).organizationWithTokens()
    const foreign = await send('GET', `/organization/${w.organization.id}/events`, other.tokens.admin.authorization)
    assert.equal(foreign.statusCode, 404)
    const theirs = await page(other.organization.id, other.tokens.admin.authorization, '?pageSize=100')
    assert.equal(theirs.events.length, 0, 'another organization sees none of it')
    const id = (await page(w.organization.id, w.tokens.admin.authorization)).events[0]!.id
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      for (const url of [`/organization/${w.organization.id}/events`, `/organization/${w.organization.id}/events/${id}`]) {
        const res = await send(method, url, w.tokens.admin.authorization, method === 'DELETE' ? undefined : {})
        assert.ok([404, 405].includes(res.statusCode), `${method} ${url}: ${res.statusCode}`)
      }
    }
  })
})

describe('the audit log retention', () => {
  it('prunes events older than BERTH_AUDIT_RETENTION_DAYS when the runner starts', async () => {
    const { organization } = await factories(t.db).organizationWithTokens()
    const event = (name: string, ageDays: number) => ({
      organizationId: organization.id,
      createdAt: new Date(Date.now() - ageDays * 86_400_000),
      eventType: 'CREATE',
      targetType: 'PROJECT',
      targetName: name,
      origin: 'API',
      triggeredBy: 'someone',
      projectName: '',
      environmentName: '',
    })
    await t.db
      .insertInto('auditEvents')
      .values([event('too old', 31), event('kept', 29)])
      .execute()
    const retention = createAuditRetention({ db: t.db, retentionDays: 30, log: { warn() {} } })
    retention.start()
    await retention.stop()
    const left = await t.db.selectFrom('auditEvents').select('targetName').where('organizationId', '=', organization.id).execute()
    assert.deepEqual(
      left.map((row) => row.targetName),
      ['kept'],
    )
  })
})

describe('the audit log with the reference enum words', () => {
  let reference: TestApp
  before(async () => {
    reference = await createTestApp({ BERTH_ENUM_WORDS: 'reference' })
  })
  after(() => reference?.close())

  it("says TERRAFORM_PROVIDER for Terraform's changes", async () => {
    const { organization, tokens } = await factories(reference.db).organizationWithTokens()
    const created = await reference.app.inject({
      method: 'POST',
      url: `/organization/${organization.id}/project`,
      headers: { authorization: tokens.admin.authorization, ...TERRAFORM },
      payload: { name: uniqueName('tf') },
    })
    assert.ok([200, 201].includes(created.statusCode), created.body)
    const res = await reference.app.inject({
      method: 'GET',
      url: `/organization/${organization.id}/events?origin=TERRAFORM_PROVIDER`,
      headers: { authorization: tokens.admin.authorization },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(
      res.json().events.map((event: Event) => event.origin),
      ['TERRAFORM_PROVIDER'],
    )
  })
})
