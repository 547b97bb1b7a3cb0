import { gitApiUrlProblem } from '#src/modules/git-providers/address-guard.ts'
import { hasUrlCredentials, urlCredentialsMessage } from '#src/platform/http/url-credentials.ts'

/**
 * Why a webhook's target URL may not be used, or undefined. Targets follow the address rules of git
 * providers, registries and charts: no loopback, private, link-local or metadata address and no
 * plain http unless the operator allows private URLs. Deliveries check the address again when they
 * connect (a name can resolve elsewhere later).
 */
export function targetUrlProblem(text: string, allowPrivateUrls: boolean): string | undefined {
  if (hasUrlCredentials(text)) return urlCredentialsMessage('a receiver checks the signature made with target_secret instead')
  const url = URL.canParse(text) ? new URL(text) : undefined
  if (!url || !['https:', 'http:'].includes(url.protocol) || url.hostname === '') return 'must be an absolute http or https URL'
  if (allowPrivateUrls) return undefined
  return gitApiUrlProblem(url)?.replace('the git token would travel', "the webhook's secret and events would travel")
}
