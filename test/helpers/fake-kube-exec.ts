import { createHash } from 'node:crypto'
import type { Duplex } from 'node:stream'
import type { FakeKubeApi } from './fake-kube-api.ts'

// `kubectl exec` against the fake API server (fake-kube-api.ts): the pod exec subresource's
// upgrade to a WebSocket with Kubernetes' channel protocol (v5.channel.k8s.io, v4 too), enough for
// kubectl 1.31 and 1.33: its stdin frames (channel 0) and their end (channel 255), then the
// answer's stdout (1), stderr (2) and status (3). Each exec is recorded with the API's requests.

export interface ExecCall {
  namespace: string
  pod: string
  /** The `command` query parameters, in order: the argv the pod would run. */
  argv: string[]
  stdin: Buffer
}

export interface ExecAnswer {
  stdout?: Buffer | string
  stderr?: string
  exitCode?: number
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

/** A server frame: FIN, binary (or `opcode`), unmasked. */
function frame(payload: Buffer, opcode = 0x2): Buffer {
  const length = payload.length
  const header =
    length < 126
      ? Buffer.from([0x80 | opcode, length])
      : length < 65_536
        ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
        : Buffer.concat([
            Buffer.from([0x80 | opcode, 127]),
            (() => {
              const size = Buffer.alloc(8)
              size.writeBigUInt64BE(BigInt(length))
              return size
            })(),
          ])
  return Buffer.concat([header, payload])
}

/** Reads the client's (masked) frames as they come: each frame's opcode and payload. */
function clientFrames(onFrame: (opcode: number, payload: Buffer) => void) {
  let pending = Buffer.alloc(0)
  return (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk])
    for (;;) {
      if (pending.length < 2) return
      const opcode = pending[0]! & 0x0f
      let length = pending[1]! & 0x7f
      let offset = 2
      if (length === 126) {
        if (pending.length < 4) return
        length = pending.readUInt16BE(2)
        offset = 4
      } else if (length === 127) {
        if (pending.length < 10) return
        length = Number(pending.readBigUInt64BE(2))
        offset = 10
      }
      const masked = (pending[1]! & 0x80) !== 0
      const maskLength = masked ? 4 : 0
      if (pending.length < offset + maskLength + length) return
      const mask = pending.subarray(offset, offset + maskLength)
      const payload = Buffer.from(pending.subarray(offset + maskLength, offset + maskLength + length))
      if (masked) for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ mask[i % 4]!
      pending = pending.subarray(offset + maskLength + length)
      onFrame(opcode, payload)
    }
  }
}

/** Answers the API's pod execs with `answer(call)`; returns the calls made so far. */
export function answerExecs(api: FakeKubeApi, answer: (call: ExecCall) => ExecAnswer | Promise<ExecAnswer>): ExecCall[] {
  const calls: ExecCall[] = []
  api.server.on('upgrade', (req, socket: Duplex) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1')
    const match = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec$/.exec(url.pathname)
    const key = req.headers['sec-websocket-key']
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((protocol) => protocol.trim())
    const protocol = ['v5.channel.k8s.io', 'v4.channel.k8s.io'].find((known) => offered.includes(known))
    api.requests.push({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      contentType: undefined,
      authorization: req.headers.authorization,
      body: '',
    })
    if (!match || !key || !protocol) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')
      return
    }
    const accept = createHash('sha1').update(`${key}${GUID}`).digest('base64')
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
    )
    const call: ExecCall = { namespace: match[1]!, pod: match[2]!, argv: url.searchParams.getAll('command'), stdin: Buffer.alloc(0) }
    calls.push(call)
    const stdinChunks: Buffer[] = []
    let answered = false
    const respond = async () => {
      if (answered) return
      answered = true
      call.stdin = Buffer.concat(stdinChunks)
      const { stdout, stderr, exitCode = 0 } = await answer(call)
      const channel = (number: number, data: Buffer | string) => socket.write(frame(Buffer.concat([Buffer.from([number]), Buffer.from(data)])))
      if (stdout !== undefined && stdout.length > 0) channel(1, stdout)
      if (stderr) channel(2, stderr)
      const status =
        exitCode === 0
          ? { metadata: {}, status: 'Success' }
          : {
              metadata: {},
              status: 'Failure',
              message: `command terminated with non-zero exit code: error executing command, exit status ${exitCode}`,
              reason: 'NonZeroExitCode',
              details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
            }
      channel(3, JSON.stringify(status))
      socket.write(frame(Buffer.from([0x03, 0xe8]), 0x8))
      socket.end()
    }
    const wantsStdin = url.searchParams.get('stdin') === 'true'
    socket.on(
      'data',
      clientFrames((opcode, payload) => {
        if (opcode === 0x8) return void respond()
        if (opcode !== 0x2 && opcode !== 0x1) return
        if (payload[0] === 0) stdinChunks.push(payload.subarray(1))
        // v5: the client's end of a stream; channel 0 is stdin.
        if (payload[0] === 255 && payload[1] === 0) void respond()
      }),
    )
    socket.on('error', () => undefined)
    if (!wantsStdin) void respond()
  })
  return calls
}
