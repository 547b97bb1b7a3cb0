import { Type } from 'typebox'
import { DateTime, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'

// What the wire shapes of the three families share. Each family's schema spreads these in its own
// order: /openapi.json lists the fields as the reference does.

/** A credential's name in a request. */
export const CredentialName = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '\\S',
  description: 'case insensitive; unique in the organization',
})

/** A credential's description in a request. */
export const CredentialDescription = Type.Optional(Nullable(Type.String({ maxLength: 10_000 })))

/** The first fields of every credential in a response. */
export const credentialResponseHead = () => ({ id: Uuid, created_at: DateTime, updated_at: DateTime, name: Type.String() })

/** A config field of a request, up to `maxLength`; null is accepted as "not given" for clients that send every key. */
export const configValue = (maxLength: number) => (description?: string) =>
  Type.Optional(Nullable(Type.String({ maxLength, ...(description ? { description } : {}) })))

/** How a secret config field is described. */
export const SECRET = 'write-only: never returned; omitted on an edit keeps the stored value, "" clears it'

/** The config fields both sealed families take first: basic auth, and AWS's keys for `ecrKind`. */
export const basicAndAwsConfig = (value: ReturnType<typeof configValue>, ecrKind: string) => ({
  username: value('goes with password'),
  password: value(SECRET),
  access_key_id: value(`${ecrKind}: with secret_access_key, unless role_arn is set`),
  secret_access_key: value(SECRET),
})

/** The public config fields both sealed families return first. */
export const awsAndScalewayResponseConfig = () => ({
  username: Type.Optional(Type.String()),
  region: Type.Optional(Type.String()),
  access_key_id: Type.Optional(Type.String()),
  role_arn: Type.Optional(Type.String()),
  scaleway_access_key: Type.Optional(Type.String()),
  scaleway_project_id: Type.Optional(Type.String()),
})
