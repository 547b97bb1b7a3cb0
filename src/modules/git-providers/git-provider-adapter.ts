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

/** One git provider's REST API, as far as branch listing needs it. */
export interface GitProviderAdapter {
  /** The provider's name for people, used in messages. */
  readonly label: string
  /** The API root for a token's git_api_url, or the public service's when it has none. */
  apiRoot(gitApiUrl: string | null): URL
  /** The repository path `name` designates (the token's workspace may complete it), or why it designates none. */
  repository(name: string, workspace: string | null): { path: string } | { problem: string }
  /** Every branch of the repository, following the provider's pagination to the end. */
  listBranches(http: ProviderHttp, request: ListBranchesRequest): Promise<GitBranch[]>
}
