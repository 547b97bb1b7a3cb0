import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { ConfigError, loadConfig } from '#src/config.ts'
import { chooseLogFormat } from '#src/platform/logger.ts'
import { TEST_SECRET_KEY, testDatabaseUrl } from './helpers/app.ts'
import { type RunningServer, startServer } from './helpers/process.ts'

const isJsonObject = (line: string) => {
  try {
    const parsed: unknown = JSON.parse(line)
    return typeof parsed === 'object' && parsed !== null
  } catch {
    return false
  }
}

const nonEmptyLines = (text: string) => text.split('\n').filter((line) => line.trim() !== '')

describe('the log format', () => {
  it('is text on a terminal and JSON elsewhere, unless BERTH_LOG_FORMAT names one', () => {
    assert.equal(chooseLogFormat('auto', true), 'pretty')
    assert.equal(chooseLogFormat('auto', false), 'json')
    assert.equal(chooseLogFormat('json', true), 'json')
    assert.equal(chooseLogFormat('json', false), 'json')
    assert.equal(chooseLogFormat('pretty', true), 'pretty')
    assert.equal(chooseLogFormat('pretty', false), 'pretty')
  })

  it('is auto by default, and BERTH_LOG_FORMAT takes auto, json or pretty only', () => {
    assert.equal(loadConfig({}).log.format, 'auto')
    for (const format of ['auto', 'json', 'pretty'] as const) assert.equal(loadConfig({ BERTH_LOG_FORMAT: format }).log.format, format)
    assert.throws(
      () => loadConfig({ BERTH_LOG_FORMAT: 'yaml' }),
      (error: unknown) => error instanceof ConfigError && /BERTH_LOG_FORMAT/.test(error.message),
    )
  })
})

describe('berth serve logs', () => {
  const servers: RunningServer[] = []
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()))
  })

  /** A server on the run's database, API only: this database is shared with other tests. */
  async function serve(env: Record<string, string> = {}): Promise<RunningServer> {
    const server = await startServer({ DATABASE_URL: testDatabaseUrl(), BERTH_SECRET_KEY: TEST_SECRET_KEY, BERTH_RUNNER_IN_SERVE: 'false', ...env })
    servers.push(server)
    const res = await fetch(`${server.baseUrl}/healthz`)
    assert.equal(res.status, 200)
    await res.arrayBuffer()
    return server
  }

  it('JSON lines when stdout is not a terminal, and one listening line', async () => {
    const server = await serve()
    assert.equal(await server.stop(), 0)
    const lines = nonEmptyLines(server.stdout())
    assert.ok(lines.length >= 3, `too few lines to judge:\n${server.stdout()}`)
    for (const line of lines) assert.ok(isJsonObject(line), `not a JSON line: ${line}`)
    const listening = lines.filter((line) => /listening/i.test(line))
    assert.equal(listening.length, 1, `listening lines:\n${listening.join('\n')}`)
    assert.match(listening[0]!, /"msg":"berth listening on http:\/\/127\.0\.0\.1:\d+"/)
  })

  it('text with BERTH_LOG_FORMAT=pretty, though stdout is not a terminal, and one listening line', async () => {
    const server = await serve({ BERTH_LOG_FORMAT: 'pretty' })
    assert.equal(await server.stop(), 0)
    const lines = nonEmptyLines(server.stdout())
    assert.ok(lines.length >= 3, `too few lines to judge:\n${server.stdout()}`)
    for (const line of lines) assert.ok(!isJsonObject(line), `a JSON line: ${line}`)
    const listening = lines.filter((line) => /listening/i.test(line))
    assert.equal(listening.length, 1, `listening lines:\n${listening.join('\n')}`)
    assert.match(listening[0]!, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: berth listening on http:\/\/127\.0\.0\.1:\d+ /)
    assert.ok(
      lines.some((line) => /INFO: request completed 200 /.test(line)),
      `no one-line request completion:\n${server.stdout()}`,
    )
  })
})
