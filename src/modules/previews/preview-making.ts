// What pull request and image previews share: which branch a service builds, and making and deleting a preview from its claim.
import { createHash } from 'node:crypto'
import type { EnvironmentRecord } from '#src/modules/environments/environments.repository.ts'
import { repositoryKey } from '#src/modules/services/push-targets.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { AppError } from '#src/platform/http/errors.ts'
import type { PreviewRow } from './previews.repository.ts'
import type { PreviewsDeps } from './previews-deps.ts'

const NAME_MAX = 255

/** The preview's name: `<source>-pr-<n>`, or `<source>-<tag>` for an image's tag. */
export const previewName = (source: string, suffix: string) => `${source.slice(0, NAME_MAX - suffix.length - 1)}-${suffix}`

const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8)

export const previewsEnabled = (service: ServiceRecord) => (service.configuration as { autoPreview?: unknown }).autoPreview === true

export function createPreviewMaking(deps: PreviewsDeps) {
  const { repo } = deps

  /** The branch a service builds, as its kind says, with the repository it is in; undefined when it builds from no git repository. */
  function followed(service: ServiceRecord, defaultBranch: string | undefined) {
    const branch = deps.kinds.get(service.kind)?.followedBranch?.(service.configuration)
    if (!branch) return undefined
    return { repository: repositoryKey(branch.provider, branch.owner, branch.name), branch: branch.branch ?? defaultBranch }
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

  /** Queues the deletion of a preview and forgets it: a reopened pull request makes a new one. */
  async function deletePreview(row: PreviewRow, why: string): Promise<string | undefined> {
    await repo.remove(row.id)
    if (row.environmentId === null) return undefined
    await deps.triggers.deletePreviewEnvironment({ id: row.environmentId, organizationId: row.organizationId }, why)
    return row.environmentId
  }

  return { followed, makePreview, deletePreview }
}

export type PreviewMaking = ReturnType<typeof createPreviewMaking>
