import { type Static, Type } from 'typebox'
import { GitProviderEnum } from '#src/modules/organization-credentials/git-tokens/git-tokens.schemas.ts'
import { DateTime, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'

// The git repository a service reads from (a chart, a Dockerfile), as requests give it and responses show it.

/** A request's git repository; each kind's reference names its own schema (`HelmGitRepositoryRequest`, …). */
export const gitRepositoryRequest = (title: string) =>
  Type.Object(
    {
      url: Type.String({ minLength: 1, maxLength: 2048, description: 'https URL of the repository' }),
      branch: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
      root_path: Type.Optional(Nullable(Type.String({ maxLength: 1024, default: '/' }))),
      git_token_id: Type.Optional(Nullable(Uuid)),
      provider: Type.Optional(GitProviderEnum),
    },
    { additionalProperties: false, title },
  )
export type GitRepositoryRequest = Static<ReturnType<typeof gitRepositoryRequest>>

export const ApplicationGitRepository = Type.Object(
  {
    has_access: Type.Boolean(),
    provider: GitProviderEnum,
    owner: Type.String(),
    url: Type.String(),
    name: Type.String({ description: 'repository name' }),
    branch: Type.Optional(Type.String()),
    root_path: Type.String(),
    deployed_commit_id: Type.Optional(Type.String()),
    deployed_commit_date: Type.Optional(DateTime),
    deployed_commit_contributor: Type.Optional(Type.String()),
    deployed_commit_tag: Type.Optional(Type.String()),
    git_token_id: Nullable(Uuid),
    git_token_name: Nullable(Type.String()),
  },
  { title: 'ApplicationGitRepository' },
)
export type ApplicationGitRepository = Static<typeof ApplicationGitRepository>
