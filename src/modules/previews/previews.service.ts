import { createHash } from 'node:crypto'
import type { DeploymentTriggers, Selected } from '#src/modules/deployments/api/triggers/deployment-triggers.service.ts'
import type { DeploymentRun } from '#src/modules/deployments/queue/deployment-progress.ts'
import type { EnvironmentRecord } from '#src/modules/environments/environments.repository.ts'
import type { PullRequestEvent } from '#src/modules/git-webhooks/pull-request-events.ts'
import { repositoryKey } from '#src/modules/services/push-targets.ts'
import type { ServiceKinds, ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { hasRole, type Role } from '#src/platform/auth/roles.ts'
import { AppError } from '#src/platform/http/errors.ts'
import type { PreviewDetails, PreviewKey, PreviewRow, PreviewsRepository } from './previews.repository.ts'

// Preview environments (issue 36, docs/previews.md): a pull request opened against a branch an
// environment deploys clones that environment into one of mode PREVIEW, deployed at the pull
// request's head; its new commits redeploy it; closing it deletes it. previewContainerEnvironments
// does the same for a container image's new tag. One preview per pull request (or tag) and source
// environment, whatever the deliveries: the claim's row is unique (migration 0030).

export interface PreviewsDeps {
  repo: PreviewsRepository
  kinds: ServiceKinds
  listServices(organizationId: string, environmentId: string): Promise<ServiceRecord[]>
  findEnvironment(environmentId: string): Promise<EnvironmentRecord | undefined>
  /** clones' clonePreview. */
  clonePreview(sourceEnvironmentId: string, name: string, adjust?: (service: ServiceRecord) => ServiceRecord): Promise<EnvironmentRecord>
  /** What a deploy of `commit` asks of `service` (its deploy request's `git_commit_id`, and what its kind adds for a push). */
  commitOverrides(service: ServiceRecord, commit: string): object
  /** What queues a preview's deployment and its deletion. */
  triggers: Pick<DeploymentTriggers, 'deployPreview' | 'deletePreviewEnvironment'>
  requireEnvironment(principal: Principal, environmentId: string, needed: Role): Promise<{ environment: EnvironmentRecord }>
  requireOrganizationRole(principal: Principal, organizationId: string, needed: Role): Promise<{ role: Role; customRoleId: string | null }>
  actorName(principal: Principal): Promise<string>
  log: { info(details: object, message: string): void; warn(details: object, message: string): void }
  /** BERTH_PREVIEWS_PER_ENVIRONMENT. */
  maxPerEnvironment: number
}

/** What a pull request's event did to previews. */
export interface PreviewOutcome {
  /** The deployments queued: a new preview's, or a preview's at its new head. */
  runs: DeploymentRun[]
  /** The preview environments whose deletion was queued. */
  deleted: string[]
  /** Why nothing was done, when nothing was. */
  reason: string | null
}

/** A preview with its environment and source, as the list of an environment's previews gives it. */
export interface PreviewRecord extends PreviewRow {
  environmentName: string | null
}

const TRIGGERED_BY_MAX = 255
/** A claim still without its environment after this long was left by a process that stopped: a clone takes seconds. */
const STALE_CLAIM_MS = 10 * 60_000
const NAME_MAX = 255

/** The history's `triggered_by` of a pull request's deployments: who, and which pull request. */
export const pullRequestActor = (pr: Pick<PullRequestEvent, 'author' | 'number' | 'title'>) =>
  `${pr.author} (pull request #${pr.number}${pr.title === '' ? '' : `: ${pr.title}`})`.slice(0, TRIGGERED_BY_MAX)

/** The preview's name: `<source>-pr-<n>`, or `<source>-<tag>` for an image's tag. */
export const previewName = (source: string, suffix: string) => `${source.slice(0, NAME_MAX - suffix.length - 1)}-${suffix}`

const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8)

export function createPreviewsService(deps: PreviewsDeps) {
  const { repo } = deps

  /** The branch a service builds, as its kind says, with the repository it is in; undefined when it builds from no git repository. */
  function followed(service: ServiceRecord, defaultBranch: string | undefined) {
    const branch = deps.kinds.get(service.kind)?.followedBranch?.(service.configuration)
    if (!branch) return undefined
    return { repository: repositoryKey(branch.provider, branch.owner, branch.name), branch: branch.branch ?? defaultBranch }
  }

  const previewsEnabled = (service: ServiceRecord) => (service.configuration as { autoPreview?: unknown }).autoPreview === true

  /**
   * The organization's environments a pull request previews: `auto_preview` on, not a preview,
   * with a service that has `auto_preview` on and builds the pull request's base branch of its
   * repository.
   */
  async function sourcesOf(organizationId: string, pr: PullRequestEvent): Promise<{ environment: EnvironmentRecord; services: ServiceRecord[] }[]> {
    const repository = repositoryKey(pr.provider, pr.owner, pr.name)
    const sources = []
    for (const environmentId of await repo.previewSources(organizationId)) {
      const services = await deps.listServices(organizationId, environmentId)
      const previewed = services.some((service) => {
        const built = followed(service, pr.defaultBranch)
        return previewsEnabled(service) && built?.repository === repository && built.branch === pr.baseBranch
      })
      const environment = previewed ? await deps.findEnvironment(environmentId) : undefined
      if (environment) sources.push({ environment, services })
    }
    return sources
  }

  /** Each service of the preview, those building `repository` at `commit`, the others as configured; stages' skipped ones left out. */
  function selection(services: ServiceRecord[], repository: string, commit: string, only: 'all' | 'repository'): Selected[] {
    const selected: Selected[] = []
    for (const service of services) {
      const builds = followed(service, undefined)?.repository === repository
      if (builds) selected.push({ service, overrides: deps.commitOverrides(service, commit) })
      else if (only === 'all' && !service.deploymentSkipped) selected.push({ service, overrides: {} })
    }
    return selected
  }

  /**
   * Clones `source` into the preview a claim made, under `name` (another, with the key's hash,
   * when an environment has it), and records it; the claim is dropped when the clone fails.
   * Undefined when the claim went meanwhile (the pull request closed): the clone is deleted.
   */
  async function makePreview(
    claim: PreviewRow,
    source: EnvironmentRecord,
    name: string,
    adjust?: (service: ServiceRecord) => ServiceRecord,
  ): Promise<EnvironmentRecord | undefined> {
    try {
      let preview: EnvironmentRecord
      try {
        preview = await deps.clonePreview(source.id, name, adjust)
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'conflict')) throw error
        preview = await deps.clonePreview(source.id, previewName(name, shortHash(`${claim.provider}:${claim.repository}`)), adjust)
      }
      // Pushes deploy the source's services, not their previews: a pull request's events drive them.
      await repo.clearPushTargets(preview.id)
      if (!(await repo.attach(claim.id, preview.id))) {
        // Closed while it was being made: it goes at once.
        await deps.triggers.deletePreviewEnvironment(preview, 'the pull request closed while its preview was made')
        return undefined
      }
      return preview
    } catch (error) {
      await repo.release(claim.id)
      throw error
    }
  }

  const detailsOf = (pr: PullRequestEvent): PreviewDetails => ({
    title: pr.title,
    url: pr.url,
    headBranch: pr.headBranch,
    headCommit: pr.headCommit,
    author: pr.author,
  })

  /**
   * Queues a pull request preview's deployment. When it cannot be queued the preview's head is
   * forgotten, so that the provider's retry of the delivery deploys it whole.
   */
  async function deployAt(previewId: string, selected: Selected[], triggeredBy: string): Promise<DeploymentRun[]> {
    const organizationId = selected[0]?.service.organizationId
    if (organizationId === undefined) return []
    try {
      return await deps.triggers.deployPreview(organizationId, selected, triggeredBy, 'GIT')
    } catch (error) {
      await repo.forgetHead(previewId)
      throw error
    }
  }

  /** A pull request opened, reopened or updated: each source environment's preview made, or redeployed at its new head. */
  async function openOrUpdate(organizationId: string, pr: PullRequestEvent): Promise<PreviewOutcome> {
    const repository = repositoryKey(pr.provider, pr.owner, pr.name)
    const sources = await sourcesOf(organizationId, pr)
    if (sources.length === 0) {
      return { runs: [], deleted: [], reason: `no environment with auto_preview on has a service with auto_preview on that builds ${pr.baseBranch}` }
    }
    const runs: DeploymentRun[] = []
    const reasons: string[] = []
    const triggeredBy = pullRequestActor(pr)
    for (const { environment: source } of sources) {
      const key: PreviewKey = { sourceEnvironmentId: source.id, provider: pr.provider, repository, pullRequestNumber: pr.number, imageTag: null }
      const claimed = await repo.claim(organizationId, key, detailsOf(pr), deps.maxPerEnvironment)
      if ('full' in claimed) {
        const reason = `environment ${source.name} has ${claimed.full} previews already (BERTH_PREVIEWS_PER_ENVIRONMENT is ${deps.maxPerEnvironment}): no preview of pull request #${pr.number}`
        deps.log.warn({ organizationId, environmentId: source.id, pullRequest: pr.number, repository }, reason)
        reasons.push(reason)
        continue
      }
      if ('existing' in claimed) {
        const existing = claimed.existing
        // Another delivery is making it; or its head is where this event says (a replay, an edit).
        if (existing.environmentId === null || existing.headCommit === pr.headCommit) {
          await repo.touch(existing.id, detailsOf(pr))
          reasons.push(`the preview of pull request #${pr.number} is at ${pr.headCommit} already`)
          continue
        }
        // Only the event that moves the head from where it was redeploys; a preview never deployed (null) deploys whole.
        if (!(await repo.touch(existing.id, detailsOf(pr), existing.headCommit))) continue
        const services = await deps.listServices(organizationId, existing.environmentId)
        const only = existing.headCommit === null ? 'all' : 'repository'
        runs.push(...(await deployAt(existing.id, selection(services, repository, pr.headCommit, only), triggeredBy)))
        continue
      }
      // The services building the repository follow the pull request's branch there, so that a deploy by hand builds it too.
      const onHeadBranch = (service: ServiceRecord) => {
        const kind = deps.kinds.get(service.kind)
        if (!kind?.onBranch || followed(service, undefined)?.repository !== repository) return service
        return { ...service, configuration: kind.onBranch(service.configuration, pr.headBranch) }
      }
      const preview = await makePreview(claimed, source, previewName(source.name, `pr-${pr.number}`), onHeadBranch)
      if (!preview) continue
      deps.log.info(
        { organizationId, environmentId: preview.id, sourceEnvironmentId: source.id, pullRequest: pr.number, repository },
        'preview environment made',
      )
      const services = await deps.listServices(organizationId, preview.id)
      runs.push(...(await deployAt(claimed.id, selection(services, repository, pr.headCommit, 'all'), triggeredBy)))
    }
    return { runs, deleted: [], reason: runs.length > 0 ? null : reasons.join('; ') || 'nothing to deploy' }
  }

  /** Queues the deletion of a preview and forgets it: a reopened pull request makes a new one. */
  async function deletePreview(row: PreviewRow, why: string): Promise<string | undefined> {
    await repo.remove(row.id)
    if (row.environmentId === null) return undefined
    await deps.triggers.deletePreviewEnvironment({ id: row.environmentId, organizationId: row.organizationId }, why)
    return row.environmentId
  }

  return {
    /** What a verified pull request delivery does to previews. */
    async pullRequest(organizationId: string, pr: PullRequestEvent): Promise<PreviewOutcome> {
      if (pr.action !== 'CLOSE') return openOrUpdate(organizationId, pr)
      const rows = await repo.listOfPullRequest(organizationId, pr.provider, repositoryKey(pr.provider, pr.owner, pr.name), pr.number)
      const deleted: string[] = []
      for (const row of rows) {
        const environmentId = await deletePreview(row, `${pr.author} (pull request #${pr.number} closed)`.slice(0, TRIGGERED_BY_MAX))
        if (environmentId) deleted.push(environmentId)
      }
      return { runs: [], deleted, reason: deleted.length > 0 ? null : `pull request #${pr.number} has no preview` }
    },

    /**
     * previewContainerEnvironments: for each environment with a container of `imageName` whose
     * tag differs and that has `auto_preview` on, a preview where those containers run `tag`.
     * DEPLOY in the organization (a custom role's holder: where it grants it), and only
     * environments the principal may deploy are previewed: 403 when there were some and the
     * principal may deploy none of them.
     */
    async previewContainers(principal: Principal, organizationId: string, imageName: string, tag: string): Promise<DeploymentRun[]> {
      // A custom role grants per environment (checked below); a built-in one, in the whole organization.
      const access = await deps.requireOrganizationRole(principal, organizationId, 'READ')
      if (access.customRoleId === null && !hasRole(access.role, 'DEPLOY')) {
        throw new AppError('forbidden', `previews need the DEPLOY role; this credential has ${access.role}`)
      }
      const triggeredBy = `${await deps.actorName(principal)} (preview of ${imageName}:${tag})`.slice(0, TRIGGERED_BY_MAX)
      const matches = (service: ServiceRecord) => {
        const configuration = service.configuration as { imageName?: unknown; tag?: unknown }
        return service.kind === 'CONTAINER' && previewsEnabled(service) && configuration.imageName === imageName && configuration.tag !== tag
      }
      const runs: DeploymentRun[] = []
      let denied = 0
      let allowed = 0
      for (const environmentId of await repo.containerSources(organizationId, imageName)) {
        const services = await deps.listServices(organizationId, environmentId)
        if (!services.some(matches)) continue
        const source = await deps.requireEnvironment(principal, environmentId, 'DEPLOY').then(
          ({ environment }) => environment,
          (error: unknown) => {
            if (error instanceof AppError && (error.code === 'forbidden' || error.code === 'not_found')) return undefined
            throw error
          },
        )
        if (!source) {
          denied++
          continue
        }
        allowed++
        const key: PreviewKey = {
          sourceEnvironmentId: source.id,
          provider: 'CONTAINER',
          repository: imageName,
          pullRequestNumber: null,
          imageTag: tag,
        }
        const details: PreviewDetails = { title: `${imageName}:${tag}`, url: null, headBranch: null, headCommit: null, author: triggeredBy }
        const claimed = await repo.claim(organizationId, key, details, deps.maxPerEnvironment)
        if ('full' in claimed) {
          deps.log.warn(
            { organizationId, environmentId: source.id, imageName, tag },
            `environment ${source.name} has ${claimed.full} previews already (BERTH_PREVIEWS_PER_ENVIRONMENT is ${deps.maxPerEnvironment}): no preview of ${imageName}:${tag}`,
          )
          continue
        }
        if ('existing' in claimed) {
          await repo.touch(claimed.existing.id, details)
          continue
        }
        const suffix = tag.toLowerCase().replace(/[^a-z0-9-]+/g, '-')
        const preview = await makePreview(claimed, source, previewName(source.name, suffix), (service) =>
          matches(service) ? { ...service, configuration: { ...(service.configuration as object), tag } } : service,
        )
        if (!preview) continue
        const selected = (await deps.listServices(organizationId, preview.id))
          .filter((service) => !service.deploymentSkipped)
          .map((service) => ({ service, overrides: {} }))
        runs.push(...(await deps.triggers.deployPreview(organizationId, selected, triggeredBy, 'API')))
      }
      if (denied > 0 && allowed === 0) throw new AppError('forbidden', 'previews need the DEPLOY role on the environments they clone')
      return runs
    },

    /** An environment's previews, oldest first: READ on it. */
    async list(principal: Principal, environmentId: string): Promise<PreviewRecord[]> {
      const { environment } = await deps.requireEnvironment(principal, environmentId, 'READ')
      return repo.listOfSource(environment.id)
    },

    /**
     * Deletes the previews without activity for `idleMs` (BERTH_PREVIEW_IDLE_TTL_MS; 0: none) and
     * those whose source environment was deleted; returns the environments whose deletion was queued.
     */
    async sweepIdle(idleMs: number): Promise<string[]> {
      await repo.releaseStale(STALE_CLAIM_MS)
      const deleted: string[] = []
      for (const row of await repo.listIdle(idleMs, 50)) {
        const why = row.sourceEnvironmentId === null ? 'the source environment was deleted' : `preview idle for ${Math.round(idleMs / 1000)} s`
        const environmentId = await deletePreview(row, why)
        if (environmentId) {
          deps.log.info(
            { organizationId: row.organizationId, environmentId, sourceEnvironmentId: row.sourceEnvironmentId },
            'idle preview environment deleted',
          )
          deleted.push(environmentId)
        }
      }
      return deleted
    },
  }
}

export type PreviewsService = ReturnType<typeof createPreviewsService>
