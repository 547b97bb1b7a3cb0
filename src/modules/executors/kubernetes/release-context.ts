import type { ExecutionContext } from '../executor.ts'
import type { HelmDialect } from './helm-dialect.ts'
import type { HelmRun } from './helm-program.ts'

// What one action on one release (a helm service's chart or the one Berth ships) works with.

/** One action on one release: where helm runs, and what it acts on. */
export interface ReleaseContext {
  helmPath: string
  /** The flags that helm takes. */
  dialect: HelmDialect
  /** The private work directory (mode 0700): helm's HOME, the kubeconfig and values files. */
  dir: string
  namespace: string
  release: string
  /** --namespace and --kubeconfig */
  cluster: string[]
  /** Runs helm, each line it prints logged under `step`. */
  helm: (step: string) => (args: string[]) => Promise<HelmRun>
  context: ExecutionContext
  signal: AbortSignal
  /**
   * Set for a dry run (DEPLOY_DRY_RUN): the release is rendered and guarded as for a deploy, then
   * compared with the one running instead of installed (release-dry-runs.ts); `mask` hides the
   * service's secrets in what the comparison logs.
   */
  dryRun?: { mask(text: string): string }
}

/** `helm upgrade --install` of `chart` as the release's install runs it; a dry run adds its own flags after. */
export function upgradeInstallArgs(
  release: ReleaseContext,
  chart: { path: string; values: string[]; timeoutSeconds: number },
  extra: string[],
): string[] {
  return [
    'upgrade',
    '--install',
    release.release,
    chart.path,
    ...release.cluster,
    '--create-namespace',
    '--timeout',
    `${chart.timeoutSeconds}s`,
    ...chart.values,
    ...extra,
  ]
}
