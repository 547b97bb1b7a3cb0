import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { Principal } from '#src/platform/auth/principal.ts'
import { AppError } from '#src/platform/http/errors.ts'

// Issue 42: how many log follow streams (service logs' `…/log/follow`, a deployment's
// `…/logs/follow`) a process keeps open, per credential, per organization and in all. Each open
// stream holds a connection, memory and an engine or database reader: unbounded, one READ token
// slowed every organization down. Past a limit the stream is refused with 429 (docs/service-logs.md).

/** BERTH_FOLLOW_STREAMS_*: the most streams open at once in one process. */
export interface FollowStreamLimits {
  readonly perCredential: number
  readonly perOrganization: number
  readonly perProcess: number
}

/** The follow routes' 429, in their OpenAPI responses. */
export const FOLLOW_STREAMS_REFUSED = Type.Ref('ErrorResponse', {
  description:
    'too many log streams open for this credential, in this organization or on this server (`rate_limited`, BERTH_FOLLOW_STREAMS_*); retry after `Retry-After` seconds',
  headers: { 'Retry-After': Type.Integer({ description: 'seconds to wait before opening a stream again' }) },
})

/** How long a refused client is told to wait: streams end when their clients leave, any moment. */
const RETRY_AFTER_S = 5

const credentialOf = (principal: Principal) => (principal.kind === 'api_token' ? `token:${principal.apiTokenId}` : `user:${principal.userId}`)

function refused(what: string, setting: string, limit: number): AppError {
  return new AppError('rate_limited', `too many log streams open ${what} (${setting} is ${limit}); close one, or retry in ${RETRY_AFTER_S} s`, {
    headers: { 'retry-after': String(RETRY_AFTER_S) },
  })
}

export function createFollowStreams(limits: FollowStreamLimits) {
  const byCredential = new Map<string, number>()
  const byOrganization = new Map<string, number>()
  let total = 0

  const add = (counts: Map<string, number>, key: string, by: number) => {
    const next = (counts.get(key) ?? 0) + by
    if (next <= 0) counts.delete(key)
    else counts.set(key, next)
  }

  return {
    /**
     * Takes a stream for `principal` following something of `organizationId` (access checked
     * already), or throws 429; the function returned gives it back, once, however often it is called.
     */
    open(principal: Principal, organizationId: string): () => void {
      const credential = credentialOf(principal)
      if ((byCredential.get(credential) ?? 0) >= limits.perCredential) {
        throw refused('for this credential', 'BERTH_FOLLOW_STREAMS_PER_CREDENTIAL', limits.perCredential)
      }
      if ((byOrganization.get(organizationId) ?? 0) >= limits.perOrganization) {
        throw refused('in this organization', 'BERTH_FOLLOW_STREAMS_PER_ORGANIZATION', limits.perOrganization)
      }
      if (total >= limits.perProcess) throw refused('on this server', 'BERTH_FOLLOW_STREAMS_PER_PROCESS', limits.perProcess)
      add(byCredential, credential, 1)
      add(byOrganization, organizationId, 1)
      total++
      let open = true
      return () => {
        if (!open) return
        open = false
        add(byCredential, credential, -1)
        add(byOrganization, organizationId, -1)
        total--
      }
    },

    /** How many streams are open (for tests and the operators' logs). */
    openCount: () => total,
  }
}

export type FollowStreams = ReturnType<typeof createFollowStreams>

/**
 * One follow stream's lifetime, bound to its request: `signal` aborts when the client leaves (it
 * closes the request, or only the response, as an inject does), which also gives back the
 * stream's place under the limits.
 */
export function followerLifetime(streams: FollowStreams | undefined, req: FastifyRequest, reply: FastifyReply) {
  const stop = new AbortController()
  let release = () => {}
  const hangUp = () => {
    stop.abort()
    release()
  }
  req.raw.on('close', hangUp)
  reply.raw.on('close', hangUp)
  return {
    signal: stop.signal,
    /** Takes the stream's place in `organizationId` once access is checked (429 past a limit); none once the client left. */
    admit(organizationId: string) {
      if (streams && !stop.signal.aborted) release = streams.open(req.principal, organizationId)
    },
    /** Gives the place back: the stream ended. */
    release: () => release(),
  }
}
