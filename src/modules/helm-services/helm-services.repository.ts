import type { Insertable, Selectable } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { HelmServicesTable } from '#src/platform/db/schema.ts'
import type { HelmPort, HelmServiceRecord, HelmSource, ValuesOverride } from './helm-services.types.ts'

export type NewHelmService = Insertable<HelmServicesTable>
/** The columns a full edit replaces. */
export type HelmServiceChanges = Omit<NewHelmService, 'id' | 'organizationId' | 'environmentId' | 'version' | 'createdAt' | 'updatedAt'>

type HelmServiceRow = Selectable<HelmServicesTable> & {
  sourceGitTokenName: string | null
  valuesGitTokenName: string | null
  helmRepositoryName: string | null
  helmRepositoryUrl: string | null
}

function toRecord(row: HelmServiceRow): HelmServiceRecord {
  const gitTokenNames: Record<string, string> = {}
  if (row.sourceGitTokenId && row.sourceGitTokenName !== null) gitTokenNames[row.sourceGitTokenId] = row.sourceGitTokenName
  if (row.valuesGitTokenId && row.valuesGitTokenName !== null) gitTokenNames[row.valuesGitTokenId] = row.valuesGitTokenName
  return {
    id: row.id,
    organizationId: row.organizationId,
    environmentId: row.environmentId,
    name: row.name,
    description: row.description,
    timeoutSec: row.timeoutSec,
    autoPreview: row.autoPreview,
    autoDeploy: row.autoDeploy,
    source: row.source as HelmSource,
    arguments: row.arguments,
    allowClusterWideResources: row.allowClusterWideResources,
    valuesOverride: row.valuesOverride as ValuesOverride,
    ports: row.ports as HelmPort[],
    iconUri: row.iconUri,
    blueprintId: row.blueprintId,
    version: row.version,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    gitTokenNames,
    helmRepository:
      row.helmRepositoryId && row.helmRepositoryName !== null
        ? { id: row.helmRepositoryId, name: row.helmRepositoryName, url: row.helmRepositoryUrl }
        : null,
  }
}

export function createHelmServicesRepository(db: Db) {
  /** Helm services with the names of the tokens and repository they use: one query. */
  const selectRecords = () =>
    db
      .selectFrom('helmServices as h')
      .leftJoin('gitTokens as sourceToken', 'sourceToken.id', 'h.sourceGitTokenId')
      .leftJoin('gitTokens as valuesToken', 'valuesToken.id', 'h.valuesGitTokenId')
      .leftJoin('helmRepositories as repository', 'repository.id', 'h.helmRepositoryId')
      .selectAll('h')
      .select([
        'sourceToken.name as sourceGitTokenName',
        'valuesToken.name as valuesGitTokenName',
        'repository.name as helmRepositoryName',
        'repository.url as helmRepositoryUrl',
      ])

  return {
    /** Looked up by id alone: the caller checks the organization it belongs to. */
    async findById(helmServiceId: string): Promise<HelmServiceRecord | undefined> {
      const row = await selectRecords().where('h.id', '=', helmServiceId).executeTakeFirst()
      return row && toRecord(row)
    },

    async listByEnvironment(organizationId: string, environmentId: string): Promise<HelmServiceRecord[]> {
      const rows = await selectRecords()
        .where('h.organizationId', '=', organizationId)
        .where('h.environmentId', '=', environmentId)
        .orderBy((eb) => eb.fn('lower', ['h.name']))
        .orderBy('h.id')
        .execute()
      return rows.map(toRecord)
    },

    async insert(values: NewHelmService): Promise<string> {
      const { id } = await db.insertInto('helmServices').values(values).returning('id').executeTakeFirstOrThrow()
      return id
    },

    /**
     * Replaces the service's editable columns, only while its version is `expectedVersion` when
     * one is given, in one statement. Returns whether a row was changed.
     */
    async update(organizationId: string, helmServiceId: string, changes: HelmServiceChanges, expectedVersion?: number): Promise<boolean> {
      let query = db
        .updateTable('helmServices')
        .set((eb) => ({ ...changes, version: eb('version', '+', 1), updatedAt: new Date() }))
        .where('organizationId', '=', organizationId)
        .where('id', '=', helmServiceId)
      if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion)
      const result = await query.executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    async delete(organizationId: string, helmServiceId: string): Promise<boolean> {
      const result = await db
        .deleteFrom('helmServices')
        .where('organizationId', '=', organizationId)
        .where('id', '=', helmServiceId)
        .executeTakeFirst()
      return result.numDeletedRows > 0n
    },
  }
}

export type HelmServicesRepository = ReturnType<typeof createHelmServicesRepository>

/** The database columns of a helm service's record fields, JSON where the table keeps JSON. */
export function helmServiceColumns(record: {
  name: string
  description: string | null
  timeoutSec: number
  autoPreview: boolean
  autoDeploy: boolean
  source: HelmSource
  arguments: string[]
  allowClusterWideResources: boolean
  valuesOverride: ValuesOverride
  ports: HelmPort[]
  iconUri: string
  blueprintId: string | null
}): HelmServiceChanges {
  const source = record.source
  const file = record.valuesOverride.file
  return {
    name: record.name,
    description: record.description,
    timeoutSec: record.timeoutSec,
    autoPreview: record.autoPreview,
    autoDeploy: record.autoDeploy,
    source: JSON.stringify(source),
    arguments: JSON.stringify(record.arguments),
    allowClusterWideResources: record.allowClusterWideResources,
    valuesOverride: JSON.stringify(record.valuesOverride),
    ports: JSON.stringify(record.ports),
    iconUri: record.iconUri,
    blueprintId: record.blueprintId,
    sourceGitTokenId: 'git' in source ? source.git.gitTokenId : null,
    valuesGitTokenId: file && 'git' in file ? file.git.repository.gitTokenId : null,
    helmRepositoryId: 'helmRepository' in source ? source.helmRepository.repositoryId : null,
  }
}
