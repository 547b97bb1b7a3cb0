import type { Db } from '#src/platform/db/database.ts'
import { factories } from './factories.ts'

export interface HelmServiceRefs {
  sourceGitTokenId?: string | null
  valuesGitTokenId?: string | null
  helmRepositoryId?: string | null
}

/**
 * A helm service (in a new project and environment of the organization) that uses the given git
 * tokens or helm repository, created through the helm services' own code path.
 */
export async function insertHelmService(db: Db, organizationId: string, refs: HelmServiceRefs = {}): Promise<string> {
  const f = factories(db)
  const environment = await f.environment((await f.project(organizationId)).id)
  const repository = (id: string | null | undefined) => ({ url: 'https://git.example.com/acme/charts', git_token_id: id ?? null })
  const service = await f.helmService(environment.id, {
    ...(refs.helmRepositoryId && { source: { helm_repository: { repository: refs.helmRepositoryId, chart_name: 'app', chart_version: '1.0.0' } } }),
    ...(refs.sourceGitTokenId && { source: { git_repository: repository(refs.sourceGitTokenId) } }),
    values_override: refs.valuesGitTokenId ? { file: { git: { git_repository: repository(refs.valuesGitTokenId), paths: ['/values.yaml'] } } } : {},
  })
  return service.id
}
