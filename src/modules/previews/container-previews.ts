// Image previews (previewContainerEnvironments): a container image's new tag previewed in each environment that runs the image.
import type { DeploymentRun } from '#src/modules/deployments/queue/deployment-progress.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { hasRole } from '#src/platform/auth/roles.ts'
import { AppError } from '#src/platform/http/errors.ts'
import { type PreviewMaking, previewName, previewsEnabled } from './preview-making.ts'
import type { PreviewDetails, PreviewKey } from './previews.repository.ts'
import { type PreviewsDeps, TRIGGERED_BY_MAX } from './previews-deps.ts'

export function createContainerPreviews(deps: PreviewsDeps, { makePreview }: PreviewMaking) {
  const { repo } = deps

  return {
    /**
     * previewContainerEnvironments: for each environment with a container of `imageName` whose
     * tag differs and that has `auto_preview` on, a preview where those containers run `tag`.
     * DEPLOY in the organization (a custom role's holder: where it grants it), and only
     * environments the principal may deploy are previewed: 403 when there were some and the
     * principal may deploy none of them.
     */
    async previewContainers(principal: Principal, organizationId: string, imageName: string, tag: string): Promise<DeploymentRun[]> {
      // A custom role grants per environment (checked below); a built-in one, in the whole organization.
      const access = await deps.organizations.requireRole(principal, organizationId, 'READ')
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
        const source = await deps.environments.requireEnvironment(principal, environmentId, 'DEPLOY').then(
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
  }
}
