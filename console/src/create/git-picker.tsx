// Picking a repository and a branch through one of the organization's git tokens: the token's
// provider lists its repositories (getOrganization<Provider>Repositories) and then the chosen
// repository's branches (getOrganization<Provider>RepositoryBranches).
import { useEffect } from 'preact/hooks'
import type { FieldError } from '../api.ts'
import { api } from '../api.ts'
import type { GitToken, List } from '../types.ts'
import { useLoad } from '../ui.tsx'
import { FormField, type Values } from './form-kit.tsx'

interface Repository {
  id: string
  name: string
  url: string
  default_branch?: string
}

/** The request's `git_repository` from the picked values. */
export const gitRepositoryOf = (values: Values, prefix: string, tokens: GitToken[]) => {
  const token = tokens.find((candidate) => candidate.id === values[`${prefix}/git_token_id`])
  return {
    url: values[`${prefix}/url`] ?? '',
    branch: values[`${prefix}/branch`] || undefined,
    root_path: values[`${prefix}/root_path`] || '/',
    git_token_id: token?.id ?? null,
    provider: token?.type ?? 'GITHUB',
  }
}

export function GitPicker({
  organizationId,
  prefix,
  values,
  set,
  errors,
  tokens,
}: {
  organizationId: string
  /** The pointer of the request's `git_repository` (`/git_repository`). */
  prefix: string
  values: Values
  set: (path: string, value: string) => void
  errors: FieldError[]
  tokens: GitToken[]
}) {
  const tokenId = values[`${prefix}/git_token_id`] ?? ''
  const token = tokens.find((candidate) => candidate.id === tokenId)
  const provider = token?.type.toLowerCase()
  const repositories = useLoad(
    () =>
      token
        ? api.get<List<Repository>>(`/organization/${organizationId}/account/${provider}/repository?gitTokenId=${token.id}`)
        : Promise.resolve({ results: [] as Repository[] }),
    tokenId,
  )
  const url = values[`${prefix}/url`] ?? ''
  const repository = repositories.data?.results.find((candidate) => candidate.url === url)
  const branches = useLoad(
    () =>
      token && repository
        ? api.get<List<{ name: string; is_default?: boolean }>>(
            `/organization/${organizationId}/account/${provider}/repository/branch?gitTokenId=${token.id}&name=${encodeURIComponent(repository.name)}`,
          )
        : Promise.resolve({ results: [] as { name: string }[] }),
    `${tokenId}/${repository?.name ?? ''}`,
  )
  // The first token, repository and the default branch are chosen until the reader picks others.
  useEffect(() => {
    if (!tokenId && tokens[0]) set(`${prefix}/git_token_id`, tokens[0].id)
  }, [tokens.length])
  useEffect(() => {
    const first = repositories.data?.results[0]
    if (first && !repository) set(`${prefix}/url`, first.url)
  }, [repositories.data])
  useEffect(() => {
    const list = branches.data?.results
    if (list && list.length > 0 && !list.some((branch) => branch.name === values[`${prefix}/branch`])) {
      set(`${prefix}/branch`, repository?.default_branch ?? list[0]!.name)
    }
  }, [branches.data])

  if (tokens.length === 0) {
    return <p class="hint wide">The organization has no git token: add one (POST /organization/{'{id}'}/gitToken) to create a service from git.</p>
  }
  return (
    <>
      <FormField
        path={`${prefix}/git_token_id`}
        label="Git token"
        values={values}
        set={set}
        errors={errors}
        options={tokens.map((candidate) => ({ value: candidate.id, label: `${candidate.name} (${candidate.type})` }))}
      />
      <FormField
        path={`${prefix}/url`}
        label="Repository"
        values={values}
        set={set}
        errors={errors}
        loading={repositories.data === undefined && !repositories.error}
        options={repositories.data?.results.map((candidate) => ({ value: candidate.url, label: candidate.name }))}
        hint={repositories.error ?? undefined}
      />
      <FormField
        path={`${prefix}/branch`}
        label="Branch"
        values={values}
        set={set}
        errors={errors}
        loading={Boolean(repository) && branches.data === undefined && !branches.error}
        options={branches.data?.results.map((branch) => ({ value: branch.name, label: branch.name }))}
        hint={branches.error ?? undefined}
      />
      <FormField path={`${prefix}/root_path`} label="Root path" values={values} set={set} errors={errors} placeholder="/" />
    </>
  )
}
