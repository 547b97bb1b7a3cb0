import { type TProperties, Type } from 'typebox'
import { DateTime, Uuid } from './common-schemas.ts'

// The wire shapes most resources share: a name in requests, and id, times and name first in responses.

/** A name in a request: not blank, up to 255 characters; `description` says where it is unique. */
export const RequestName = (description: string) => Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description })

/** The first fields of a named resource in a response. */
export const namedResourceHead = () => ({ id: Uuid, created_at: DateTime, updated_at: DateTime, name: Type.String() })

/** A named resource in a response: the head, then its own `fields`. */
export const NamedResource = <Fields extends TProperties>(title: string, fields: Fields) =>
  Type.Object({ ...namedResourceHead(), ...fields }, { title })

/** A request body that takes these fields and no other. */
export const RequestBody = <Fields extends TProperties>(title: string, fields: Fields) => Type.Object(fields, { additionalProperties: false, title })

/** A record's id and times, as responses give them first. */
export const recordHead = (row: { id: string; createdAt: Date; updatedAt: Date }) => ({
  id: row.id,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
})

/** A record's id and times in a response whose reference leaves `updated_at` out at times. */
export const recordHeadSchema = () => ({ id: Uuid, created_at: DateTime, updated_at: Type.Optional(DateTime) })
