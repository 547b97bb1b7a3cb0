import { cp, lstat, mkdir, readdir, readFile, realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import { type Checkout, CheckoutError, checkout, type GitCredentials, pathInCheckout } from '../git-checkout.ts'
import type { GitRepository } from '../workload.ts'

// Charts and values files of helm services kept in git (docs/kubernetes.md, "Deploying to Kubernetes"): the
// repository fetched like the Docker executor's builds (git-checkout.ts: the address guard, pinned
// addresses, the token through git's environment) at the deploy request's commit, else the head
// of the repository's branch. The chart is copied out of the checkout, which is removed at once.

export interface GitFetching {
  /** The credentials a repository is fetched with (its git token's), unsealed; undefined without one. */
  credentials(organizationId: string, repository: GitRepository): Promise<GitCredentials | undefined>
  /** BERTH_ALLOW_PRIVATE_URLS. */
  allowPrivateUrls: boolean
  say: (message: string) => void
  signal: AbortSignal
  /** The deployment's execution id, which the checkout is named after (removeRunCheckouts). */
  runId?: string
}

type Fetched<T> = ({ ok: true } & T) | { ok: false; message: string }

/** The commit as a helm history entry's `details.commit` (contract 2.9): the repository is fetched without tags, so `tag` is empty. */
export const commitDetails = (fetched: Pick<Checkout, 'commit' | 'described'>) => ({
  git_commit_id: fetched.commit,
  created_at: fetched.described.createdAt,
  author_name: fetched.described.authorName,
  message: fetched.described.message,
  tag: '',
})

interface GitChart {
  /** The chart's directory, in the executor's work directory. */
  chartPath: string
  commit: ReturnType<typeof commitDetails>
}

interface GitValues {
  files: { name: string; content: string }[]
  commit: string
}

/** Runs `use` on a checkout of `repository` at `commit` (else its branch's head), then removes the checkout. */
async function withCheckout<T>(
  organizationId: string,
  repository: GitRepository,
  commit: string | undefined,
  fetching: GitFetching,
  use: (fetched: Checkout) => Promise<Fetched<T>>,
): Promise<Fetched<T>> {
  let fetched: Checkout
  try {
    fetched = await checkout({
      url: repository.url,
      ref: commit ? { commit } : { branch: repository.branch },
      credentials: await fetching.credentials(organizationId, repository),
      allowPrivateUrls: fetching.allowPrivateUrls,
      say: fetching.say,
      signal: fetching.signal,
      ...(fetching.runId ? { runId: fetching.runId } : {}),
    })
  } catch (error) {
    if (error instanceof CheckoutError) return { ok: false, message: `cannot fetch ${repository.url}: ${error.message}` }
    throw error
  }
  try {
    return await use(fetched)
  } finally {
    await fetched.remove()
  }
}

/**
 * Why the chart directory may not be used as it is, or undefined: helm follows symbolic links, so
 * one leading out of the checkout (to a file of the runner) or to a directory (a loop) is refused.
 */
async function refusedLink(chart: string, checkoutDir: string): Promise<string | undefined> {
  const base = await realpath(checkoutDir)
  for (const entry of await readdir(chart, { recursive: true })) {
    const full = path.join(chart, entry)
    if (!(await lstat(full)).isSymbolicLink()) continue
    const target = await realpath(full).catch(() => undefined)
    if (!target?.startsWith(`${base}${path.sep}`) || !(await stat(target)).isFile()) {
      return `the chart's symbolic link ${entry} leads out of the repository, to a directory, or nowhere`
    }
  }
  return undefined
}

/**
 * The chart at the repository's root_path, copied into `dir` (links replaced by the files they name),
 * and the commit fetched, as history details say it.
 */
export function gitChart(
  dir: string,
  organizationId: string,
  repository: GitRepository,
  commit: string | undefined,
  fetching: GitFetching,
): Promise<Fetched<GitChart>> {
  return withCheckout<GitChart>(organizationId, repository, commit, fetching, async (fetched) => {
    const found = commitDetails(fetched)
    const root = await pathInCheckout(fetched.dir, repository.rootPath, 'directory')
    if (!root) return { ok: false, message: `the root_path ${repository.rootPath} is not a directory of the repository at commit ${fetched.commit}` }
    if (!(await pathInCheckout(fetched.dir, path.join(repository.rootPath, 'Chart.yaml'), 'file'))) {
      return { ok: false, message: `there is no Chart.yaml at the root_path ${repository.rootPath} at commit ${fetched.commit}` }
    }
    const refused = await refusedLink(root, fetched.dir)
    if (refused) return { ok: false, message: refused }
    const chartPath = path.join(dir, 'git-chart')
    await mkdir(chartPath)
    await cp(root, chartPath, { recursive: true, dereference: true, filter: (source) => path.basename(source) !== '.git' })
    fetching.say(`chart at ${repository.rootPath} of commit ${fetched.commit}`)
    return { ok: true, chartPath, commit: found }
  })
}

/** The values files at `paths` of the repository (from its root), in their order, as the raw files are given. */
export function gitValuesFiles(
  organizationId: string,
  source: { repository: GitRepository; paths: string[] },
  commit: string | undefined,
  fetching: GitFetching,
): Promise<Fetched<GitValues>> {
  return withCheckout<GitValues>(organizationId, source.repository, commit, fetching, async (fetched) => {
    const files: { name: string; content: string }[] = []
    for (const name of source.paths) {
      const file = await pathInCheckout(fetched.dir, name, 'file')
      if (!file) return { ok: false, message: `the values file ${name} is not a file of the repository at commit ${fetched.commit}` }
      files.push({ name, content: await readFile(file, 'utf8') })
    }
    fetching.say(`values files ${source.paths.join(', ')} of commit ${fetched.commit}`)
    return { ok: true, files, commit: fetched.commit }
  })
}
