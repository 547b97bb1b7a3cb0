import type { ServiceOutcome } from '../executor.ts'
import { HelmFailed, runHelm } from './helm-program.ts'
import { type ReleaseContext, upgradeInstallArgs } from './release-context.ts'

import { dryRunRelease } from './release-dry-runs.ts'
import { clusterWideObjects, renderedObjects } from './rendered-objects.ts'

// The steps every release goes through on a Kubernetes cluster, whichever chart it is (a helm
// service's, or the one Berth ships for the other kinds): render, check, install; or uninstall.

/** `helm uninstall` of the release in its namespace; one already gone is fine. */
export async function uninstallRelease(release: ReleaseContext): Promise<ServiceOutcome> {
  // Whatever a kind's entry asks of a dry run, it changes nothing: it only says so.
  if (release.dryRun) {
    release.context.log('diff', `a deploy would uninstall the release ${release.release}; dry run: nothing was uninstalled`)
    return { ok: true }
  }
  release.context.log('uninstall', `helm uninstall ${release.release} --namespace ${release.namespace}`)
  const ignoreNotFound = release.dialect.uninstallIgnoresNotFound
  try {
    await release.helm('uninstall')(['uninstall', release.release, ...release.cluster, ...(ignoreNotFound ? ['--ignore-not-found'] : []), '--wait'])
  } catch (error) {
    // helm before 3.13 has no --ignore-not-found: it says so.
    if (ignoreNotFound || !(error instanceof HelmFailed && /release: not found/.test(error.message))) throw error
    release.context.log('uninstall', `release ${release.release} is not installed: nothing to uninstall`)
  }
  return { ok: true }
}

/**
 * Renders `chart` with `values` (`helm template`), refuses objects outside the namespace unless
 * `allowClusterWide`, then `helm upgrade --install` with the same values and `extra` arguments; a
 * dry run says what that install would change instead.
 */
export async function renderCheckInstall(
  release: ReleaseContext,
  chart: { path: string; values: string[]; allowClusterWide: boolean; timeoutSeconds: number; extra: string[] },
): Promise<ServiceOutcome> {
  const { context, namespace } = release
  const extra = release.dialect.installArguments(chart.extra)
  if (!extra.ok) return extra
  context.log('render', `helm template ${release.release} --namespace ${namespace}`)
  const rendered = await runHelm(release.helmPath, ['template', release.release, chart.path, '--namespace', namespace, ...chart.values], {
    signal: release.signal,
    env: { HOME: release.dir },
    quietStdout: true,
  })
  if (!chart.allowClusterWide) {
    const refused = clusterWideObjects(renderedObjects(rendered.stdout), namespace)
    if (refused.length > 0) {
      for (const line of refused) context.log('render', line, 'ERROR')
      return {
        ok: false,
        message: `the chart renders objects outside the environment's namespace, and allow_cluster_wide_resources is false: ${refused.join('; ')}`,
      }
    }
  }
  if (release.dryRun)
    return dryRunRelease(
      release,
      { path: chart.path, values: chart.values, timeoutSeconds: chart.timeoutSeconds, extra: extra.args },
      rendered.stdout,
    )
  context.log('install', `helm upgrade --install ${release.release} --namespace ${namespace} --timeout ${chart.timeoutSeconds}s`)
  await release.helm('install')(upgradeInstallArgs(release, chart, extra.args))
  return { ok: true }
}
