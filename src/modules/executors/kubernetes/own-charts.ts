import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { stringify } from 'yaml'
import { resolveHost } from '#src/modules/git-providers/address-guard.ts'
import type { ExecutorAction, ServiceOutcome, ServiceSnapshot } from '../executor.ts'
import type { GitCredentials } from '../git-checkout.ts'
import { type OpenSecret, openVariables } from '../snapshot-secrets.ts'
import { type ChartWorkload, type GitRepository, removes } from '../workload.ts'
import { gitChart, gitValuesFiles } from './git-charts.ts'
import type { HelmDialect } from './helm-dialect.ts'
import { HelmFailed } from './helm-program.ts'
import type { ReleaseContext } from './release-context.ts'
import { renderCheckInstall, uninstallRelease } from './release-steps.ts'
import { releaseWorkloadAction } from './release-workloads.ts'

// A service's own helm chart on a Kubernetes cluster (docs/kubernetes.md, "Deploying to
// Kubernetes"): fetched from its source (a helm repository, or git: git-charts.ts), rendered with
// `helm template`, checked (no cluster-wide object unless allow_cluster_wide_resources), then
// installed with `helm upgrade --install` (release-steps.ts). A stop or a restart acts on the
// release's workloads with kubectl: a second `upgrade` would restart nothing.

/** A chart repository as the executor reaches it, its credentials in clear. */
export interface ChartRepository {
  /** HTTPS, or one of the OCI_* kinds. */
  kind: string
  url: string
  skipTlsVerification: boolean
  username?: string | undefined
  password?: string | undefined
}

/** What a release of a service's own chart reads. */
export interface OwnChartDeps {
  /** A helm repository of the organization with its credentials. */
  chartRepository(organizationId: string, repositoryId: string): Promise<ChartRepository>
  openSecret: OpenSecret
  /** The credentials a git repository is fetched with (its git token's), unsealed; none by default. */
  gitCredentials?(organizationId: string, repository: GitRepository): Promise<GitCredentials | undefined>
  /** BERTH_ALLOW_PRIVATE_URLS; false by default. */
  allowPrivateUrls?: boolean
}

/** One action to one service's own chart: its release's steps, and kubectl with the cluster's kubeconfig for its workloads. */
export interface OwnChartRelease {
  action: ExecutorAction
  snapshot: ServiceSnapshot
  organizationId: string
  steps: ReleaseContext
  kubectl: { path: string; kubeconfigPath: string }
  /** Where the commit of a chart from git is recorded for the history entry, whatever the outcome. */
  found: { details?: Record<string, unknown> }
}

/** Why helm may not fetch from the repository at `url` (its host resolved and checked), or undefined. */
export async function chartHostRefusal(url: string): Promise<string | undefined> {
  const host = URL.canParse(url) ? new URL(url).hostname : undefined
  const check = host ? await resolveHost(host) : { ok: false as const, reason: 'the repository URL names no host' }
  if (check.ok) return undefined
  return `chart fetch refused: ${check.reason}; the server fetches from such repositories only with BERTH_ALLOW_PRIVATE_URLS=true`
}

/**
 * The values arguments, in helm's own order of precedence (lowest first): values files, then
 * --set-json, --set, --set-string (helm applies them in that order whatever their place on the
 * command line). Each value is resolved with the service's variables (`values.resolve`). Values
 * files from git (`gitFiles`, as fetched) take the raw files' place.
 */
export async function valuesArguments(
  dir: string,
  values: ChartWorkload['values'],
  variables: ReadonlyMap<string, string>,
  gitFiles: { content: string }[] = [],
): Promise<string[]> {
  const { set, setString, setJson, files, resolve } = values
  const args: string[] = []
  for (const [index, value] of (files && 'raw' in files ? files.raw : gitFiles).entries()) {
    const target = path.join(dir, `values-${index}.yaml`)
    await writeFile(target, resolve(value.content, variables), { mode: 0o600 })
    args.push('--values', target)
  }
  for (const [key, value] of setJson) args.push('--set-json', `${key}=${resolve(value, variables)}`)
  for (const [key, value] of set) args.push('--set', `${key}=${resolve(value, variables)}`)
  for (const [key, value] of setString) args.push('--set-string', `${key}=${resolve(value, variables)}`)
  return args
}

/** Pulls the chart into `dir` and returns its path (a .tgz), with the repository files helm needs written there. */
export async function pullChart(
  dir: string,
  repository: ChartRepository,
  chart: { name: string; version: string },
  run: (args: string[]) => Promise<unknown>,
  dialect: HelmDialect,
): Promise<string> {
  const destination = path.join(dir, 'chart')
  await mkdir(destination)
  const tls = repository.skipTlsVerification ? ['--insecure-skip-tls-verify'] : []
  if (repository.kind === 'HTTPS') {
    // Credentials go in helm's repositories file (mode 0600), never in argv where `ps` shows them.
    const repositoryConfig = path.join(dir, 'repositories.yaml')
    const cache = path.join(dir, 'repository-cache')
    await writeFile(
      repositoryConfig,
      stringify({
        apiVersion: '',
        generated: new Date(0).toISOString(),
        repositories: [
          {
            name: 'berth',
            url: repository.url,
            username: repository.username ?? '',
            password: repository.password ?? '',
            insecure_skip_tls_verify: repository.skipTlsVerification,
            pass_credentials_all: false,
          },
        ],
      }),
      { mode: 0o600 },
    )
    const files = ['--repository-config', repositoryConfig, '--repository-cache', cache]
    await run(['repo', 'update', 'berth', ...dialect.repoUpdateFlags, ...files])
    await run(['pull', `berth/${chart.name}`, '--version', chart.version, '--destination', destination, ...files, ...tls])
  } else {
    const url = new URL(repository.url.replace(/^(https?|oci):\/\//, 'oci://'))
    const registryConfig = path.join(dir, 'registry.json')
    const auth = repository.username ? { auth: Buffer.from(`${repository.username}:${repository.password ?? ''}`).toString('base64') } : {}
    await writeFile(registryConfig, JSON.stringify({ auths: { [url.host]: auth } }), { mode: 0o600 })
    const plain = repository.url.startsWith('http://') ? ['--plain-http'] : []
    if (plain.length > 0 && dialect.plainHttpRefused) throw new HelmFailed(dialect.plainHttpRefused)
    const ref = `oci://${url.host}${url.pathname.replace(/\/+$/, '')}/${chart.name}`
    await run(['pull', ref, '--version', chart.version, '--destination', destination, '--registry-config', registryConfig, ...tls, ...plain])
  }
  return path.join(destination, `${chart.name}-${chart.version}.tgz`)
}

/** An install, step by step: the chart fetched, its values files fetched, the values resolved, then render, check and `helm upgrade --install`. */
async function install(deps: OwnChartDeps, workload: ChartWorkload, release: OwnChartRelease): Promise<ServiceOutcome> {
  const { steps, organizationId, found, snapshot } = release
  const { source, values } = workload
  const fetching = (step: string) => ({
    credentials: deps.gitCredentials ?? (async () => undefined),
    allowPrivateUrls: deps.allowPrivateUrls ?? false,
    say: (message: string) => steps.context.log(step, message),
    signal: steps.signal,
    ...(steps.context.run ? { runId: steps.context.run.id } : {}),
  })
  let chartPath: string
  if ('repository' in source) {
    const chart = { name: source.repository.chartName, version: source.repository.version }
    const repository = await deps.chartRepository(organizationId, source.repository.repositoryId)
    // helm connects wherever the repository's host leads, with its credentials: checked right before, as git is.
    const refused = deps.allowPrivateUrls ? undefined : await chartHostRefusal(repository.url)
    if (refused) {
      steps.context.log('chart', refused, 'ERROR')
      return { ok: false, message: refused }
    }
    steps.context.log('chart', `pulling ${chart.name} ${chart.version}`)
    chartPath = await pullChart(steps.dir, repository, chart, steps.helm('chart'), steps.dialect)
  } else {
    const fetched = await gitChart(steps.dir, organizationId, source.git.repository, source.git.commit, fetching('chart'))
    if (!fetched.ok) return fetched
    chartPath = fetched.chartPath
    found.details = { commit: fetched.commit }
  }
  let gitFiles: { content: string }[] = []
  if (values.files && 'git' in values.files) {
    const { repository, paths, commit } = values.files.git
    const fetched = await gitValuesFiles(organizationId, { repository, paths }, commit, fetching('values'))
    if (!fetched.ok) return { ...fetched, ...found }
    gitFiles = fetched.files
  }
  const variables = new Map(openVariables(snapshot.variables, deps.openSecret).map((variable) => [variable.key, variable.value]))
  const outcome = await renderCheckInstall(steps, {
    path: chartPath,
    values: await valuesArguments(steps.dir, values, variables, gitFiles),
    allowClusterWide: workload.allowClusterWide,
    timeoutSeconds: workload.timeoutSeconds,
    extra: workload.extraArguments,
  })
  return { ...outcome, ...found }
}

/** Does `release.action` to the service's own chart. */
export async function ownChartRelease(deps: OwnChartDeps, workload: ChartWorkload, release: OwnChartRelease): Promise<ServiceOutcome> {
  const { action, steps } = release
  if (removes(action)) return uninstallRelease(steps)
  if (action === 'STOP' || action === 'RESTART')
    return releaseWorkloadAction(action, {
      helmPath: steps.helmPath,
      kubectlPath: release.kubectl.path,
      kubeconfigPath: release.kubectl.kubeconfigPath,
      home: steps.dir,
      release: steps.release,
      namespace: steps.namespace,
      signal: steps.signal,
      log: steps.context.log,
    })
  return install(deps, workload, release)
}
