// What the backups' routes share: their OpenAPI tag and the params and answers of a database's routes.
import { Type } from 'typebox'
import { Uuid } from '#src/platform/http/common-schemas.ts'

export const tags = ['Backups']
export const DatabaseParams = Type.Object({ databaseId: Uuid })
export const Deleted = Type.Null({ description: 'deleted' })
