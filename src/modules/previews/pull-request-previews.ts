// Pull request previews: an opened or updated pull request makes or redeploys its previews, a closed one deletes them.
import type { Selected } from '#src/modules/deployments/api/triggers/deployment-triggers.service.ts'
import type { DeploymentRun } from '#src/modules/deployments/queue/deployment-progress.ts'
import type { EnvironmentRecord } from '#src/modules/environments/environments.repository.ts'
import type { PullRequestEvent } from '#src/modules/git-webhooks/pull-request-events.ts'
import { repositoryKey } from '#src/modules/services/push-targets.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { type PreviewMaking, previewName, previewsEnabled } from './preview-making.ts'
import type { PreviewDetails, PreviewKey } from './previews.repository.ts'
import { type PreviewOutcome, type PreviewsDeps, TRIGGERED_BY_MAX } from './previews-deps.ts'

/** The history's `triggered_by` of a pull request's deployments: who, and which pull request. */
export const pullRequestActor = (pr: Pick<PullRequestEvent, 'author' | 'number' | 'title'>) =>
  `${pr.author} (pull request #${pr.number}${pr.title === '' ? '' : `: ${pr.title}`})`.slice(0, TRIGGERED_BY_MAX)

export function createPullRequestPreviews(deps: PreviewsDeps, { followed, makePreview, deletePreview }: PreviewMaking) {
  const { repo } = deps

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
  }
}
