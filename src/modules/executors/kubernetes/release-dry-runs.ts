import { maskedLogLine } from '#src/platform/secrets/secret-masking.ts'
import type { ServiceOutcome } from '../executor.ts'
import { HelmFailed, runHelm } from './helm-program.ts'
import { manifestChanges } from './manifest-diff.ts'
import { type ReleaseContext, upgradeInstallArgs } from './release-context.ts'

// A dry run of a release (trigger DEPLOY_DRY_RUN; docs/rollbacks.md, "Dry runs"): the chart, rendered
// and guarded as a deploy renders and guards it, is rendered once more as `helm upgrade --install
// --dry-run=server` would install it (the cluster's lookups and helm's checks of the objects it would
// take over; nothing is written), or, with a helm too old for it, as `helm template` rendered it.
// Its objects are compared with the manifest of the release running (`helm get manifest`), and the
// logs say what a deploy would add, change and remove. Nothing is installed.

/** The chart of the release as a deploy would install it. */
export interface DryRunChart {
  path: string
  /** Its values arguments, as the install gets them. */
  values: string[]
  timeoutSeconds: number
  /** The install's other arguments, in this helm's words (helm-dialect.ts). */
  extra: string[]
}

/** The manifest `helm upgrade --install --dry-run=server --output json` prints, its release's `manifest`. */
function manifestOf(json: string): string {
  const release = JSON.parse(json.slice(json.indexOf('{'))) as { manifest?: unknown }
  if (typeof release.manifest !== 'string') throw new HelmFailed('helm upgrade --dry-run=server printed no manifest')
  return release.manifest
}

/** What would be installed: the server dry run's manifest, or `templated` (helm template's output) when this helm has none. */
async function proposedManifest(release: ReleaseContext, chart: DryRunChart, templated: string, say: (line: string) => void): Promise<string> {
  if (!release.dialect.serverDryRun) {
    say(`this runner's helm ${release.dialect.version.text} has no --dry-run=server (helm 3.13): the objects helm template rendered are compared`)
    return templated
  }
  say(
    `helm upgrade --install ${release.release} --namespace ${release.namespace} --dry-run=server: rendered with the cluster's lookups and checked, nothing installed`,
  )
  const { stdout } = await runHelm(release.helmPath, [...upgradeInstallArgs(release, chart, chart.extra), '--dry-run=server', '--output', 'json'], {
    signal: release.signal,
    env: { HOME: release.dir },
    // The manifest (standard output) may hold the values: only helm's warnings are logged.
    quietStdout: true,
    onLine: (line, stream) => {
      if (stream === 'stderr') release.context.log('render', release.dryRun?.mask(line) ?? line, 'WARNING')
    },
  })
  return manifestOf(stdout)
}

/** The manifest of the release installed (`helm get manifest`), or undefined when none is. */
async function runningManifest(release: ReleaseContext): Promise<string | undefined> {
  try {
    const { stdout } = await runHelm(release.helmPath, ['get', 'manifest', release.release, ...release.cluster], {
      signal: release.signal,
      env: { HOME: release.dir },
      quietStdout: true,
    })
    return stdout
  } catch (error) {
    if (error instanceof HelmFailed && /release: not found/.test(error.message)) return undefined
    throw error
  }
}

/**
 * The dry run of the release, once its chart was rendered (`templated`) and passed the guard: what a
 * deploy would change, logged under `diff`, every line masked of the service's secrets.
 */
export async function dryRunRelease(release: ReleaseContext, chart: DryRunChart, templated: string): Promise<ServiceOutcome> {
  const line = maskedLogLine(release.dryRun?.mask ?? ((text) => text))
  const say = (step: string) => (message: string) => release.context.log(step, line(message))
  const proposed = await proposedManifest(release, chart, templated, say('render'))
  const running = await runningManifest(release)
  const diff = say('diff')
  diff(
    running === undefined
      ? `the release ${release.release} is not installed in ${release.namespace}: a deploy would install it`
      : `compared with the manifest of the release ${release.release} running in ${release.namespace} (helm get manifest)`,
  )
  const changes = manifestChanges(running ?? '', proposed, release.namespace)
  const count = (change: string) => changes.filter((object) => object.change === change).length
  for (const object of changes) {
    if (object.change === 'unchanged') continue
    diff(`${object.change}: ${object.id}`)
    if (object.change === 'changed') for (const text of object.diff) diff(text)
  }
  diff(`a deploy would add ${count('added')}, change ${count('changed')} and remove ${count('removed')} object(s); ${count('unchanged')} unchanged`)
  diff('dry run: nothing was installed')
  return { ok: true }
}
