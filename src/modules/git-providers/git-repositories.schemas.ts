import { type Static, Type } from 'typebox'

export const RepositoryQuery = Type.Object({
  gitTokenId: Type.Optional(
    Type.String({ format: 'uuid', description: "The git token to use; without it, the organization's only git token of the provider" }),
  ),
})
export type RepositoryQuery = Static<typeof RepositoryQuery>

export const GitRepository = Type.Object(
  {
    id: Type.String({ description: "the provider's id of the repository" }),
    name: Type.String({
      description: 'its full path, as the branch listing takes it in `name`: `owner/repo`, `group/sub/project` or `workspace/repo`',
      examples: ['acme/simple-node-app'],
    }),
    url: Type.String({ description: 'its web address, as `git_repository.url` takes it', examples: ['https://github.com/acme/simple-node-app'] }),
    default_branch: Type.Optional(Type.String({ examples: ['main'] })),
    is_private: Type.Optional(Type.Boolean()),
  },
  { title: 'GitRepository' },
)
export type GitRepository = Static<typeof GitRepository>

export const GitRepositoryResponseList = Type.Object({ results: Type.Array(GitRepository) }, { title: 'GitRepositoryResponseList' })

export const GitAuthProvider = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'the git token' }),
    name: Type.String({ description: 'its provider: GITHUB, GITLAB or BITBUCKET', examples: ['GITHUB'] }),
    owner: Type.String({ description: "the git token's workspace when it has one, else its name" }),
    use_bot: Type.Boolean({ description: 'always false: Berth acts with the git token' }),
  },
  { title: 'GitAuthProvider' },
)

export const GitAuthProviderResponseList = Type.Object({ results: Type.Array(GitAuthProvider) }, { title: 'GitAuthProviderResponseList' })
