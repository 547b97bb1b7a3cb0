import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type AnyService, fieldText, fieldValue, kindOfSegment, setAt, valueAt } from '../console/src/kinds.ts'
import { followServiceLogs, instancesOf, matches, type ServiceLogLine } from '../console/src/service-log-stream.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'
import { terraformRequest } from './helpers/terraform-requests.ts'

// The console's table of kinds (console/src/kinds.ts) against the real API: the body each kind's
// form sends (what was read, with the form's fields as typed) is one the API takes as it is, so
// saving an unchanged form changes nothing; a bad field comes back at its pointer; a stale
// If-Match is a 412. And the service logs follower's pure parts (console/src/service-log-stream.ts).

let t: TestApp
let make: ReturnType<typeof factories>

before(async () => {
  t = await createTestApp()
  make = factories(t.db)
})

after(() => t?.close())

/** The body the form sends with its fields as read into it (from the edit request): numbers typed back as numbers, as service-form.tsx does. */
/** A kind's path segment, as the console's routes name it. */
type KindName = 'application' | 'container' | 'job' | 'database' | 'helm' | 'terraform'
const specOf = (kind: KindName) => kindOfSegment(kind)!

function formBody(kind: KindName, service: AnyService): Record<string, unknown> {
  const spec = specOf(kind)
  const body = structuredClone(spec.editRequest(service))
  for (const field of spec.form(service)) setAt(body, field.path, fieldValue(field, fieldText(field, valueAt(spec.editRequest(service), field.path))))
  return body
}

/** Drops what an edit changes by itself (its time of update). */
const comparable = (service: Record<string, unknown>) => {
  const { updated_at: _updated, ...rest } = service
  return rest
}

async function world() {
  const w = await make.environmentWithTokens()
  const environmentId = w.environment.id
  const registry = await make.containerRegistry(w.organization.id)
  const container = await make.containerService(environmentId, {
    registry_id: registry.id,
    ports: [{ name: 'http', internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP' }],
  })
  const job = await make.job(environmentId, { source: { image: { image_name: 'acme/job', tag: '1', registry_id: registry.id } } })
  const cron = await make.job(environmentId, {
    schedule: { cronjob: { scheduled_at: '0 3 * * *', timezone: 'Europe/Paris', arguments: ['run'] } },
    source: { image: { image_name: 'acme/cron', tag: '2', registry_id: registry.id } },
  })
  const database = await make.database(environmentId)
  const helm = await make.helmService(environmentId, { arguments: ['--wait'], values_override: { set: [['replicaCount', '2']] } })
  const application = await t.app.inject({
    method: 'POST',
    url: `/environment/${environmentId}/application`,
    headers: { authorization: w.tokens.write.authorization },
    payload: {
      name: 'web',
      git_repository: { url: 'https://github.com/acme/web', branch: 'main', root_path: '/', provider: 'GITHUB' },
      build_mode: 'DOCKER',
      dockerfile_path: 'Dockerfile',
      healthchecks: {},
      ports: [{ name: 'web', internal_port: 3000, external_port: 443, publicly_accessible: true, protocol: 'HTTP' }],
    },
  })
  assert.equal(application.statusCode, 201, application.body)
  const terraform = await t.app.inject({
    method: 'POST',
    url: `/environment/${environmentId}/terraform`,
    headers: { authorization: w.tokens.write.authorization },
    payload: terraformRequest(),
  })
  assert.equal(terraform.statusCode, 201, terraform.body)
  const ids: [KindName, string][] = [
    ['container', container.id],
    ['job', job.id],
    ['job', cron.id],
    ['database', database.id],
    ['helm', helm.id],
    ['application', application.json().id],
    ['terraform', terraform.json().id],
  ]
  return { ...w, ids }
}

describe('the console form of each kind', () => {
  it('sends back what it read: an unchanged form saves with 200 and changes nothing', async () => {
    const w = await world()
    for (const [kind, id] of w.ids) {
      const read = await t.app.inject({ method: 'GET', url: `/${kind}/${id}`, headers: { authorization: w.tokens.write.authorization } })
      assert.equal(read.statusCode, 200, read.body)
      const saved = await t.app.inject({
        method: 'PUT',
        url: `/${kind}/${id}`,
        headers: { authorization: w.tokens.write.authorization, 'if-match': read.headers.etag as string },
        payload: formBody(kind, read.json()),
      })
      assert.equal(saved.statusCode, 200, `${kind}: ${saved.body}`)
      assert.deepEqual(comparable(saved.json()), comparable(read.json()), `${kind}: the save changed nothing`)
    }
  })

  it('gets each field error at the pointer its form field has, and a 412 for an edit made since the read', async () => {
    const w = await world()
    for (const [kind, id] of w.ids) {
      const read = await t.app.inject({ method: 'GET', url: `/${kind}/${id}`, headers: { authorization: w.tokens.write.authorization } })
      const body = formBody(kind, read.json())
      setAt(body, '/name', '')
      setAt(body, '/cpu', 'lots')
      const refused = await t.app.inject({
        method: 'PUT',
        url: `/${kind}/${id}`,
        headers: { authorization: w.tokens.write.authorization },
        payload: body,
      })
      assert.equal(refused.statusCode, 400, refused.body)
      const paths = (refused.json().errors as { path: string }[]).map((e) => e.path)
      const fields = specOf(kind)
        .form(read.json())
        .map((f) => f.path)
      assert.ok(
        paths.some((path) => fields.includes(path)),
        `${kind}: ${JSON.stringify(paths)} names a field of the form (${fields.join(', ')})`,
      )
    }
    const [kind, id] = w.ids[0]!
    const read = await t.app.inject({ method: 'GET', url: `/${kind}/${id}`, headers: { authorization: w.tokens.write.authorization } })
    const first = formBody(kind, read.json())
    setAt(first, '/cpu', 300)
    const theirs = await t.app.inject({
      method: 'PUT',
      url: `/${kind}/${id}`,
      headers: { authorization: w.tokens.write.authorization, 'if-match': read.headers.etag as string },
      payload: first,
    })
    assert.equal(theirs.statusCode, 200, theirs.body)
    const mine = await t.app.inject({
      method: 'PUT',
      url: `/${kind}/${id}`,
      headers: { authorization: w.tokens.write.authorization, 'if-match': read.headers.etag as string },
      payload: formBody(kind, read.json()),
    })
    assert.equal(mine.statusCode, 412, mine.body)
  })
})

const line = (fields: Partial<ServiceLogLine>): ServiceLogLine => ({
  id: fields.id ?? String(Math.random()),
  created_at: '2026-01-01T00:00:00.000Z',
  message: '',
  instance: '0',
  stream: 'stdout',
  ...fields,
})

describe('the console service logs follower', () => {
  it('filters by instance, stream and text, and lists the instances in order', () => {
    const lines = [
      line({ instance: '10', message: 'Ready' }),
      line({ instance: '2', stream: 'stderr', message: 'warning: slow disk' }),
      line({ instance: '0', message: 'tick-1' }),
      line({ instance: null, stream: null, message: 'run 1 exited' }),
    ]
    assert.deepEqual(instancesOf(lines), ['0', '2', '10'])
    const shown = (instance: string, stream: string, search: string) =>
      lines.filter((l) => matches(l, { instance, stream, search })).map((l) => l.message)
    assert.deepEqual(shown('', '', ''), ['Ready', 'warning: slow disk', 'tick-1', 'run 1 exited'])
    assert.deepEqual(shown('2', '', ''), ['warning: slow disk'])
    assert.deepEqual(shown('', 'stderr', ''), ['warning: slow disk'])
    assert.deepEqual(shown('', '', 'READY'), ['Ready'])
  })

  it('goes on after a dropped stream with the last event id, and stops at `end`', async () => {
    const asked: (string | undefined)[] = []
    const bodies = [
      'event: log\nid: p1\ndata: {"id":"a","created_at":"2026-01-01T00:00:00Z","message":"one","instance":"0","stream":"stdout"}\n\n',
      'event: log\nid: p2\ndata: {"id":"b","created_at":"2026-01-01T00:00:01Z","message":"two","instance":"0","stream":"stdout"}\n\nevent: end\ndata: {}\n\n',
    ]
    const got: string[] = []
    const ended = await followServiceLogs({
      path: '/container/x/log/follow',
      open: async (_path, headers) => {
        asked.push(headers['last-event-id'])
        return new Response(bodies.shift() ?? '', { headers: { 'content-type': 'text/event-stream' } })
      },
      onLines: (lines) => got.push(...lines.map((l) => l.message)),
      onState: () => {},
      signal: new AbortController().signal,
      retryMs: 1,
    })
    assert.equal(ended, true)
    assert.deepEqual(got, ['one', 'two'])
    assert.deepEqual(asked, [undefined, 'p1'])
  })
})
