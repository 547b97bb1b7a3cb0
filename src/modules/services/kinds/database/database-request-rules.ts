import { bodyError } from '#src/modules/services/field-errors.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { DatabaseEditRequest, DatabaseRequest } from './database.schemas.ts'
import type { DatabaseConfig } from './database.types.ts'
import { DATABASE_ENGINES, type DatabaseMode, type DatabaseType, versionRank } from './database-engines.ts'

// The rules of a database request that its JSON schema cannot say. Each broken rule names the
// request's field by JSON pointer, so that one answer lists every mistake.

/** What the database becomes, checked as a whole: the version its type runs, and the fields its mode takes. */
interface Shape {
  type: DatabaseType
  mode: DatabaseMode
  version: string
  instanceType: string | null
  diskType: string | null
}

function checkShape(shape: Shape, errors: FieldError[]): void {
  const { versions } = DATABASE_ENGINES[shape.type]
  if (versionRank(shape.type, shape.version) < 0) {
    errors.push(bodyError('/version', `Berth runs ${shape.type} versions ${versions.join(', ')}; not "${shape.version}"`))
  }
  if (shape.mode === 'MANAGED' && shape.instanceType === null) errors.push(bodyError('/instance_type', 'is required for a MANAGED database'))
  if (shape.mode === 'CONTAINER' && shape.instanceType !== null) errors.push(bodyError('/instance_type', 'applies to MANAGED databases only'))
  if (shape.mode === 'CONTAINER' && shape.diskType !== null) errors.push(bodyError('/disk_type', 'applies to MANAGED databases only'))
}

/** The rules a create breaks. */
export function databaseRequestErrors(body: DatabaseRequest): FieldError[] {
  const errors: FieldError[] = []
  checkShape(
    { type: body.type, mode: body.mode, version: body.version, instanceType: body.instance_type ?? null, diskType: body.disk_type ?? null },
    errors,
  )
  return errors
}

/** The rules an edit of `previous` breaks: those of what it would become, and no going back in version or storage. */
export function databaseEditErrors(body: DatabaseEditRequest, previous: DatabaseConfig): FieldError[] {
  const errors: FieldError[] = []
  const version = body.version ?? previous.version
  checkShape(
    {
      type: previous.type,
      mode: previous.mode,
      version,
      instanceType: body.instance_type === undefined ? previous.instanceType : body.instance_type,
      diskType: body.disk_type === undefined ? previous.diskType : body.disk_type,
    },
    errors,
  )
  const from = versionRank(previous.type, previous.version)
  const to = versionRank(previous.type, version)
  if (to >= 0 && from >= 0 && to < from) errors.push(bodyError('/version', `cannot go back from ${previous.version} to ${version}`))
  if (body.storage !== undefined && body.storage < previous.storage) {
    errors.push(bodyError('/storage', `cannot shrink from ${previous.storage} GB to ${body.storage} GB`))
  }
  return errors
}
