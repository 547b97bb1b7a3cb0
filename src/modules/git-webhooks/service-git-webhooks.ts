import type { CommitSource } from '#src/modules/git-providers/git-commits.service.ts'
import { findHook, type RepositoryHook, type WantedHook } from '#src/modules/git-providers/repository-hooks.ts'
import type { GitProvider } from '#src/modules/organization-credentials/git-tokens/git-tokens.schemas.ts'
import { gitSourceOf } from '#src/modules/services/kinds/git-sources.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { AppError } from '#src/platform/http/errors.ts'
import { type WebhookProvider, webhookPath } from './webhook-signatures.ts'

// getServiceGitWebhookStatus and syncServiceGitWebhook (docs/git-push.md, "The webhook at the
// provider"): whether the repository a service builds from has Berth's webhook (delivering to
// BERTH_PUBLIC_URL + /organization/{id}/gitWebhook/{provider}, with the push and pull request
// events), and putting it there through the repository's git token.

export type WebhookStatus = 'ACTIVE' | 'NOT_CONFIGURED' | 'MISCONFIGURED' | 'UNABLE_TO_VERIFY'

export interface GitWebhookStatus {
  status: WebhookStatus
  provider: GitProvider
  missingEvents?: string[]
}

export interface ServiceGitWebhooksDeps {
  requireService(principal: Principal, serviceId: string, needed: Role): Promise<ServiceRecord>
  listHooks(source: CommitSource): Promise<RepositoryHook[]>
  putHook(source: CommitSource, wanted: WantedHook, id?: string): Promise<void>
  hookEvents(provider: GitProvider): readonly string[]
  openSecret(organizationId: string): Promise<string | undefined>
  /** BERTH_PUBLIC_URL: where providers reach this server. */
  publicUrl: string
}

function judge(hook: RepositoryHook | undefined, required: readonly string[], provider: GitProvider): GitWebhookStatus {
  if (!hook) return { status: 'NOT_CONFIGURED', provider }
  const missingEvents = required.filter((event) => !hook.events.includes(event))
  if (missingEvents.length > 0 || !hook.active) return { status: 'MISCONFIGURED', provider, missingEvents }
  return { status: 'ACTIVE', provider }
}

export function createServiceGitWebhooksService(deps: ServiceGitWebhooksDeps) {
  async function locate(principal: Principal, serviceId: string, needed: Role) {
    const service = await deps.requireService(principal, serviceId, needed)
    const repository = gitSourceOf(service)
    if (!repository) throw new AppError('bad_request', `the ${service.kind.toLowerCase()} does not build from a git repository`)
    const { provider, owner, name, gitTokenId } = repository
    const source: CommitSource = { organizationId: service.organizationId, provider, owner, name, gitTokenId }
    const url = `${deps.publicUrl}${webhookPath(service.organizationId, provider.toLowerCase() as WebhookProvider)}`
    return { source, url }
  }

  return {
    /** ACTIVE, NOT_CONFIGURED or MISCONFIGURED as the provider lists the repository's hooks; UNABLE_TO_VERIFY when it would not say. */
    async status(principal: Principal, serviceId: string): Promise<GitWebhookStatus> {
      const { source, url } = await locate(principal, serviceId, 'READ')
      try {
        return judge(findHook(await deps.listHooks(source), url), deps.hookEvents(source.provider), source.provider)
      } catch (error) {
        if (error instanceof AppError) return { status: 'UNABLE_TO_VERIFY', provider: source.provider }
        throw error
      }
    },

    /**
     * Creates Berth's webhook, or rewrites the existing one with the needed events and the
     * organization's current secret (which the provider never shows, so it is always written):
     * the status as the provider lists it afterwards.
     */
    async sync(principal: Principal, serviceId: string): Promise<GitWebhookStatus> {
      const { source, url } = await locate(principal, serviceId, 'WRITE')
      const secret = await deps.openSecret(source.organizationId)
      if (secret === undefined) {
        throw new AppError(
          'client_error',
          'the organization has no git webhook secret yet: an ADMIN makes one (POST /organization/{id}/gitWebhookSecret)',
          {
            status: 422,
          },
        )
      }
      try {
        const existing = findHook(await deps.listHooks(source), url)
        await deps.putHook(source, { url, secret }, existing?.id)
        return judge(findHook(await deps.listHooks(source), url), deps.hookEvents(source.provider), source.provider)
      } catch (error) {
        // The provider refused the token or the change (no admin right on the repository): the reference's 422.
        if (error instanceof AppError && (error.code === 'git_token_invalid' || error.code === 'repository_not_found')) {
          throw new AppError('client_error', `the webhook cannot be configured: ${error.message}`, { status: 422 })
        }
        throw error
      }
    },
  }
}

export type ServiceGitWebhooksService = ReturnType<typeof createServiceGitWebhooksService>
