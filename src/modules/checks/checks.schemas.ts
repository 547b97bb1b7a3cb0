import { Type } from 'typebox'
import { GitProviderEnum } from '#src/modules/organization-credentials/git-tokens/git-tokens.schemas.ts'
import { Nullable, Uuid } from '#src/platform/http/common-schemas.ts'

// The reference's checks before a deploy (tag Environment): what each is asked, and what it found.

export const EnvironmentParams = Type.Object({ environmentId: Uuid })

const gitRepository = (title: string) =>
  Type.Object(
    {
      url: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL of the repository' }),
      branch: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: "absent: the repository's default branch" }))),
      root_path: Type.Optional(Nullable(Type.String({ maxLength: 1024, default: '/' }))),
      git_token_id: Type.Optional(Nullable(Uuid)),
      provider: Type.Optional(GitProviderEnum),
      owner: Type.Optional(Type.String({ maxLength: 255, description: 'accepted; the URL says where the repository is' })),
      name: Type.Optional(Type.String({ maxLength: 255, description: 'accepted; the URL says where the repository is' })),
    },
    { additionalProperties: false, title },
  )

const RelativePath = Type.String({ minLength: 1, maxLength: 1024 })
const found = Type.Boolean({ description: 'Berth extension: whether what was asked for is there' })
const message = Type.Optional(Type.String({ description: 'Berth extension: what was not found, or why the look failed' }))
const commit = Type.Optional(Type.String({ description: 'Berth extension: the commit looked at' }))

export const DockerfileCheckRequest = Type.Object(
  {
    git_repository: gitRepository('ApplicationGitRepositoryRequest'),
    dockerfile_path: Type.String({ minLength: 1, maxLength: 1024, description: 'path of the dockerfile with root_path as base path' }),
  },
  { additionalProperties: false, title: 'DockerfileCheckRequest' },
)

export const DockerfileCheckResponse = Type.Object(
  {
    dockerfile_path: Type.String(),
    arg: Type.Array(Type.String(), { description: 'every ARG the Dockerfile declares' }),
    repositories: Type.Array(Type.String(), { description: 'every image repository its FROM lines name (build stages aside)' }),
    found,
    commit,
    message,
  },
  { title: 'DockerfileCheckResponse' },
)

export const GitFileCheckRequest = Type.Object(
  { git_repository: gitRepository('HelmGitRepositoryRequest'), files: Type.Array(RelativePath, { minItems: 1, maxItems: 100 }) },
  { additionalProperties: false, title: 'GitFileCheckRequest' },
)

export const GitFileCheckResponse = Type.Object(
  {
    found,
    files: Type.Array(Type.Object({ path: Type.String(), found: Type.Boolean() }), {
      description: 'Berth extension: each file asked for, found or not',
    }),
    commit,
    message,
  },
  { title: 'GitFileCheckResponse' },
)

export const HelmCheckRequest = Type.Object(
  {
    git_repository: Type.Optional(gitRepository('HelmGitRepositoryRequest')),
    helm_repository: Type.Optional(
      Type.Object(
        {
          repository: Uuid,
          chart_name: Type.String({ minLength: 1, maxLength: 255 }),
          chart_version: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
        },
        { additionalProperties: false, description: "Berth extension: a chart of one of the organization's helm repositories" },
      ),
    ),
  },
  { additionalProperties: false, title: 'HelmCheckRequest', description: 'one of git_repository (a chart at root_path) or helm_repository' },
)

export const HelmCheckResponse = Type.Object(
  {
    found,
    chart_name: Type.Optional(Type.String()),
    chart_versions: Type.Optional(Type.Array(Type.String(), { description: 'the versions found (one for a chart in git)' })),
    commit,
    message,
  },
  { title: 'HelmCheckResponse' },
)

export const ContainerImageCheckRequest = Type.Object(
  {
    registry_id: Uuid,
    image_name: Type.String({ minLength: 1, maxLength: 512 }),
    tag: Type.String({ minLength: 1, maxLength: 128 }),
  },
  { additionalProperties: false, title: 'ContainerImageCheckRequest' },
)

export const ContainerImageCheckResponse = Type.Object(
  { found, image_name: Type.String(), tag: Type.String(), message },
  { title: 'ContainerImageCheckResponse' },
)
