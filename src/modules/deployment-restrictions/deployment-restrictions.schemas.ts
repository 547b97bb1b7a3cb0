import { type Static, Type } from 'typebox'
import { DateTime, Enum, Uuid } from '#src/platform/http/common-schemas.ts'
import { RESTRICTION_MODES, RESTRICTION_TYPES } from './path-restrictions.ts'

// The reference's schemas, one set per kind (they differ only by name): `{Kind}DeploymentRestrictionRequest`,
// the restriction as answered, and the list of them.

export const VALUE_MAX_LENGTH = 1024

const Mode = Enum(
  RESTRICTION_MODES,
  'DeploymentRestrictionModeEnum',
  'Match mode will rebuild app only if specified items are updated. Exclude mode will not rebuild app if specified items are updated.',
)
const RestrictionType = Enum(RESTRICTION_TYPES, 'DeploymentRestrictionTypeEnum')

const fields = () => ({
  mode: Mode,
  type: RestrictionType,
  value: Type.String({
    minLength: 1,
    maxLength: VALUE_MAX_LENGTH,
    description:
      'For `PATH` restrictions, the value must not start with `/`. A path prefix from the repository root (`docs/` covers everything under docs); wildcards are not supported.',
  }),
})

export interface RestrictionSchemas {
  request: ReturnType<typeof requestSchema>
  response: ReturnType<typeof responseSchema>
  list: ReturnType<typeof listSchema>
}

const requestSchema = (title: string) => Type.Object(fields(), { title })
const responseSchema = (title: string) => Type.Object({ id: Uuid, created_at: DateTime, updated_at: Type.Optional(DateTime), ...fields() }, { title })
const listSchema = (item: ReturnType<typeof responseSchema>, title: string) => Type.Object({ results: Type.Array(item) }, { title })

/** The schemas of a kind, named as the reference names them (`Application`, `Job`, `Helm`). */
export function restrictionSchemas(prefix: string): RestrictionSchemas {
  const response = responseSchema(prefix === 'Application' ? 'ApplicationDeploymentRestriction' : `${prefix}DeploymentRestrictionResponse`)
  return {
    request: requestSchema(`${prefix}DeploymentRestrictionRequest`),
    response,
    list: listSchema(response, `${prefix}DeploymentRestrictionResponseList`),
  }
}

export type DeploymentRestrictionRequest = Static<ReturnType<typeof requestSchema>>
export type DeploymentRestrictionResponse = Static<ReturnType<typeof responseSchema>>
