import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { createGuardedAgent } from '#src/modules/git-providers/address-guard.ts'
import type { Db } from '#src/platform/db/database.ts'
import { repeatedFailure } from '#src/platform/repeated-failure.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { bodyOf, deliveryHeaders, recordedRequest } from './webhook-bodies.ts'
import { type AttemptRecord, type ClaimedDelivery, createWebhookOutboxRepository, type NextStep } from './webhook-outbox.repository.ts'
import { targetUrlProblem } from './webhook-targets.ts'

/** The most of a target's answer an attempt keeps. */
const RESPONSE_BYTES = 4096

export interface WebhookDelivererSettings {
  db: Db
  secrets: SecretBox
  allowPrivateUrls: boolean
  timeoutMs: number
  retryDelaysMs: readonly number[]
  concurrency: number
  pollMs: number
  publicUrl: string
  log: { warn(fields: object, message: string): void }
}

/** Whether an answer (0: none came) is worth another try: the target was down or busy, not refusing. */
const retryable = (statusCode: number) => statusCode === 0 || statusCode === 429 || statusCode >= 500

async function readSome(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    chunks.push(chunk)
    size += chunk.length
    if (size >= RESPONSE_BYTES) break
  }
  body.destroy()
  return Buffer.concat(chunks).subarray(0, RESPONSE_BYTES).toString('utf8')
}

/**
 * The runner's part of webhooks: delivers what the outbox holds, each webhook's events one at a
 * time and at most `concurrency` webhooks at once, retrying with the configured waits, recording
 * every attempt. A restart loses nothing: what was being sent is sent again when its lease ends.
 */
export function createWebhookDeliverer(settings: WebhookDelivererSettings) {
  const outbox = createWebhookOutboxRepository(settings.db)
  // Redirects are not followed (undici's request never does) and a target's answer is only recorded.
  const agent = createGuardedAgent(settings.allowPrivateUrls)
  const leaseMs = 2 * settings.timeoutMs + 1_000
  const inFlight = new Set<Promise<void>>()
  let running = false
  let loop: Promise<void> | undefined
  let wakeUp: (() => void) | undefined

  async function attempt(delivery: ClaimedDelivery): Promise<AttemptRecord> {
    const secret = delivery.targetSecretSealed ? settings.secrets.open(delivery.targetSecretSealed) : null
    const body = bodyOf(delivery.kind, delivery, settings.publicUrl)
    const text = JSON.stringify(body)
    const headers = deliveryHeaders(delivery.id, Math.floor(Date.now() / 1000), text, secret)
    const record = (statusCode: number, responseBody: string | null): AttemptRecord => ({
      kind: delivery.kind,
      targetUrl: delivery.targetUrl,
      request: recordedRequest(delivery.targetUrl, headers, body),
      statusCode,
      responseBody,
    })
    const problem = targetUrlProblem(delivery.targetUrl, settings.allowPrivateUrls)
    if (problem) return record(0, `not sent: the target URL ${problem}`)
    try {
      const answer = await request(delivery.targetUrl, {
        method: 'POST',
        headers,
        body: text,
        dispatcher: agent,
        headersTimeout: settings.timeoutMs,
        bodyTimeout: settings.timeoutMs,
        signal: AbortSignal.timeout(settings.timeoutMs),
      })
      return record(answer.statusCode, await readSome(answer.body).catch(() => null))
    } catch (error) {
      return record(0, `no answer: ${(error as Error).message}`)
    }
  }

  function nextStep(delivery: ClaimedDelivery, statusCode: number): NextStep {
    if (statusCode >= 200 && statusCode < 300) return { state: 'DELIVERED' }
    const retryInMs = settings.retryDelaysMs[delivery.attempts]
    return retryable(statusCode) && retryInMs !== undefined ? { state: 'PENDING', retryInMs } : { state: 'FAILED' }
  }

  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    // A webhook disabled since the event sends nothing more; a test is sent anyway.
    if (!delivery.enabled && !delivery.facts.test) return outbox.recordAttempt(delivery, undefined, { state: 'FAILED' })
    const made = await attempt(delivery)
    await outbox.recordAttempt(delivery, made, nextStep(delivery, made.statusCode))
  }

  async function tick(): Promise<void> {
    const free = settings.concurrency - inFlight.size
    if (free <= 0) return
    for (const delivery of await outbox.claim(free, leaseMs)) {
      const work: Promise<void> = deliver(delivery)
        .catch((error: unknown) =>
          settings.log.warn({ err: error, deliveryId: delivery.id }, 'a webhook delivery failed; its lease will let it be tried again'),
        )
        .finally(() => {
          inFlight.delete(work)
          wake()
        })
      inFlight.add(work)
    }
  }

  function wake(): void {
    wakeUp?.()
  }

  async function run(): Promise<void> {
    const polls = repeatedFailure((error) => settings.log.warn({ err: error }, 'could not read the webhooks outbox; will retry'))
    while (running) {
      try {
        await tick()
        polls.succeeded()
      } catch (error) {
        polls.failed(error)
      }
      const poll = new AbortController()
      await new Promise<void>((resolve) => {
        wakeUp = () => {
          poll.abort()
          resolve()
        }
        sleep(settings.pollMs, undefined, { signal: poll.signal }).then(resolve, resolve)
      })
      wakeUp = undefined
    }
  }

  return {
    start(): void {
      if (running) return
      running = true
      loop = run()
    },
    /** Looks at the outbox now rather than at the next poll. */
    wake,
    /** Stops claiming and waits for the attempts under way. */
    async stop(): Promise<void> {
      running = false
      wake()
      await loop
      await Promise.all(inFlight)
    },
  }
}

export type WebhookDeliverer = ReturnType<typeof createWebhookDeliverer>

/** The deliverer of a process that runs deployments, from the server's settings. */
export function createConfiguredWebhookDeliverer(
  config: {
    webhooks: { timeoutMs: number; retryDelaysMs: readonly number[]; concurrency: number; publicUrl: string }
    outbound: { allowPrivateUrls: boolean }
    runner: { pollMs: number }
  },
  db: Db,
  secrets: SecretBox,
  log: WebhookDelivererSettings['log'],
): WebhookDeliverer {
  return createWebhookDeliverer({
    db,
    secrets,
    allowPrivateUrls: config.outbound.allowPrivateUrls,
    timeoutMs: config.webhooks.timeoutMs,
    retryDelaysMs: config.webhooks.retryDelaysMs,
    concurrency: config.webhooks.concurrency,
    pollMs: config.runner.pollMs,
    publicUrl: config.webhooks.publicUrl,
    log,
  })
}
