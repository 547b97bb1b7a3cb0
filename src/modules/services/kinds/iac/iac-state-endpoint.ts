import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { IacStatesRepository, Locked, LockInfo } from './iac-states.repository.ts'

// The state endpoint of one IAC run (docs/iac.md, "State"): the engine's documented http backend
// (GET and POST the state, LOCK and UNLOCK it) over one service's row of iac_states, on a listener
// of its own bound to the run network's gateway, for the run's lifetime, with a credential made for
// the run. It serves nothing else: the run's code holds no Berth credential and reaches no other
// part of Berth through it. A lock the run took and did not release (the run was killed: its time
// limit, a cancel) is released when the endpoint closes, as the pg backend's lock went with its
// session; a lock taken elsewhere is left.

/** The one path the endpoint answers. */
const STATE_PATH = '/state'
/** The largest state document accepted; the engine's states are JSON, a large one a few MiB. */
const MAX_STATE_BYTES = 64 * 1024 * 1024
/** The user name of a run's credential; the password is what is secret. */
const RUN_USER = 'berth-iac-run'

export interface StateEndpoint {
  /** The engine's environment variables that configure its http backend (TF_HTTP_*). */
  env: Record<string, string>
  /** The run's password: the logs must not show it. */
  secret: string
  close(): Promise<void>
}

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_STATE_BYTES) throw new Refused(413, `a state is at most ${MAX_STATE_BYTES} bytes`)
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function lockInfoOf(text: string): LockInfo {
  try {
    const info = JSON.parse(text) as unknown
    if (typeof info === 'object' && info !== null && !Array.isArray(info)) return info as LockInfo
  } catch {}
  throw new Refused(400, 'the lock info is not a JSON object')
}

function authorized(req: IncomingMessage, password: string): boolean {
  const header = req.headers.authorization ?? ''
  if (!header.startsWith('Basic ')) return false
  const expected = Buffer.from(`${RUN_USER}:${password}`)
  const given = Buffer.from(Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8'))
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** A lock held by another: 423 with its info, as the http backend reads it (the engine then names its ID). */
function answerLocked(res: ServerResponse, outcome: Locked): void {
  if (outcome.ok) {
    res.writeHead(200).end()
    return
  }
  res.writeHead(423, { 'content-type': 'application/json' }).end(JSON.stringify(outcome.held))
}

/**
 * Opens the state endpoint of a run of `serviceId` on `host` (the run network's gateway), on a
 * port the system picks; rejects when it cannot listen there.
 */
export async function openStateEndpoint(states: IacStatesRepository, serviceId: string, host: string): Promise<StateEndpoint> {
  const password = randomBytes(32).toString('hex')
  /** The locks this run took and holds. */
  const taken = new Set<string>()
  const server = createServer((req, res) => {
    const handle = async () => {
      if (!authorized(req, password)) throw new Refused(401, 'the run state endpoint requires the run credential')
      const url = new URL(req.url ?? '/', 'http://state')
      if (url.pathname !== STATE_PATH) throw new Refused(404, 'only the state is served here')
      switch (req.method) {
        case 'GET': {
          const state = await states.read(serviceId)
          if (state === undefined) res.writeHead(404).end()
          else res.writeHead(200, { 'content-type': 'application/json' }).end(state)
          return
        }
        case 'POST': {
          const state = await body(req)
          return answerLocked(res, await states.write(serviceId, state, url.searchParams.get('ID') ?? undefined))
        }
        case 'LOCK': {
          const info = lockInfoOf(await body(req))
          const outcome = await states.lock(serviceId, info)
          if (outcome.ok && typeof info.ID === 'string') taken.add(info.ID)
          return answerLocked(res, outcome)
        }
        case 'UNLOCK': {
          // force-unlock sends no lock info: whatever lock is held is released.
          const text = await body(req)
          const id = text.trim() === '' ? undefined : lockInfoOf(text).ID
          const outcome = await states.unlock(serviceId, typeof id === 'string' ? id : undefined)
          if (outcome.ok && typeof id === 'string') taken.delete(id)
          return answerLocked(res, outcome)
        }
        default:
          throw new Refused(405, 'GET, POST, LOCK or UNLOCK')
      }
    }
    handle().catch((error: unknown) => {
      const status = error instanceof Refused ? error.status : 500
      const message = error instanceof Refused ? error.message : 'the state could not be read or written'
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain' })
      res.end(message)
      req.resume()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host, port: 0 }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  const address = `http://${host.includes(':') ? `[${host}]` : host}:${port}${STATE_PATH}`
  return {
    env: {
      TF_HTTP_ADDRESS: address,
      TF_HTTP_LOCK_ADDRESS: address,
      TF_HTTP_UNLOCK_ADDRESS: address,
      TF_HTTP_USERNAME: RUN_USER,
      TF_HTTP_PASSWORD: password,
    },
    secret: password,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      for (const id of taken) await states.unlock(serviceId, id)
    },
  }
}
