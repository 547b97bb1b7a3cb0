/**
 * Issue 23: requests Node's HTTP parser refuses (headers over its limit, a malformed request line
 * or header, Content-Length with Transfer-Encoding) never reach Fastify's hooks. Their answers
 * still carry the error shape and the security headers. Sent as raw bytes on real sockets.
 */
import assert from 'node:assert/strict'
import { STATUS_CODES } from 'node:http'
import net from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'

interface RawAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

/** Writes `raw` on a new connection and reads everything the server sends until it closes. */
function sendRaw(port: number, raw: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw))
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')))
    socket.on('data', (chunk) => chunks.push(chunk))
    // The server may close before it has read all we sent (a reset); what it wrote has arrived.
    socket.on('error', (error) => (chunks.length > 0 ? undefined : reject(error)))
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      if (split === -1) return reject(new Error(`no complete answer: ${JSON.stringify(text)}`))
      const [statusLine, ...headerLines] = text.slice(0, split).split('\r\n')
      const headers: Record<string, string> = {}
      for (const line of headerLines) {
        const colon = line.indexOf(':')
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) })
    })
  })
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
}

function assertShaped(answer: RawAnswer, status: number, code: string): void {
  assert.equal(answer.status, status, JSON.stringify(answer))
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) assert.equal(answer.headers[name], value, `${name} in ${JSON.stringify(answer)}`)
  assert.match(answer.headers['content-security-policy'] ?? '', /default-src 'none'/)
  assert.match(answer.headers['content-type'] ?? '', /^application\/json\b/)
  assert.equal(Number(answer.headers['content-length']), Buffer.byteLength(answer.body))
  const body = JSON.parse(answer.body)
  assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'error', 'message', 'request_id', 'status'])
  assert.equal(body.status, status)
  assert.equal(body.error, STATUS_CODES[status])
  assert.equal(body.code, code)
  assert.ok(body.message.length > 0)
  assert.equal(body.detail, body.message)
  assert.equal(body.request_id, answer.headers['x-request-id'])
}

describe("answers to requests Node's HTTP parser refuses", () => {
  let t: TestApp
  let port: number
  before(async () => {
    t = await createTestApp()
    port = Number(new URL(await t.listen()).port)
  })
  after(async () => t.close())

  it('answers headers over the limit with 431 headers_too_large in the error shape', async () => {
    const answer = await sendRaw(port, `GET /organization HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    assertShaped(answer, 431, 'headers_too_large')
  })

  it('answers Content-Length with Transfer-Encoding with 400 bad_request saying why', async () => {
    const answer = await sendRaw(port, 'POST /organization HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')
    assertShaped(answer, 400, 'bad_request')
    assert.match(JSON.parse(answer.body).message, /Content-Length and Transfer-Encoding/)
  })

  for (const [what, raw] of [
    ['a request line that is no HTTP', 'GARBAGE\r\n\r\n'],
    ['a header without a colon', 'GET /organization HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'],
    ['a control character in the path', 'GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['two Content-Length values', 'POST /organization HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab'],
  ]) {
    it(`answers ${what} with 400 bad_request in the error shape`, async () => {
      assertShaped(await sendRaw(port, raw!), 400, 'bad_request')
    })
  }

  it('still answers a well-formed request on a raw socket as usual', async () => {
    const answer = await sendRaw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    assert.equal(answer.status, 200)
    assert.equal(answer.headers['x-content-type-options'], 'nosniff')
  })
})
