import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { AppError, validationFailed } from '#src/platform/http/errors.ts'
import type { GitCredentials } from '../git-checkout.ts'
import type { GitRepository } from '../workload.ts'
import { gitChart } from './git-charts.ts'
import { helmDialect } from './helm-dialect.ts'
import { HelmFailed, runHelm } from './helm-program.ts'
import { type ChartRepository, chartHostRefusal, pullChart } from './own-charts.ts'
import { helmVersion, unsupportedHelm } from './program-versions.ts'

// createHelmDefaultValues (docs/kubernetes.md, "A chart's default values"): the chart fetched as a
// deployment fetches it (`helm pull` from its helm repository behind the address check, or a git
// checkout through the address guard), then `helm show values` on it.

export interface ChartDefaultValuesDeps {
  helmPath: string
  allowPrivateUrls: boolean
  gitCredentials(organizationId: string, repository: GitRepository): Promise<GitCredentials | undefined>
  /** How long the fetch and helm may take together. */
  timeoutMs: number
}

export type ChartSource = { repository: ChartRepository; chartName: string; version: string } | { git: GitRepository }

/** The chart's own values.yaml as `helm show values` prints it. */
export async function chartDefaultValues(deps: ChartDefaultValuesDeps, organizationId: string, source: ChartSource): Promise<string> {
  const signal = AbortSignal.timeout(deps.timeoutMs)
  const dir = await mkdtemp(path.join(os.tmpdir(), 'berth-default-values-'))
  // helm writes its caches under HOME: the work directory, removed afterwards.
  const helm = (args: string[]) => runHelm(deps.helmPath, args, { signal, env: { HOME: dir }, quietStdout: true })
  try {
    let chartPath: string
    if ('repository' in source) {
      const refused = deps.allowPrivateUrls ? undefined : await chartHostRefusal(source.repository.url)
      if (refused) throw new AppError('bad_request', refused)
      const version = await helmVersion(deps.helmPath)
      const unsupported = unsupportedHelm(version)
      if (unsupported) throw new AppError('service_unavailable', unsupported)
      chartPath = await pullChart(dir, source.repository, { name: source.chartName, version: source.version }, helm, helmDialect(version))
    } else {
      const fetched = await gitChart(dir, organizationId, source.git, undefined, {
        credentials: deps.gitCredentials,
        allowPrivateUrls: deps.allowPrivateUrls,
        say: () => {},
        signal,
      })
      if (!fetched.ok) throw validationFailed([{ path: '/source/git_repository', message: fetched.message, location: 'body' }])
      chartPath = fetched.chartPath
    }
    return (await helm(['show', 'values', chartPath])).stdout
  } catch (error) {
    if (error instanceof HelmFailed) throw new AppError('bad_gateway', `helm could not read the chart: ${error.message}`)
    if (signal.aborted) throw new AppError('gateway_timeout', `the chart could not be read within ${deps.timeoutMs} ms`)
    throw error
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
