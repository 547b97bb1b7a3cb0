import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { type Checkout, CheckoutError, type GitCredentials, lookInCheckout, pathInCheckout } from '#src/modules/executors/git-checkout.ts'
import type { GitRepository } from '#src/modules/executors/workload.ts'
import { parseGitUrl } from '#src/modules/services/git-repositories/git-repository-url.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { AppError, validationFailed } from '#src/platform/http/errors.ts'
import { expressionText, parseHclBody } from './hcl-blocks.ts'

// What a repository holds at a branch, read from a real clone (git-checkout.ts: behind the address
// guard, with the repository's git token), for the forms that create terraform services.

interface Deps {
  requireAccess(principal: Principal, organizationId: string, needed: Role): Promise<unknown>
  /** Whether the git token is one of the organization's. */
  hasGitToken(organizationId: string, gitTokenId: string): Promise<boolean>
  credentials(organizationId: string, repository: GitRepository): Promise<GitCredentials | undefined>
  allowPrivateUrls: boolean
  /** How long a clone may take. */
  timeoutMs?: number
}

export interface RepositoryRequest {
  url: string
  branch?: string | null
  root_path?: string | null
  git_token_id?: string | null
  provider?: string
}

export interface TerraformVariable {
  key: string
  sensitive: boolean
  nullable: boolean
  default: string | null
  source: string
  description: string | null
}

/** Where tfvars files are looked for: every one under the root path, or those named. */
export type TfVarsMode = { type: 'AutoDiscover' } | { type: 'SpecificPaths'; paths: string[] }

const at = (field: string, message: string) => validationFailed([{ path: `/git_repository/${field}`, message, location: 'body' }])
const MAX_FILES = 1000
const MAX_FILE_BYTES = 1024 * 1024

/** The files under `dir` (skipping .git), as paths relative to `base`, at most MAX_FILES. */
async function filesUnder(dir: string, base: string, keep: (name: string) => boolean): Promise<string[]> {
  const found: string[] = []
  const walk = async (current: string) => {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      if (found.length >= MAX_FILES) return
      const full = path.join(current, entry.name)
      if (entry.isDirectory() && entry.name !== '.git') await walk(full)
      else if (entry.isFile() && keep(entry.name)) found.push(path.relative(base, full).split(path.sep).join('/'))
    }
  }
  await walk(dir)
  return found.sort()
}

export function createGitRepositoryFilesService({ timeoutMs = 60_000, ...deps }: Deps) {
  /** Clones the repository's branch, runs `read` on the clone and the root path's real directory, and removes the clone. */
  async function withClone<T>(
    principal: Principal,
    organizationId: string,
    request: RepositoryRequest,
    read: (fetched: Checkout, root: string) => Promise<T>,
  ): Promise<T> {
    await deps.requireAccess(principal, organizationId, 'WRITE')
    const gitTokenId = request.git_token_id ?? null
    if (gitTokenId && !(await deps.hasGitToken(organizationId, gitTokenId))) throw at('git_token_id', 'is not a git token of this organization')
    const provider = request.provider ?? parseGitUrl(request.url)?.hostProvider ?? 'GITHUB'
    const repository: GitRepository = { url: request.url, branch: request.branch ?? null, rootPath: request.root_path || '/', gitTokenId, provider }
    const fetch = { credentials: () => deps.credentials(organizationId, repository), allowPrivateUrls: deps.allowPrivateUrls, timeoutMs }
    const refusals = {
      fetchFailed: (error: unknown) => (error instanceof CheckoutError ? at('url', error.message) : error),
      rootPathMissing: () => at('root_path', 'is not a directory of the repository'),
    }
    return lookInCheckout(repository, fetch, refusals, read)
  }

  /** A file's text, refused past MAX_FILE_BYTES. */
  async function text(file: string, shown: string): Promise<string> {
    const content = await readFile(file)
    if (content.length > MAX_FILE_BYTES) throw new AppError('validation_failed', `${shown} is larger than 1 MiB`)
    return content.toString('utf8')
  }

  return {
    /** The immediate subdirectories of the root path, by name (.git left out). */
    listDirectories: (principal: Principal, organizationId: string, request: RepositoryRequest) =>
      withClone(principal, organizationId, request, async (_fetched, root) =>
        (await readdir(root, { withFileTypes: true }))
          .filter((entry) => entry.isDirectory() && entry.name !== '.git')
          .map((entry) => entry.name)
          .sort(),
      ),

    /** The `variable` blocks of the root path's .tf files (the module Terraform would run there). */
    parseVariables: (principal: Principal, organizationId: string, request: RepositoryRequest) =>
      withClone(principal, organizationId, request, async (fetched, root) => {
        const variables: TerraformVariable[] = []
        const files = (await readdir(root, { withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.tf'))
        for (const file of files.map((entry) => entry.name).sort()) {
          const source = path.relative(fetched.dir, path.join(root, file)).split(path.sep).join('/')
          let body: ReturnType<typeof parseHclBody>
          try {
            body = parseHclBody(await text(path.join(root, file), source))
          } catch (error) {
            throw at('root_path', `${source} cannot be read as HCL: ${(error as Error).message}`)
          }
          for (const block of body.blocks.filter((candidate) => candidate.type === 'variable' && candidate.labels.length === 1)) {
            const attribute = (name: string) => block.attributes.find((candidate) => candidate.name === name)?.expression
            const defaultValue = attribute('default')
            const description = attribute('description')
            variables.push({
              key: block.labels[0]!,
              sensitive: attribute('sensitive') === 'true',
              nullable: attribute('nullable') !== 'false',
              default: defaultValue === undefined || defaultValue === 'null' ? null : expressionText(defaultValue),
              source,
              description: description === undefined ? null : expressionText(description),
            })
          }
        }
        return variables
      }),

    /** The tfvars files under the root path (or those named, from the repository's root) with their assignments as text. */
    listTfVars: (principal: Principal, organizationId: string, request: RepositoryRequest, mode: TfVarsMode) =>
      withClone(principal, organizationId, request, async (fetched, root) => {
        const isTfVars = (name: string) => name.endsWith('.tfvars') || name.endsWith('.tfvars.json')
        const sources =
          mode.type === 'AutoDiscover'
            ? await filesUnder(root, fetched.dir, isTfVars)
            : await Promise.all(
                mode.paths.map(async (given, index) => {
                  const file = await pathInCheckout(fetched.dir, given, 'file')
                  if (!file) throw validationFailed([{ path: `/mode/paths/${index}`, message: 'is not a file of the repository', location: 'body' }])
                  return path.relative(fetched.dir, file).split(path.sep).join('/')
                }),
              )
        const results: { source: string; variables: Record<string, string> }[] = []
        for (const source of sources) {
          const content = await text(path.join(fetched.dir, source), source)
          try {
            results.push({ source, variables: source.endsWith('.json') ? jsonVariables(content) : hclVariables(content) })
          } catch (error) {
            throw validationFailed([{ path: '/mode', message: `${source} cannot be read: ${(error as Error).message}`, location: 'body' }])
          }
        }
        return results
      }),
  }
}

function hclVariables(content: string): Record<string, string> {
  return Object.fromEntries(parseHclBody(content).attributes.map((attribute) => [attribute.name, expressionText(attribute.expression)]))
}

function jsonVariables(content: string): Record<string, string> {
  const parsed = JSON.parse(content) as unknown
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('a .tfvars.json file holds one object')
  return Object.fromEntries(Object.entries(parsed).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]))
}

export type GitRepositoryFilesService = ReturnType<typeof createGitRepositoryFilesService>
