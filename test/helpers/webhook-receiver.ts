import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A request a receiver got: its path, headers, raw body and the body parsed. */
export interface Received {
  path: string
  headers: IncomingHttpHeaders
  raw: string
  // biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field
  body: any
}

/** What the receiver does with a request: answer with a status, or `hold` it unanswered until it closes. */
export type Answer = number | 'hold'

/**
 * A real HTTP server on loopback that webhooks are delivered to. Each path answers from its own
 * script (the last entry repeats; 200 when none), and every request is kept.
 */
export async function startWebhookReceiver() {
  const received: Received[] = []
  const scripts = new Map<string, Answer[]>()
  const held: ServerResponse[] = []
  const waiters: (() => void)[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const path = req.url ?? '/'
      received.push({ path, headers: req.headers, raw, body: raw ? JSON.parse(raw) : undefined })
      for (const waiter of waiters.splice(0)) waiter()
      const script = scripts.get(path) ?? []
      const answer = script.length > 1 ? script.shift()! : (script[0] ?? 200)
      if (answer === 'hold') {
        held.push(res)
        return
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(`answer ${answer}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    base,
    /** The URL of a path, answering with `answers` in turn. */
    url(path: string, answers: Answer[] = [200]): string {
      scripts.set(path, [...answers])
      return `${base}${path}`
    },
    script(path: string, answers: Answer[]): void {
      scripts.set(path, [...answers])
    },
    at: (path: string) => received.filter((request) => request.path === path),
    /** Resolves once `count` requests reached `path`. */
    async waitFor(path: string, count: number, timeoutMs = 30_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs
      while (received.filter((request) => request.path === path).length < count) {
        if (Date.now() > deadline) throw new Error(`${path} got ${received.filter((request) => request.path === path).length} of ${count} requests`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, 200)
        })
      }
      return received.filter((request) => request.path === path)
    },
    async close(): Promise<void> {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>

/**
 * Checks a request's signatures as a receiver would (docs/webhooks.md): `Qovery-Signature` is the
 * secret, and `webhook-signature` the Standard Webhooks HMAC of id, timestamp and body.
 */
export function verifySignatures(request: Received, secret: string): boolean {
  const id = String(request.headers['webhook-id'])
  const timestamp = String(request.headers['webhook-timestamp'])
  const expected = `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${request.raw}`).digest('base64')}`
  const given = String(request.headers['webhook-signature'] ?? '').split(' ')
  return request.headers['qovery-signature'] === secret && given.includes(expected)
}
