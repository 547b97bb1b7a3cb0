import { type Static, Type } from 'typebox'
import { GIT_PROVIDERS, type GitProvider } from '#src/platform/git-provider-names.ts'
import { Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import { CredentialDescription, CredentialName, credentialResponseHead } from '../credentials.schemas.ts'

export { GIT_PROVIDERS, type GitProvider }
export const GitProviderEnum = Type.Unsafe<GitProvider>({ type: 'string', enum: [...GIT_PROVIDERS], title: 'GitProviderEnum' })

export const GitTokenRequest = Type.Object(
  {
    name: CredentialName,
    description: CredentialDescription,
    type: GitProviderEnum,
    token: Type.String({ minLength: 1, maxLength: 4096, pattern: '\\S', description: 'The token from your git provider side; never returned' }),
    workspace: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'Mandatory only for BITBUCKET git provider' }))),
    git_api_url: Type.Optional(
      Nullable(Type.String({ maxLength: 2048, description: 'custom git api url (http or https) for a self-hosted provider' })),
    ),
  },
  { additionalProperties: false, title: 'GitTokenRequest' },
)
export type GitTokenRequest = Static<typeof GitTokenRequest>

export const GitTokenResponse = Type.Object(
  {
    ...credentialResponseHead(),
    description: Nullable(Type.String()),
    type: GitProviderEnum,
    expired_at: Nullable(Type.String({ format: 'date', description: "null: the provider's expiry is not known" })),
    workspace: Nullable(Type.String()),
    associated_services_count: Type.Number({ description: 'The number of services using this git token' }),
    git_api_url: Nullable(Type.String()),
  },
  { title: 'GitTokenResponse' },
)
export type GitTokenResponse = Static<typeof GitTokenResponse>

export const GitTokenResponseList = ListResponse(GitTokenResponse, 'GitTokenResponseList')

export const GitTokenParams = Type.Object({ organizationId: Uuid, gitTokenId: Uuid })
