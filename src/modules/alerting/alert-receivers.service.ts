import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { AlertingRepository } from './alerting.repository.ts'
import type { AlertReceiverCreationRequest, AlertReceiverEditRequest } from './alerting.schemas.ts'
import type { EmailSettings } from './alerting.tables.ts'
import { receiverAddressProblem, sendTestNotification, type TestReceiver } from './test-notification.ts'

// Alert receivers: where a rule's notifications go. Their secret (a webhook URL, an SMTP password)
// is sealed and never answered; every change is loaded into Alertmanager.

interface Deps {
  repo: AlertingRepository
  organizations: OrganizationsService
  secrets: SecretBox
  allowPrivateUrls: boolean
  listLimit: number
  /** Loads the change into the engines; a failure is logged, and `is_up_to_date` tells. */
  changed(): void
}

const emailSettings = (input: {
  to: string
  from: string
  smarthost: string
  auth_username?: string | null
  require_tls: boolean
}): EmailSettings => ({
  to: input.to,
  from: input.from,
  smarthost: input.smarthost,
  authUsername: input.auth_username ?? null,
  requireTls: input.require_tls,
})

/** The columns a creation or an edit writes as they are given (the secret aside). */
const givenColumns = (input: AlertReceiverCreationRequest | AlertReceiverEditRequest) => ({
  name: input.name,
  description: input.description,
  type: input.type,
  sendResolved: input.send_resolved,
  owner: input.owner ?? null,
  severity: input.severity ?? null,
  settings: input.type === 'EMAIL' ? emailSettings(input) : {},
})

export function createAlertReceiversService({ repo, organizations, secrets, allowPrivateUrls, listLimit, changed }: Deps) {
  function checkAddress(input: AlertReceiverCreationRequest | AlertReceiverEditRequest, webhookUrl: string | undefined) {
    const problem =
      input.type === 'SLACK'
        ? webhookUrl === undefined
          ? undefined
          : receiverAddressProblem({ type: 'SLACK', webhookUrl }, allowPrivateUrls)
        : receiverAddressProblem({ type: 'EMAIL', smarthost: input.smarthost }, allowPrivateUrls)
    if (problem) throw validationFailed([{ path: input.type === 'SLACK' ? '/webhook_url' : '/smarthost', message: problem, location: 'body' }])
  }

  async function requireReceiver(principal: Principal, id: string, role: 'READ' | 'WRITE') {
    const row = await repo.findReceiver(id)
    if (!row) throw notFound('alert receiver')
    // Another organization's answers as an id that does not exist.
    await organizations.requireAccess(principal, row.organizationId, role).catch(asNotFound('alert receiver'))
    return row
  }

  const secretOf = (input: AlertReceiverCreationRequest) => (input.type === 'SLACK' ? input.webhook_url : input.auth_password || undefined)

  return {
    requireReceiver,

    async list(principal: Principal, organizationId: string) {
      await organizations.requireAccess(principal, organizationId, 'READ')
      return repo.listReceivers(organizationId, listLimit)
    },

    async create(principal: Principal, input: AlertReceiverCreationRequest) {
      await organizations.requireAccess(principal, input.organization_id, 'WRITE')
      checkAddress(input, input.type === 'SLACK' ? input.webhook_url : undefined)
      const secret = secretOf(input)
      const row = await repo.insertReceiver({
        organizationId: input.organization_id,
        ...givenColumns(input),
        secretSealed: secret ? secrets.seal(secret) : null,
      })
      changed()
      return row
    },

    async edit(principal: Principal, id: string, input: AlertReceiverEditRequest) {
      const stored = await requireReceiver(principal, id, 'WRITE')
      if (stored.type !== input.type) throw new AppError('bad_request', `type cannot change (the receiver is ${stored.type})`)
      const given = input.type === 'SLACK' ? input.webhook_url : input.auth_password
      checkAddress(input, input.type === 'SLACK' ? (input.webhook_url ?? undefined) : undefined)
      // null or absent keeps the stored secret; "" clears an SMTP password.
      const secretSealed = given === null || given === undefined ? stored.secretSealed : given === '' ? null : secrets.seal(given)
      const row = await repo.updateReceiver(id, {
        ...givenColumns(input),
        secretSealed,
      })
      if (!row) throw notFound('alert receiver')
      changed()
      return row
    },

    async delete(principal: Principal, id: string) {
      await requireReceiver(principal, id, 'WRITE')
      const users = await repo.rulesUsingReceiver(id)
      if (users.length > 0) throw new AppError('conflict', `alert rules use the receiver (${users.map((u) => u.id).join(', ')}): change them first`)
      await repo.deleteReceiver(id)
      changed()
    },

    /** validateNewAlertReceiver: a test notification to a receiver not stored. */
    async validateNew(principal: Principal, input: AlertReceiverCreationRequest, message: string | undefined) {
      await organizations.requireAccess(principal, input.organization_id, 'WRITE')
      checkAddress(input, input.type === 'SLACK' ? input.webhook_url : undefined)
      const receiver: TestReceiver =
        input.type === 'SLACK'
          ? { type: 'SLACK', name: input.name, webhookUrl: input.webhook_url }
          : { type: 'EMAIL', name: input.name, settings: emailSettings(input), password: input.auth_password || undefined }
      return sendTestNotification(receiver, message ?? 'it works', allowPrivateUrls)
    },

    /** validateExistingAlertReceiver: a test notification through a stored receiver. */
    async validateExisting(principal: Principal, id: string, message: string | undefined) {
      const row = await requireReceiver(principal, id, 'WRITE')
      const secret = row.secretSealed ? secrets.open(row.secretSealed) : undefined
      const receiver: TestReceiver =
        row.type === 'SLACK'
          ? { type: 'SLACK', name: row.name, webhookUrl: secret ?? '' }
          : { type: 'EMAIL', name: row.name, settings: row.settings as EmailSettings, password: secret }
      return sendTestNotification(receiver, message ?? 'it works', allowPrivateUrls)
    },
  }
}

export type AlertReceiversService = ReturnType<typeof createAlertReceiversService>
