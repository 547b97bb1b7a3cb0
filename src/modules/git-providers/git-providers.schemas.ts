import { type Static, Type } from 'typebox'

export const BranchQuery = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 1024,
    description:
      'The repository: `owner/repo` (GitHub), `group/subgroup/project` or a project id (GitLab), `workspace/repo` or `repo` in the git token’s workspace (Bitbucket)',
  }),
  gitTokenId: Type.Optional(
    Type.String({ format: 'uuid', description: "The git token to use; without it, the organization's only git token of the provider" }),
  ),
})
export type BranchQuery = Static<typeof BranchQuery>

export const GitRepositoryBranch = Type.Object(
  {
    name: Type.String({ description: 'the branch name', examples: ['main'] }),
    is_default: Type.Optional(Type.Boolean({ description: "Berth extension: whether it is the repository's default branch" })),
    commit_id: Type.Optional(Type.String({ description: 'Berth extension: the commit the branch points to' })),
    protected: Type.Optional(Type.Boolean({ description: 'Berth extension: whether the provider protects the branch (GitHub, GitLab)' })),
  },
  { title: 'GitRepositoryBranch' },
)
export type GitRepositoryBranch = Static<typeof GitRepositoryBranch>

export const GitRepositoryBranchResponseList = Type.Object({ results: Type.Array(GitRepositoryBranch) }, { title: 'GitRepositoryBranchResponseList' })
