import { Type } from 'typebox'
import { DateTime } from '#src/platform/http/common-schemas.ts'

/** The reference's `Commit`: a git commit as an application's commit list and a deployment's history show it. */
export const Commit = Type.Object(
  {
    git_commit_id: Type.String(),
    created_at: DateTime,
    author_name: Type.String(),
    message: Type.String(),
    tag: Type.String(),
    author_avatar_url: Type.Optional(Type.String()),
    commit_page_url: Type.Optional(Type.String()),
  },
  { title: 'Commit' },
)
