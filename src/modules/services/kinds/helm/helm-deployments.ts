import { comparisonStep } from '#src/modules/services/dry-run-plans.ts'
import type { PlannedStep, ServiceKind, ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { listNamesAction } from '#src/modules/services/simulated-failures.ts'
import type { RunnableTrigger } from '#src/platform/deployment-states.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { HelmConfig } from './helm.types.ts'

// What deploying a helm service means: the overrides a deploy request may add, the history
// `details` (contract 2.7, helm shape), and the steps an executor goes through.

/** What a helm deploy request asks for beyond the service's configuration (reference HelmDeployRequest). */
export interface HelmDeployOverrides {
  chartVersion?: string | undefined
  gitCommitId?: string | undefined
  valuesOverrideGitCommitId?: string | undefined
}

/** What a helm deploy request asks for that the service's sources cannot give (reference HelmDeployRequest). */
export function helmOverrideErrors(helm: Pick<HelmConfig, 'source' | 'valuesOverride'>, overrides: HelmDeployOverrides): FieldError[] {
  const errors: FieldError[] = []
  const error = (field: string, message: string) => errors.push({ path: `/${field}`, message, location: 'body' })
  const fromRepository = 'helmRepository' in helm.source
  if (overrides.chartVersion !== undefined && overrides.gitCommitId !== undefined) error('git_commit_id', 'cannot be set together with chart_version')
  else if (overrides.chartVersion !== undefined && !fromRepository)
    error('chart_version', 'applies to a chart of a helm repository; this chart is in a git repository')
  else if (overrides.gitCommitId !== undefined && fromRepository)
    error('git_commit_id', 'applies to a chart in a git repository; this chart is from a helm repository')
  const valuesFile = helm.valuesOverride.file
  if (overrides.valuesOverrideGitCommitId !== undefined && !(valuesFile && 'git' in valuesFile)) {
    error('values_override_git_commit_id', 'applies to values files in a git repository; this service has none')
  }
  return errors
}

/**
 * The values-override key that makes the simulated executor fail a service: `true` fails every
 * action; a comma-separated list of `deploy`, `restart`, `stop`, `uninstall` fails those only.
 */
export const SIMULATE_FAILURE_KEY = 'berth.simulate.fail'

export function simulatesFailure(helm: Pick<HelmConfig, 'valuesOverride'>, trigger: RunnableTrigger): boolean {
  const values = [...helm.valuesOverride.set, ...helm.valuesOverride.setString]
    .filter(([key]) => key === SIMULATE_FAILURE_KEY)
    .map(([, value]) => value.trim().toLowerCase())
  return values.some((value) => value === 'true' || listNamesAction(value, trigger))
}

/**
 * A helm service's `details` (contract 2.7, helm shape) as the deployment is queued: its chart and
 * version; for a chart in git, `commit` null (the executor that fetches the repository replaces it
 * with the commit it fetched, git-charts.ts), and the extension `git_commit_id` when the deploy
 * named one.
 */
export function helmDetails(helm: Pick<HelmConfig, 'source'>, overrides: HelmDeployOverrides): Record<string, unknown> {
  if ('helmRepository' in helm.source) {
    const { chartName, chartVersion } = helm.source.helmRepository
    return { repository: { chart_name: chartName, chart_version: overrides.chartVersion ?? chartVersion } }
  }
  return overrides.gitCommitId === undefined ? { commit: null } : { commit: null, git_commit_id: overrides.gitCommitId }
}

/** An argument as a log may show it: its flag, never its value. */
const flagOf = (argument: string) => (argument.startsWith('-') ? argument.split('=')[0]! : '<value>')

/** The chart as a log names it. */
function chartLine({ configuration, overrides }: ServiceSnapshot<HelmConfig>): string {
  const { source } = configuration
  const given = overrides as HelmDeployOverrides
  if ('helmRepository' in source) {
    const { chartName, chartVersion, repositoryId } = source.helmRepository
    return `chart ${chartName} version ${given.chartVersion ?? chartVersion} from helm repository ${repositoryId}`
  }
  const { url, branch, rootPath } = source.git
  const at = given.gitCommitId ? ` at commit ${given.gitCommitId}` : ` on ${branch ? `branch ${branch}` : 'the default branch'}`
  return `chart in ${url} ${rootPath}${at}`
}

/** The values as a log shows them: their keys and files, never a value (it may be a secret). */
function valuesLines({ configuration, overrides }: ServiceSnapshot<HelmConfig>): string[] {
  const { set, setString, setJson, file } = configuration.valuesOverride
  const keys = (pairs: [string, string][]) => (pairs.length === 0 ? 'none' : pairs.map(([key]) => key).join(', '))
  const lines = [`--set: ${keys(set)}`, `--set-string: ${keys(setString)}`, `--set-json: ${keys(setJson)}`]
  if (file && 'raw' in file) lines.push(`values files: ${file.raw.values.map((value) => value.name).join(', ') || 'none'}`)
  if (file && 'git' in file) {
    const at = (overrides as HelmDeployOverrides).valuesOverrideGitCommitId
    lines.push(`values files ${file.git.paths.join(', ')} from ${file.git.repository.url}${at ? ` at commit ${at}` : ''}`)
  }
  return lines
}

/**
 * How a values override names a variable, resolved at deploy time: `qovery.env.NAME`, the
 * platform's own macro, so that values files written for it work unchanged (docs/variables.md, "Variables in
 * helm values").
 */
const PLACEHOLDER = /qovery\.env\.([A-Za-z_][A-Za-z0-9_]*)/g

/** The variables a helm service's values override names, in order of first mention. */
export function referencedVariables(helm: Pick<HelmConfig, 'valuesOverride'>): string[] {
  const { set, setString, setJson, file } = helm.valuesOverride
  const texts = [...set, ...setString, ...setJson].map(([, value]) => value)
  if (file && 'raw' in file) texts.push(...file.raw.values.map((value) => value.content))
  return [...new Set(texts.flatMap((text) => [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!)))]
}

/**
 * A values text with each `qovery.env.NAME` replaced by the service's value for NAME, for an
 * executor that renders the chart; a name the service has no value for stays as written (the plan
 * fails such a deployment before it gets here).
 */
export function resolvePlaceholders(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => values.get(name) ?? whole)
}

/** The values step: what the values are made of, the variables they name, and those the service does not see. */
function valuesStep(snapshot: ServiceSnapshot<HelmConfig>): PlannedStep {
  const lines = valuesLines(snapshot)
  const referenced = referencedVariables(snapshot.configuration)
  if (referenced.length === 0) return { step: 'values', lines }
  const known = new Set(snapshot.variables.map((variable) => variable.key))
  const missing = referenced.filter((name) => !known.has(name))
  lines.push(`variables the values name (qovery.env.*): ${referenced.join(', ')}`)
  if (missing.length === 0) return { step: 'values', lines }
  return {
    step: 'values',
    lines,
    failure: `the values override names ${missing.map((name) => `qovery.env.${name}`).join(', ')}, which this service has no variable for`,
  }
}

/** What an executor does to a helm release, as it reports it. */
export function helmPlan(snapshot: ServiceSnapshot<HelmConfig>, action: RunnableTrigger): PlannedStep[] {
  const { name, configuration } = snapshot
  const flags = configuration.arguments.map(flagOf).join(' ')
  switch (action) {
    case 'DEPLOY':
    case 'RESTART':
      return [
        { step: 'chart', lines: [chartLine(snapshot)] },
        valuesStep(snapshot),
        {
          step: action === 'DEPLOY' ? 'install' : 'restart',
          lines: [
            action === 'DEPLOY'
              ? `helm upgrade --install ${name} --timeout ${configuration.timeoutSec}s${flags ? ` ${flags}` : ''}`
              : `restarting the workloads of release ${name}`,
          ],
        },
      ]
    case 'DEPLOY_DRY_RUN':
      return [
        { step: 'chart', lines: [chartLine(snapshot)] },
        valuesStep(snapshot),
        comparisonStep(
          'diff',
          `the objects of release ${name}, rendered with helm upgrade --install --dry-run=server, with those of the release running`,
        ),
      ]
    case 'STOP':
      return [{ step: 'stop', lines: [`scaling the workloads of release ${name} to zero`] }]
    case 'UNINSTALL':
    case 'DELETE':
      return [{ step: 'uninstall', lines: [`helm uninstall ${name}`] }]
  }
}

/** What a deployment of a helm service records of it, as the service kind says it. */
export const helmPlanning: Pick<ServiceKind<unknown, HelmConfig, HelmDeployOverrides>, 'type' | 'details' | 'iconUri' | 'simulatesFailure'> = {
  type: 'HELM',
  details: helmDetails,
  iconUri: (configuration) => configuration.iconUri,
  simulatesFailure,
}
