import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { ApiError } from '../console/src/errors.ts'
import { followLogs, followPath, isAfter, MAX_LIVE_FOLLOWS, MAX_RETRY_MS, type OpenStream, takeLiveSlot } from '../console/src/log-stream.ts'
import { readEventStream, type SseEvent, SseParser } from '../console/src/sse.ts'
import type { LogLine } from '../console/src/types.ts'

// The console's reading of server-sent events (console/src/sse.ts) and its following of a
// deployment's logs over them (console/src/log-stream.ts), without a browser or a server.
// test/console.e2e.test.ts follows real deployments in Chromium.

const parse = (...pieces: string[]) => {
  const parser = new SseParser()
  return pieces.flatMap((piece) => parser.push(piece))
}

const encoder = new TextEncoder()

/** A body that gives `items` one read each: bytes, text, or an error that breaks the stream there. */
function body(items: (string | Uint8Array | Error)[], onCancel?: () => void): ReadableStream<Uint8Array> {
  let next = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const item = items[next++]
      if (item === undefined) controller.close()
      else if (item instanceof Error) controller.error(item)
      else controller.enqueue(typeof item === 'string' ? encoder.encode(item) : item)
    },
    cancel() {
      onCancel?.()
    },
  })
}

describe('console SSE parser', () => {
  it('dispatches an event at a blank line, with its type, data and id; `message` when it names no type', () => {
    assert.deepEqual(parse('event: log\nid: 7\ndata: {"a":1}\n\ndata: plain\n\n'), [
      { type: 'log', data: '{"a":1}', id: '7' },
      { type: 'message', data: 'plain', id: '7' },
    ])
  })

  it('joins data lines with line feeds and strips one space after the colon only', () => {
    assert.deepEqual(parse('data: one\ndata:two\ndata:  three\ndata\n\n'), [{ type: 'message', data: 'one\ntwo\n three\n', id: '' }])
  })

  it('ignores comments, unknown fields and an event without data, whose id it keeps all the same', () => {
    assert.deepEqual(parse(': keep-alive\n\nfoo: bar\nid: 3\n\nevent: end\ndata: {}\n\n'), [{ type: 'end', data: '{}', id: '3' }])
  })

  it('keeps the last id for the events after it, resets it with an empty id, and ignores an id holding NUL', () => {
    assert.deepEqual(parse('id: 1\ndata: a\n\ndata: b\n\nid: 2\0\ndata: c\n\nid\ndata: d\n\n'), [
      { type: 'message', data: 'a', id: '1' },
      { type: 'message', data: 'b', id: '1' },
      { type: 'message', data: 'c', id: '1' },
      { type: 'message', data: 'd', id: '' },
    ])
    const parser = new SseParser()
    parser.push('id: 41\ndata: x\n\nid: 42\n')
    assert.equal(parser.lastEventId, '41', 'an id counts once its event is dispatched')
    parser.push('\n')
    assert.equal(parser.lastEventId, '42')
  })

  it('takes a retry of digits only', () => {
    const parser = new SseParser()
    parser.push('retry: 1500\n\nretry: 2s\n\n')
    assert.equal(parser.retry, 1500)
  })

  it('ends lines at CR LF, LF or CR, a CR LF split between two pieces counting once', () => {
    const expected = [{ type: 'message', data: 'a\nb', id: '' }]
    assert.deepEqual(parse('data: a\r\ndata: b\r\n\r\n'), expected)
    assert.deepEqual(parse('data: a\rdata: b\r\r'), expected)
    assert.deepEqual(parse('data: a\r', '\ndata: b\r', '\n\r', '\n'), expected)
    assert.deepEqual(parse('data: a\r', '\r'), [{ type: 'message', data: 'a', id: '' }], 'CR then CR is a line then a blank line')
  })

  it('drops a byte order mark at the start of the stream only: later, it makes an unknown field', () => {
    assert.deepEqual(parse('', '\uFEFFdata: a\n\n', '\uFEFFdata: b\n\n'), [{ type: 'message', data: 'a', id: '' }])
  })

  it('gives the same events however the stream is cut into pieces', () => {
    const field = fc.constantFrom('data', 'event', 'id', 'retry', ':', 'other')
    const value = fc.string({ unit: fc.constantFrom('a', 'é', ' ', ':', '1', '{', '"', '😀') })
    const ending = fc.constantFrom('\n', '\r\n', '\r')
    const line = fc.tuple(field, value, ending).map(([f, v, e]) => `${f}:${v}${e}`)
    const stream = fc.array(fc.oneof(line, ending), { maxLength: 40 }).map((parts) => parts.join(''))
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 10 }), (text, cuts) => {
        const at = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b)
        const pieces = [0, ...at].map((start, index) => text.slice(start, at[index] ?? text.length))
        assert.deepEqual(parse(...pieces), parse(text))
        assert.deepEqual(parse(...text), parse(text), 'one character at a time')
      }),
    )
  })
})

describe('console SSE reading of a fetch body', () => {
  it('decodes UTF-8 split between reads and drops an event the stream ends before finishing', async () => {
    const bytes = encoder.encode('data: café 😀\n\ndata: unfinished\n')
    // Cut inside the é and inside the emoji.
    const pieces = [bytes.slice(0, 9), bytes.slice(9, 14), bytes.slice(14)]
    const seen: SseEvent[] = []
    const ended = await readEventStream(body(pieces), new SseParser(), (events) => {
      seen.push(...events)
      return true
    })
    assert.equal(ended, true)
    assert.deepEqual(seen, [{ type: 'message', data: 'café 😀', id: '' }])
  })

  it('stops reading and cancels the body when told to', async () => {
    let cancelled = false
    const stop = await readEventStream(
      body(['event: end\ndata: {}\n\n', 'data: never read\n\n'], () => (cancelled = true)),
      new SseParser(),
      () => false,
    )
    assert.equal(stop, false)
    assert.equal(cancelled, true)
  })

  it('throws what breaks the stream', async () => {
    await assert.rejects(
      readEventStream(body(['data: a\n\n', new TypeError('network error')]), new SseParser(), () => true),
      /network error/,
    )
  })
})

const line = (id: number, message = `line ${id}`): LogLine => ({
  id: String(id),
  type: 'INFO',
  timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, id)).toISOString(),
  details: {
    organization_id: 'org',
    cluster_id: 'cluster',
    execution_id: 'execution',
    transmitter: { id: 'api', name: 'api', type: 'HELM' },
    stage: { step: 'install', id: null, name: 'HELM DEFAULT' },
  },
  error: null,
  message: { safe_message: message },
})
const logEvent = (logLine: LogLine) => `event: log\nid: ${logLine.id}\ndata: ${JSON.stringify(logLine)}\n\n`
const END = 'event: end\ndata: {}\n\n'

/** A server of scripted answers: each call of `open` takes the next; records the headers it was sent. */
function scripted(answers: ((string | Error)[] | Error)[]) {
  const requests: { path: string; headers: Record<string, string> }[] = []
  const open: OpenStream = async (path, headers) => {
    requests.push({ path, headers })
    const answer = answers.shift()
    if (answer === undefined) throw new Error('no more answers scripted')
    if (answer instanceof Error) throw answer
    return new Response(body(answer))
  }
  return { open, requests }
}

async function follow(open: OpenStream, signal = new AbortController().signal) {
  const lines: LogLine[] = []
  const states: string[] = []
  const sleeps: number[] = []
  const ended = await followLogs({
    environmentId: 'env-1',
    executionId: 'run 1',
    open,
    signal,
    onLines: (more) => lines.push(...more),
    onState: (state) => states.push(state),
    sleep: async (ms) => {
      sleeps.push(ms)
    },
  })
  return { ended, ids: lines.map((l) => l.id), states, sleeps }
}

describe('console log following', () => {
  it('gives the lines of the stream in order until its end', async () => {
    const server = scripted([[logEvent(line(1)) + logEvent(line(2)), `: comment\n\n${logEvent(line(3))}`, END]])
    const result = await follow(server.open)
    assert.deepEqual(result, { ended: true, ids: ['1', '2', '3'], states: ['connecting', 'live'], sleeps: [] })
    assert.deepEqual(server.requests, [{ path: followPath('env-1', 'run 1'), headers: {} }])
    assert.equal(server.requests[0]!.path, '/environment/env-1/logs/follow?version=run%201')
  })

  it('reconnects with Last-Event-ID when the stream ends or breaks before its end, giving no line twice', async () => {
    const server = scripted([
      [logEvent(line(8)), logEvent(line(9))],
      // The server starts after Last-Event-ID; a line at or before it is not given again all the same.
      [logEvent(line(9)), logEvent(line(10)), new TypeError('network error')],
      new TypeError('failed to fetch'),
      [logEvent(line(11)), END],
    ])
    const result = await follow(server.open)
    assert.equal(result.ended, true)
    assert.deepEqual(result.ids, ['8', '9', '10', '11'])
    assert.deepEqual(
      server.requests.map((r) => r.headers['last-event-id']),
      [undefined, '9', '10', '10'],
    )
    assert.deepEqual(result.states, ['connecting', 'live', 'reconnecting', 'live', 'reconnecting', 'reconnecting', 'live'])
    // Back to the first wait after each reconnection that brought lines; doubled after one that brought none.
    assert.deepEqual(result.sleeps, [500, 500, 1000])
  })

  it('waits longer after each reconnection that brings nothing, up to a limit', async () => {
    const server = scripted([...Array.from({ length: 6 }, () => new ApiError(503, 'unavailable', 'service_unavailable')), [END]])
    const result = await follow(server.open)
    assert.equal(result.ended, true)
    assert.deepEqual(result.sleeps, [500, 1000, 2000, 4000, MAX_RETRY_MS, MAX_RETRY_MS])
  })

  it('gives up on an error answer that will not go away, such as a deployment that is gone', async () => {
    const server = scripted([[logEvent(line(1))], new ApiError(404, 'deployment not found', 'not_found')])
    await assert.rejects(follow(server.open), (error: unknown) => error instanceof ApiError && error.status === 404)
    assert.equal(server.requests.length, 2)
  })

  it('stops, without reconnecting, when aborted', async () => {
    const stop = new AbortController()
    const open: OpenStream = async (_path, _headers, signal) => {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(logEvent(line(1))))
          signal.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')))
        },
      })
      return new Response(stream)
    }
    const lines: string[] = []
    const following = followLogs({
      environmentId: 'e',
      executionId: 'x',
      open,
      signal: stop.signal,
      onLines: (more) => {
        lines.push(...more.map((l) => l.id))
        stop.abort()
      },
      onState: () => {},
    })
    assert.equal(await following, false)
    assert.deepEqual(lines, ['1'])
  })

  it('compares line ids as numbers', () => {
    assert.equal(isAfter('10', '9'), true)
    assert.equal(isAfter('9', '10'), false)
    assert.equal(isAfter('9', '9'), false)
    assert.equal(isAfter('1', undefined), true)
    assert.equal(isAfter('123456789012345678', '123456789012345677'), true)
  })

  it(`follows at most ${MAX_LIVE_FOLLOWS} deployments live at once, a place freed once however often released`, () => {
    const releases = Array.from({ length: MAX_LIVE_FOLLOWS }, () => takeLiveSlot())
    assert.ok(releases.every((release) => release !== null))
    assert.equal(takeLiveSlot(), null)
    releases[0]!()
    releases[0]!()
    const again = takeLiveSlot()
    assert.notEqual(again, null)
    assert.equal(takeLiveSlot(), null, 'a second release of the same place freed nothing')
    again!()
    for (const release of releases.slice(1)) release!()
  })
})
