import { gitApiUrlProblem } from '#src/modules/git-providers/address-guard.ts'
import { insertOrganizationRecord } from '#src/modules/organizations/organization-records.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, type FieldError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { type CappedList, capped, DEFAULT_LIST_LIMIT } from '#src/platform/http/lists.ts'
import { hasUrlCredentials, urlCredentialsMessage } from '#src/platform/http/url-credentials.ts'
import { SECRET_NEEDED_AGAIN } from '#src/platform/secrets/sealed-fields.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { S3Location } from './backup-stores.ts'
import type { BackupsRepository, DestinationColumns, DestinationRow } from './backups.repository.ts'

// An organization's backup destinations (docs/backups.md, "Destinations"): S3-compatible stores,
// read by any member, written by ADMINs, the secret key sealed and never returned. The endpoint
// follows the address rules of git providers and registries (BERTH_ALLOW_PRIVATE_URLS).

export interface DestinationInput extends S3Location {
  name: string
  /** Absent on an edit: the stored one is kept (unless the endpoint or bucket moves). */
  secretAccessKey: string | undefined
}

interface Deps {
  repo: BackupsRepository
  organizations: OrganizationsService
  secrets: SecretBox
  allowPrivateUrls: boolean
  listLimit?: number
}

const nameTaken = (name: string) => new AppError('conflict', `a backup destination named "${name}" already exists in this organization`)

/** Why an endpoint cannot be used, or undefined. */
function endpointProblem(text: string, allowPrivateUrls: boolean): string | undefined {
  if (hasUrlCredentials(text)) return urlCredentialsMessage('the keys go in access_key_id and secret_access_key')
  const url = URL.canParse(text) ? new URL(text) : undefined
  if (!url || !['https:', 'http:'].includes(url.protocol) || url.hostname === '') return 'must be an absolute https URL'
  if (url.pathname !== '/' || url.search !== '') return "must be the store's address alone (the bucket and prefix have fields of their own)"
  if (allowPrivateUrls) return undefined
  return gitApiUrlProblem(url)?.replace('the git token would travel', "the store's keys would travel")
}

export function createBackupDestinationsService({ repo, organizations, secrets, allowPrivateUrls, listLimit = DEFAULT_LIST_LIMIT }: Deps) {
  function toColumns(input: DestinationInput, stored?: { endpoint: string | null; bucket: string; secretSealed: Buffer }): DestinationColumns {
    const errors: FieldError[] = []
    const problem = input.endpoint === null ? undefined : endpointProblem(input.endpoint, allowPrivateUrls)
    if (problem) errors.push({ path: '/endpoint', message: problem, location: 'body' })
    const moved = stored && (stored.endpoint !== input.endpoint || stored.bucket !== input.bucket)
    if (input.secretAccessKey === undefined && (!stored || moved)) {
      errors.push({ path: '/secret_access_key', message: stored ? SECRET_NEEDED_AGAIN : 'is required', location: 'body' })
    }
    if (errors.length > 0) throw validationFailed(errors)
    return {
      name: input.name,
      endpoint: input.endpoint === null ? null : input.endpoint.replace(/\/+$/, ''),
      region: input.region,
      bucket: input.bucket,
      prefix: input.prefix.replace(/^\/+|\/+$/g, ''),
      pathStyle: input.pathStyle,
      accessKeyId: input.accessKeyId,
      secretSealed: input.secretAccessKey === undefined ? stored!.secretSealed : secrets.seal(input.secretAccessKey),
    }
  }

  const withoutSecret = ({ secretSealed: _, ...row }: DestinationRow & { secretSealed?: Buffer }): DestinationRow => row

  return {
    async list(principal: Principal, organizationId: string): Promise<CappedList<DestinationRow>> {
      await organizations.requireRole(principal, organizationId, 'READ')
      return capped(listLimit, (limit) => repo.listDestinations(organizationId, limit))
    },
    async get(principal: Principal, organizationId: string, id: string): Promise<DestinationRow> {
      await organizations.requireRole(principal, organizationId, 'READ')
      const row = await repo.findDestination(organizationId, id)
      if (!row) throw notFound('backup destination')
      return withoutSecret(row)
    },
    async create(principal: Principal, organizationId: string, input: DestinationInput): Promise<DestinationRow> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      const columns = toColumns(input)
      return insertOrganizationRecord(
        'backup_destinations_name_key',
        () => nameTaken(input.name),
        () => repo.insertDestination(organizationId, columns),
      )
    },
    async update(principal: Principal, organizationId: string, id: string, input: DestinationInput): Promise<DestinationRow> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      const stored = await repo.findDestination(organizationId, id)
      if (!stored) throw notFound('backup destination')
      const columns = toColumns(input, stored)
      const row = await withUniqueName(
        'backup_destinations_name_key',
        () => nameTaken(input.name),
        () => repo.updateDestination(organizationId, id, columns),
      )
      if (!row) throw notFound('backup destination')
      return row
    },
    async delete(principal: Principal, organizationId: string, id: string): Promise<void> {
      await organizations.requireRole(principal, organizationId, 'ADMIN')
      const result = await repo.deleteDestinationUnlessUsed(organizationId, id)
      if (!result) throw notFound('backup destination')
      if (result.usedBy > 0) {
        throw new AppError('conflict', `the backup destination is used by ${result.usedBy} backup(s) or schedule(s); delete or move them first`)
      }
    },
  }
}

export type BackupDestinationsService = ReturnType<typeof createBackupDestinationsService>
