import { readFile } from 'node:fs/promises'
import { parse } from 'yaml'
import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import { type Checkout, CheckoutError, type GitCredentials, lookInCheckout, pathInCheckout } from '#src/modules/executors/git-checkout.ts'
import type { GitRepository } from '#src/modules/executors/workload.ts'
import type { ContainerRegistriesService } from '#src/modules/organization-credentials/container-registries/container-registries.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { AppError, validationFailed } from '#src/platform/http/errors.ts'
import type { ChartIndex, ChartRepository } from './chart-index.ts'
import { dockerfileFacts } from './dockerfile-facts.ts'

// Checks before a deploy (docs/checks.md): each really looks (a shallow fetch of the repository
// with the git token, the chart repository's index, the registry's tags), behind the address guard
// and within a timeout, and answers what it found. What is not there is a 200 saying so; a look
// that cannot be made (unreachable, refused credentials) is the error that says why.

export interface GitRepositoryInput {
  url: string
  branch: string | null
  rootPath: string
  gitTokenId: string | null
  provider: string | null
}

interface Deps {
  environments: Pick<EnvironmentsService, 'requireEnvironment'>
  /** Whether the git token is one of the organization's. */
  hasGitToken(organizationId: string, gitTokenId: string): Promise<boolean>
  /** The credentials a repository is fetched with (executors' repositoryCredentials). */
  credentials(organizationId: string, repository: GitRepository): Promise<GitCredentials | undefined>
  /** The organization's helm repository's URL, kind and credentials; undefined when it is not one. */
  chartRepository(organizationId: string, helmRepositoryId: string): Promise<ChartRepository | undefined>
  charts: Pick<ChartIndex, 'charts'>
  /** The organization's container registries: their images' tags (`listVersions` checks READ). */
  containerRegistries: Pick<ContainerRegistriesService, 'listVersions'>
  allowPrivateUrls: boolean
  timeoutMs: number
}

/** Checks fetch with the organization's credentials: WRITE, the role that configures what they check. */
const CHECK_ROLE: Role = 'WRITE'

export function createChecksService(deps: Deps) {
  /** A shallow checkout of the repository for `look`, removed after; a fetch that fails is a 400 saying why. */
  async function withCheckout<T>(organizationId: string, input: GitRepositoryInput, look: (fetched: Checkout, root: string) => Promise<T>) {
    if (input.gitTokenId && !(await deps.hasGitToken(organizationId, input.gitTokenId))) {
      throw validationFailed([{ path: '/git_repository/git_token_id', message: 'is not a git token of this organization', location: 'body' }])
    }
    const repository: GitRepository = { ...input, provider: input.provider ?? 'GITHUB' }
    const fetch = {
      credentials: () => deps.credentials(organizationId, repository),
      allowPrivateUrls: deps.allowPrivateUrls,
      timeoutMs: deps.timeoutMs,
    }
    // The repository the request names cannot be read: its field is what is wrong.
    return lookInCheckout(
      repository,
      fetch,
      {
        fetchFailed(error) {
          const why = error instanceof CheckoutError ? error.message : 'it did not answer in time'
          return validationFailed([{ path: '/git_repository/url', message: `could not be fetched: ${why}`, location: 'body' }])
        },
        rootPathMissing: () =>
          validationFailed([{ path: '/git_repository/root_path', message: 'is not a directory of the repository', location: 'body' }]),
      },
      look,
    )
  }

  async function organizationOf(principal: Principal, environmentId: string): Promise<string> {
    return (await deps.environments.requireEnvironment(principal, environmentId, CHECK_ROLE)).environment.organizationId
  }

  return {
    async dockerfile(principal: Principal, environmentId: string, repository: GitRepositoryInput, dockerfilePath: string) {
      const organizationId = await organizationOf(principal, environmentId)
      return withCheckout(organizationId, repository, async (fetched, root) => {
        const file = await pathInCheckout(root, dockerfilePath, 'file')
        if (!file)
          return {
            found: false,
            dockerfilePath,
            args: [],
            repositories: [],
            commit: fetched.commit,
            message: `${dockerfilePath} is not a file under root_path`,
          }
        return { found: true, dockerfilePath, ...dockerfileFacts(await readFile(file, 'utf8')), commit: fetched.commit, message: undefined }
      })
    },

    async gitFiles(principal: Principal, environmentId: string, repository: GitRepositoryInput, files: string[]) {
      const organizationId = await organizationOf(principal, environmentId)
      return withCheckout(organizationId, repository, async (fetched, root) => {
        const looked = await Promise.all(files.map(async (file) => ({ path: file, found: (await pathInCheckout(root, file, 'file')) !== undefined })))
        const missing = looked.filter((file) => !file.found).map((file) => file.path)
        return {
          found: missing.length === 0,
          files: looked,
          commit: fetched.commit,
          message: missing.length === 0 ? undefined : `not found under root_path: ${missing.join(', ')}`,
        }
      })
    },

    /** A chart in git (Chart.yaml at root_path), or a chart of one of the organization's helm repositories. */
    async helmChart(
      principal: Principal,
      environmentId: string,
      given: { git?: GitRepositoryInput; chart?: { repositoryId: string; chartName: string; chartVersion: string | undefined } },
    ) {
      const organizationId = await organizationOf(principal, environmentId)
      if ((given.git === undefined) === (given.chart === undefined)) {
        throw validationFailed([{ path: '/git_repository', message: 'give one of git_repository and helm_repository', location: 'body' }])
      }
      if (given.git) {
        return withCheckout(organizationId, given.git, async (fetched, root) => {
          const chartFile = await pathInCheckout(root, 'Chart.yaml', 'file')
          if (!chartFile) return { found: false, commit: fetched.commit, message: 'there is no Chart.yaml at root_path' }
          let chart: { name?: unknown; version?: unknown }
          try {
            chart = (parse(await readFile(chartFile, 'utf8')) ?? {}) as typeof chart
          } catch {
            return { found: false, commit: fetched.commit, message: 'Chart.yaml is not YAML' }
          }
          if (typeof chart.name !== 'string' || typeof chart.version !== 'string')
            return { found: false, commit: fetched.commit, message: 'Chart.yaml has no name or no version' }
          return { found: true, chartName: chart.name, chartVersions: [chart.version], commit: fetched.commit, message: undefined }
        })
      }
      const source = given.chart!
      const repository = await deps.chartRepository(organizationId, source.repositoryId)
      if (!repository) {
        throw validationFailed([{ path: '/helm_repository/repository', message: 'is not a helm repository of this organization', location: 'body' }])
      }
      const versions = (await deps.charts.charts(repository, source.chartName)).get(source.chartName)
      if (!versions)
        return { found: false, chartName: source.chartName, chartVersions: [], message: `the repository has no chart ${source.chartName}` }
      const found = source.chartVersion === undefined || versions.includes(source.chartVersion)
      return {
        found,
        chartName: source.chartName,
        chartVersions: versions,
        commit: undefined,
        message: found ? undefined : `the chart ${source.chartName} has no version ${source.chartVersion}`,
      }
    },

    async containerImage(principal: Principal, environmentId: string, registryId: string, imageName: string, tag: string) {
      const organizationId = await organizationOf(principal, environmentId)
      let tags: string[]
      try {
        tags = (await deps.containerRegistries.listVersions(principal, organizationId, registryId, { imageName }))[0]?.versions ?? []
      } catch (error) {
        // The registry has no such image: the check found nothing; an unknown registry is the request's fault.
        if (error instanceof AppError && error.code === 'not_found' && /registry has no/.test(error.message)) tags = []
        else if (error instanceof AppError && error.code === 'not_found')
          throw validationFailed([{ path: '/registry_id', message: 'is not a container registry of this organization', location: 'body' }])
        // A registry Berth cannot ask (its cloud's own API), or that refuses its credentials: the registry named is what is wrong.
        else if (error instanceof AppError && error.code === 'bad_request')
          throw validationFailed([{ path: '/registry_id', message: error.message, location: 'body' }])
        else throw error
      }
      const found = tags.includes(tag)
      return { found, imageName, tag, message: found ? undefined : `the registry has no ${imageName}:${tag}` }
    },
  }
}

export type ChecksService = ReturnType<typeof createChecksService>
