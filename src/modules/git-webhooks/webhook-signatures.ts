import { createHash, createHmac, timingSafeEqual } from 'node:crypto'

// How each git provider proves a delivery comes from a webhook that holds the organization's
// secret. Every comparison takes the same time whatever matches, so that timing tells nothing.

export const WEBHOOK_PROVIDERS = ['github', 'gitlab', 'bitbucket'] as const
export type WebhookProvider = (typeof WEBHOOK_PROVIDERS)[number]

/** Where a provider delivers an organization's events (the path under BERTH_PUBLIC_URL). */
export const webhookPath = (organizationId: string, provider: WebhookProvider) => `/organization/${organizationId}/gitWebhook/${provider}`

type Headers = Record<string, string | string[] | undefined>

/** The header that carries each provider's proof: an HMAC-SHA256 of the body, or (GitLab) the secret itself. */
export const SIGNATURE_HEADER: Record<WebhookProvider, string> = {
  github: 'x-hub-signature-256',
  gitlab: 'x-gitlab-token',
  bitbucket: 'x-hub-signature',
}

const single = (value: string | string[] | undefined): string | undefined => (typeof value === 'string' ? value : undefined)

/** Whether the delivery carries a proof at all: without one it is refused before its body is read. */
export const hasSignature = (provider: WebhookProvider, headers: Headers): boolean => (single(headers[SIGNATURE_HEADER[provider]]) ?? '') !== ''

/** Compares digests of both, so that the lengths are equal and the time does not depend on where they differ. */
function sameText(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest()
  return timingSafeEqual(digest(given), digest(expected))
}

/** `sha256=<hex>` of the body under `secret`, as GitHub and Bitbucket Cloud sign. */
export const hmacSignature = (secret: string, body: Buffer): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`

/** Whether the delivery's proof matches the organization's secret. */
export function verifySignature(provider: WebhookProvider, headers: Headers, body: Buffer, secret: string): boolean {
  const given = single(headers[SIGNATURE_HEADER[provider]])
  if (given === undefined || given === '') return false
  if (provider === 'gitlab') return sameText(given, secret)
  // Hex digits are compared as the provider writes them: lower case.
  return sameText(given.trim().toLowerCase(), hmacSignature(secret, body))
}
