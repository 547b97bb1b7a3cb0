import { createHash, randomBytes } from 'node:crypto'
import type { DeploymentTriggers, Selected } from '#src/modules/deployments/api/triggers/deployment-triggers.service.ts'
import type { DeploymentRun } from '#src/modules/deployments/queue/deployment-progress.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import { repositoryKey } from '#src/modules/services/push-targets.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { AppError, validationFailed } from '#src/platform/http/errors.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { GitWebhooksRepository } from './git-webhooks.repository.ts'
import type { PullRequestEvent } from './pull-request-events.ts'
import { type BranchPush, DELIVERY_HEADER, deliveryId, eventName, readDelivery } from './push-events.ts'
import { verifySignature, type WebhookProvider } from './webhook-signatures.ts'

// Git pushes deploy (issue 19): each organization's webhook secret, which only ADMINs see and
// rotate, and the deliveries of git providers, verified with it, turned into deployments of the
// services that follow the pushed branch with `auto_deploy` on.

export interface GitWebhooksDeps {
  repo: GitWebhooksRepository
  secrets: SecretBox
  organizations: Pick<OrganizationsService, 'requireRole'>
  /** The organization's services a push to `branch` of `repository` deploys (services.repository `listPushTargets`). */
  listPushTargets(organizationId: string, repository: string, branch: string, defaultBranch: string | undefined): Promise<ServiceRecord[]>
  /** What a deploy of `commit` asks of a service of `type` (its deploy request's `git_commit_id`). */
  commitOverrides(service: ServiceRecord, commit: string): object
  /**
   * The services among `serviceIds` that a push which changed `changedPaths` (undefined: not
   * known) deploys, by their deployment restrictions (deployment restrictions' `deployedBy`).
   */
  deployedBy(serviceIds: readonly string[], changedPaths: readonly string[] | undefined): Promise<Set<string>>
  /** What queues the deployments of a push (`deployPushed`). */
  triggers: Pick<DeploymentTriggers, 'deployPushed'>
  /** What a pull request's event does to previews (previews' `pullRequest`); absent: pull requests are ignored. */
  pullRequest?(organizationId: string, pullRequest: PullRequestEvent): Promise<{ runs: DeploymentRun[]; deleted: string[]; reason: string | null }>
  /** How long delivery ids are remembered, in days. */
  deliveryRetentionDays?: number
}

/** The secret as ADMINs see it; null before one is made. */
export interface WebhookSecretRecord {
  organizationId: string
  secret: string | null
  createdAt: Date | null
  rotatedAt: Date | null
}

/** What Berth made of a delivery, as the answer tells the provider (its delivery log shows it). */
export interface DeliveryOutcome {
  deliveryId: string
  outcome: 'DEPLOYED' | 'DELETED' | 'IGNORED' | 'REPLAYED'
  reason: string | null
  deployments: { executionId: string; environmentId: string; serviceIds: string[] }[]
  /** The preview environments whose deletion a closed pull request queued. */
  deletedEnvironmentIds?: string[]
}

/** Delivery ids are kept 30 days: longer than any provider offers to redeliver. */
export const DELIVERY_RETENTION_DAYS = 30
const DELIVERY_ID_MAX = 200

// One answer for every delivery that does not prove itself, whatever the reason (no secret yet, an
// unknown organization, a wrong signature): nothing tells an organization that exists from one that does not.
const unverified = () =>
  new AppError('unauthenticated', 'the delivery\'s signature does not match the organization\'s git webhook secret (README, "Deploying on git push")')

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`

/**
 * What a push is, whatever delivery carries it: the delivery id header is not signed, so a captured
 * delivery sent again under a new id must still be known for the same push (issue 31). Remembered
 * beside delivery ids (under `pushesOf`), for as long. The commit before is part of it: a branch moved back to a
 * commit it held earlier (A, B, then A again) is a new push.
 */
const pushFingerprint = (push: BranchPush): string =>
  createHash('sha256')
    .update(JSON.stringify([repositoryKey(push.provider, push.owner, push.name), push.branch, push.previous ?? null, push.commit]))
    .digest('hex')

/** The provider column pushes are remembered under: apart from delivery ids, which the sender names. */
const pushesOf = (provider: WebhookProvider) => `${provider}#push`

/**
 * What a pull request's event is, whatever delivery carries it (issue 42): its repository, number,
 * action and head commit, and the time it says, so that the same action at the same head later (a
 * pull request closed, reopened and closed again) is a new event. Remembered under `pullRequestsOf`.
 */
const pullRequestFingerprint = (pr: PullRequestEvent): string =>
  createHash('sha256')
    .update(JSON.stringify([repositoryKey(pr.provider, pr.owner, pr.name), pr.number, pr.action, pr.headCommit, pr.eventAt?.toISOString() ?? null]))
    .digest('hex')

const pullRequestsOf = (provider: WebhookProvider) => `${provider}#pull_request`

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function createGitWebhooksService(deps: GitWebhooksDeps) {
  const { repo, secrets, deliveryRetentionDays = DELIVERY_RETENTION_DAYS } = deps

  const toRecord = (organizationId: string, stored: Awaited<ReturnType<GitWebhooksRepository['findSecret']>>): WebhookSecretRecord => ({
    organizationId,
    secret: stored ? secrets.open(stored.secretSealed) : null,
    createdAt: stored?.createdAt ?? null,
    rotatedAt: stored?.rotatedAt ?? null,
  })

  /**
   * The services the delivery's pushes deploy, each with the commit of the last push that names
   * it, and how many services followed a pushed branch but were held back by their restrictions.
   */
  async function targetsOf(organizationId: string, pushes: BranchPush[]): Promise<{ selected: Selected[]; restricted: number }> {
    const selected = new Map<string, Selected>()
    const restricted = new Set<string>()
    for (const push of pushes) {
      const services = await deps.listPushTargets(
        organizationId,
        repositoryKey(push.provider, push.owner, push.name),
        push.branch,
        push.defaultBranch,
      )
      const deployed = await deps.deployedBy(
        services.map((service) => service.id),
        push.changedPaths,
      )
      for (const service of services) {
        if (!deployed.has(service.id)) restricted.add(service.id)
        else selected.set(service.id, { service, overrides: deps.commitOverrides(service, push.commit) })
      }
    }
    return { selected: [...selected.values()], restricted: [...restricted].filter((id) => !selected.has(id)).length }
  }

  /** A pull request's delivery: its previews made, redeployed or deleted (docs/previews.md). */
  async function previewsOf(organizationId: string, id: string, pullRequest: PullRequestEvent): Promise<DeliveryOutcome> {
    if (!deps.pullRequest) return { deliveryId: id, outcome: 'IGNORED', reason: 'previews are not served here', deployments: [] }
    const { runs, deleted, reason } = await deps.pullRequest(organizationId, pullRequest)
    const deployments = runs.map((run) => ({
      executionId: run.id,
      environmentId: run.environmentId,
      serviceIds: run.progress.stages.flatMap((stage) => stage.services.map((service) => service.id)),
    }))
    const outcome = deployments.length > 0 ? 'DEPLOYED' : deleted.length > 0 ? 'DELETED' : 'IGNORED'
    return { deliveryId: id, outcome, reason: outcome === 'IGNORED' ? reason : null, deployments, deletedEnvironmentIds: deleted }
  }

  /**
   * A pull request's event, applied once and in order: the same event under another delivery id, or
   * one older than the last applied to its pull request, changes nothing (docs/previews.md, "Replays").
   */
  async function pullRequestDelivery(organizationId: string, provider: WebhookProvider, id: string, pr: PullRequestEvent): Promise<DeliveryOutcome> {
    const fingerprint = pullRequestFingerprint(pr)
    if (!(await repo.rememberDelivery(organizationId, pullRequestsOf(provider), fingerprint, deliveryRetentionDays))) {
      return {
        deliveryId: id,
        outcome: 'REPLAYED',
        reason: `the same event of pull request #${pr.number} (action and head commit) was already received under another delivery id: a replay changes nothing`,
        deployments: [],
      }
    }
    try {
      const repository = repositoryKey(pr.provider, pr.owner, pr.name)
      if (pr.eventAt && !(await repo.markPullRequest(organizationId, pr.provider, repository, pr.number, pr.eventAt))) {
        return {
          deliveryId: id,
          outcome: 'REPLAYED',
          reason: `a later event of pull request #${pr.number} was applied already: an older one changes nothing`,
          deployments: [],
        }
      }
      return await previewsOf(organizationId, id, pr)
    } catch (error) {
      await repo.forgetDelivery(organizationId, provider, id)
      await repo.forgetDelivery(organizationId, pullRequestsOf(provider), fingerprint)
      throw error
    }
  }

  return {
    /** The organization's webhook secret: ADMIN only. */
    async getSecret(principal: Principal, organizationId: string): Promise<WebhookSecretRecord> {
      await deps.organizations.requireRole(principal, organizationId, 'ADMIN')
      return toRecord(organizationId, await repo.findSecret(organizationId))
    },

    /** The organization's secret in the clear, for putting Berth's webhook at a provider; undefined before one is made. Callers checked access. */
    async openSecret(organizationId: string): Promise<string | undefined> {
      const stored = await repo.findSecret(organizationId)
      return stored ? secrets.open(stored.secretSealed) : undefined
    },

    /** Makes the organization a new secret; the old one verifies nothing from now on. ADMIN only. */
    async rotateSecret(principal: Principal, organizationId: string): Promise<WebhookSecretRecord> {
      await deps.organizations.requireRole(principal, organizationId, 'ADMIN')
      const stored = await repo.putSecret(organizationId, secrets.seal(newSecret()))
      if (!stored) throw new AppError('not_found', 'organization not found')
      return toRecord(organizationId, stored)
    },

    /** Removes the secret: every delivery is refused until an ADMIN makes a new one. */
    async deleteSecret(principal: Principal, organizationId: string): Promise<void> {
      await deps.organizations.requireRole(principal, organizationId, 'ADMIN')
      if (!(await repo.deleteSecret(organizationId))) throw new AppError('not_found', 'git webhook secret not found')
    },

    /**
     * A provider's delivery: verified with the organization's secret over the body's bytes (401,
     * changing nothing, when it does not verify), then read with `parse`. A push to a branch queues
     * a deployment of the services following it with `auto_deploy` on, once per delivery id.
     */
    async receive(
      organizationId: string,
      provider: WebhookProvider,
      headers: Record<string, string | string[] | undefined>,
      body: Buffer,
      parse: (body: Buffer) => Promise<unknown>,
    ): Promise<DeliveryOutcome> {
      const stored = UUID.test(organizationId) ? await repo.findSecret(organizationId) : undefined
      if (!stored || !verifySignature(provider, headers, body, secrets.open(stored.secretSealed))) throw unverified()
      const id = deliveryId(provider, headers)
      if (id === undefined || id.length > DELIVERY_ID_MAX) {
        const header = DELIVERY_HEADER[provider]
        throw validationFailed([
          { path: `/${header}`, message: `must name the delivery, in at most ${DELIVERY_ID_MAX} characters`, location: 'header' },
        ])
      }
      const reading = readDelivery(provider, eventName(provider, headers), await parse(body))
      if ('invalid' in reading) throw validationFailed(reading.invalid)
      if ('ignored' in reading) return { deliveryId: id, outcome: 'IGNORED', reason: reading.ignored, deployments: [] }
      if (!(await repo.rememberDelivery(organizationId, provider, id, deliveryRetentionDays))) {
        return { deliveryId: id, outcome: 'REPLAYED', reason: 'this delivery was already received: a replay deploys nothing', deployments: [] }
      }
      if ('pullRequest' in reading) return pullRequestDelivery(organizationId, provider, id, reading.pullRequest)
      const remembered: string[] = []
      const pushes: BranchPush[] = []
      for (const push of reading.pushes) {
        const fingerprint = pushFingerprint(push)
        if (!(await repo.rememberDelivery(organizationId, pushesOf(provider), fingerprint, deliveryRetentionDays))) continue
        remembered.push(fingerprint)
        pushes.push(push)
      }
      if (pushes.length === 0) {
        return {
          deliveryId: id,
          outcome: 'REPLAYED',
          reason: 'the same push (repository, branch and commits) was already received under another delivery id: a replay deploys nothing',
          deployments: [],
        }
      }
      try {
        const { selected, restricted } = await targetsOf(organizationId, pushes)
        // One delivery is one person's push, whatever branches it moved.
        const runs = selected.length === 0 ? [] : await deps.triggers.deployPushed(organizationId, selected, pushes[0]!.pusher)
        const deployments = runs.map((run) => ({
          executionId: run.id,
          environmentId: run.environmentId,
          serviceIds: selected.filter(({ service }) => service.environmentId === run.environmentId).map(({ service }) => service.id),
        }))
        const reason =
          deployments.length > 0
            ? null
            : restricted > 0
              ? 'the paths the push changed deploy none of the services following the pushed branch (their deployment restrictions)'
              : 'no service with auto_deploy on follows the pushed branch'
        return { deliveryId: id, outcome: deployments.length === 0 ? 'IGNORED' : 'DEPLOYED', reason, deployments }
      } catch (error) {
        await repo.forgetDelivery(organizationId, provider, id)
        for (const fingerprint of remembered) await repo.forgetDelivery(organizationId, pushesOf(provider), fingerprint)
        throw error
      }
    },
  }
}

export type GitWebhooksService = ReturnType<typeof createGitWebhooksService>
