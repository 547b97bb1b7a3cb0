import type { Principal } from '#src/platform/auth/principal.ts'
import { createContainerPreviews } from './container-previews.ts'
import { createPreviewMaking } from './preview-making.ts'
import type { PreviewRecord, PreviewsDeps } from './previews-deps.ts'
import { createPullRequestPreviews } from './pull-request-previews.ts'

// Preview environments (issue 36, docs/previews.md): a pull request opened against a branch an
// environment deploys clones that environment into one of mode PREVIEW, deployed at the pull
// request's head; its new commits redeploy it; closing it deletes it. previewContainerEnvironments
// does the same for a container image's new tag. One preview per pull request (or tag) and source
// environment, whatever the deliveries: the claim's row is unique (migration 0030).

export type { PreviewOutcome, PreviewRecord, PreviewsDeps } from './previews-deps.ts'

/** A claim still without its environment after this long was left by a process that stopped: a clone takes seconds. */
const STALE_CLAIM_MS = 10 * 60_000

export function createPreviewsService(deps: PreviewsDeps) {
  const { repo } = deps
  const making = createPreviewMaking(deps)
  const { deletePreview } = making

  return {
    ...createPullRequestPreviews(deps, making),
    ...createContainerPreviews(deps, making),

    /** An environment's previews, oldest first: READ on it. */
    async list(principal: Principal, environmentId: string): Promise<PreviewRecord[]> {
      const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'READ')
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
