import { type Static, Type } from 'typebox'
import { DateTime, Nullable, RoleId, RoleName, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'

const RoleWord = RoleName('Berth extension: the token role, READ < DEPLOY < WRITE < ADMIN; default ADMIN')

export const ApiTokenCreateRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    role: Type.Optional(RoleWord),
    role_id: Type.Optional(Nullable(RoleId)),
    scope: Type.Optional(Nullable(Type.Literal('ADMIN', { description: 'deprecated; the same as role ADMIN' }))),
    expired_at: Type.Optional(Nullable(Type.String({ format: 'date-time', description: 'Berth extension: when the token stops working' }))),
  },
  { additionalProperties: false, title: 'OrganizationApiTokenCreateRequest' },
)
export type ApiTokenCreateRequest = Static<typeof ApiTokenCreateRequest>

/** The fields every API token's response opens with, a policy token's too. */
export const tokenHeadFields = {
  id: Uuid,
  created_at: DateTime,
  updated_at: DateTime,
  name: Type.String(),
  description: Type.String(),
  role_name: Type.String(),
  role_id: Uuid,
}

const tokenFields = {
  ...tokenHeadFields,
  role: RoleWord,
  token_start: Type.String({ description: 'Berth extension: the first characters of the token' }),
  expired_at: Nullable(DateTime),
  last_used_at: Nullable(DateTime),
}

const Creator = Nullable(
  Type.Object(
    {
      kind: Type.Unsafe<'api_token' | 'user'>({ type: 'string', enum: ['api_token', 'user'] }),
      id: Uuid,
      name: Type.String({ description: "a token's name; a user's name, else email, else subject" }),
    },
    { title: 'OrganizationApiTokenCreator' },
  ),
)

export const ApiToken = Type.Object(
  {
    ...tokenFields,
    created_by: {
      ...Creator,
      description:
        'Berth extension: the API token or user that created this token; null for one made by `berth token create`. ' +
        'Deleting a token deletes the tokens it created, and theirs.',
    },
  },
  { title: 'OrganizationApiToken' },
)
export type ApiToken = Static<typeof ApiToken>

export const ApiTokenCreated = Type.Object(
  { ...tokenFields, token: Type.String({ description: "the generated token to send in 'Authorization' header prefixed by 'Token '" }) },
  { title: 'OrganizationApiTokenCreate' },
)
export type ApiTokenCreated = Static<typeof ApiTokenCreated>

export const ApiTokenList = ListResponse(ApiToken, 'OrganizationApiTokenResponseList')

export const ApiTokenListQuery = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 255, description: 'Name of the token to filter results by.' })),
  creatorName: Type.Optional(Type.String({ maxLength: 255, description: 'Name of the token creator to filter results by.' })),
})

export const ApiTokenParams = Type.Object({ organizationId: Uuid, apiTokenId: Uuid })
