import type { Db } from '#src/platform/db/database.ts'
import { factories, uniqueName } from './factories.ts'

export interface HelmServiceRefs {
  sourceGitTokenId?: string | null
  valuesGitTokenId?: string | null
  helmRepositoryId?: string | null
}

/**
 * Inserts a helm service row (in a new project and environment) straight through Kysely, so that
 * tests of what services use do not depend on the helm services API.
 */
export async function insertHelmService(db: Db, organizationId: string, refs: HelmServiceRefs = {}): Promise<string> {
  const project = await factories(db).project(organizationId)
  const environment = await factories(db).environment(project.id)
  const service = await db
    .insertInto('helmServices')
    .values({
      organizationId,
      environmentId: environment.id,
      name: uniqueName('helm'),
      description: null,
      autoPreview: false,
      autoDeploy: false,
      source: JSON.stringify({ helm_repository: { repository: refs.helmRepositoryId ?? null, chart_name: 'app', chart_version: '1.0.0' } }),
      arguments: '[]',
      allowClusterWideResources: false,
      valuesOverride: '{}',
      ports: '[]',
      timeoutSec: 600,
      iconUri: 'app://qovery-console/helm',
      blueprintId: null,
      sourceGitTokenId: refs.sourceGitTokenId ?? null,
      valuesGitTokenId: refs.valuesGitTokenId ?? null,
      helmRepositoryId: refs.helmRepositoryId ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return service.id
}
