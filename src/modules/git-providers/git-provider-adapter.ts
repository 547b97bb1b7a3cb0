import type { ProviderHttp } from './provider-http.ts'

/** A branch as a provider lists it; the optional fields only where the provider gives them. */
export interface GitBranch {
  name: string
  isDefault?: boolean
  commitId?: string
  protected?: boolean
}

export interface ListBranchesRequest {
  /** The API root, e.g. https://api.github.com or https://gitlab.example.com/api/v4. */
  apiRoot: URL
  /** The provider's secret: only ever put in the request's credential header. */
  token: string
  /** The repository's path as `repository` returned it. */
  repository: string
  /** The listing's deadline: every call made for it stops when it fires. */
  signal: AbortSignal
}

/** A commit as a provider describes it (contract 2.9), with the tag that points at it ('' when none is known). */
export interface GitCommit {
  id: string
  authorName: string
  /** The author's address as the commit records it; read for contributor listings, never put in a commit's answer. */
  authorEmail?: string
  authorAvatarUrl?: string
  message: string
  /** ISO 8601, as the provider dates the commit. */
  createdAt: string
  tag: string
  pageUrl?: string
}

/** What a commit look-up or listing asks for, beside the repository and credentials of a branch listing. */
export interface CommitsRequest extends ListBranchesRequest {
  /** A commit id or a branch name; null: the repository's default branch. */
  ref: string | null
}

/** One git provider's REST API, as far as branch listing and commits need it. */
export interface GitProviderAdapter {
  /** The provider's name for people, used in messages. */
  readonly label: string
  /** The API root for a token's git_api_url, or the public service's when it has none. */
  apiRoot(gitApiUrl: string | null): URL
  /** The repository path `name` designates (the token's workspace may complete it), or why it designates none. */
  repository(name: string, workspace: string | null): { path: string } | { problem: string }
  /** Every branch of the repository, following the provider's pagination to the end. */
  listBranches(http: ProviderHttp, request: ListBranchesRequest): Promise<GitBranch[]>
  /** The commit `ref` names (a branch: its head), with its tag; 400 at `/git_commit_id` when the provider knows no such commit. */
  getCommit(http: ProviderHttp, request: CommitsRequest): Promise<GitCommit>
  /** The newest `limit` commits reachable from `ref` (at most 100, one page), newest first, with their tags. */
  listCommits(http: ProviderHttp, request: CommitsRequest & { limit: number }): Promise<GitCommit[]>
}
