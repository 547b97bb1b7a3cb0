import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { stringify } from 'yaml'
import { resolveHost } from '#src/modules/git-providers/address-guard.ts'
import type { HelmConfig } from '#src/modules/services/kinds/helm/helm.types.ts'
import type { HelmDeployOverrides } from '#src/modules/services/kinds/helm/helm-deployments.ts'
import { resolvePlaceholders } from '#src/modules/services/kinds/helm/helm-deployments.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { secretMask } from '#src/platform/secrets/secret-masking.ts'
import type { DeploymentExecutor, ServiceOutcome } from '../executor.ts'
import { removeRunCheckouts } from '../git-checkout.ts'
import { type BuiltinDeps, type KubernetesKinds, kubernetesAction } from './builtin-deployments.ts'
import { type ClusterVersions, clusterVersions } from './cluster-versions.ts'
import { gitChart, gitValuesFiles } from './git-charts.ts'
import { type HelmDialect, helmDialect } from './helm-dialect.ts'
import { HelmFailed, runHelm } from './helm-program.ts'
import { helmVersion, type ProgramVersion, unsupportedHelm } from './program-versions.ts'
import type { ReleaseContext } from './release-context.ts'
import { renderCheckInstall } from './release-steps.ts'
import { releaseWorkloadAction } from './release-workloads.ts'

// Helm services on a Kubernetes cluster (docs/kubernetes.md, "Deploying to Kubernetes"): the chart is fetched
// from its source (a helm repository, or git: git-charts.ts), rendered with `helm template`, checked (no cluster-wide object unless
// allow_cluster_wide_resources), then installed with `helm upgrade --install` in the environment's
// namespace with the cluster's kubeconfig, written to a private temporary file for that one call.
// Containers, jobs and databases are releases of the chart Berth ships (builtin-deployments.ts),
// through the same steps (release-steps.ts).

/** A chart repository as the executor reaches it, its credentials in clear. */
export interface ChartRepository {
  /** HTTPS, or one of the OCI_* kinds. */
  kind: string
  url: string
  skipTlsVerification: boolean
  username?: string | undefined
  password?: string | undefined
}

/** Why helm may not fetch from the repository at `url` (its host resolved and checked), or undefined. */
async function chartHostRefusal(url: string): Promise<string | undefined> {
  const host = URL.canParse(url) ? new URL(url).hostname : undefined
  const check = host ? await resolveHost(host) : { ok: false as const, reason: 'the repository URL names no host' }
  if (check.ok) return undefined
  return `chart fetch refused: ${check.reason}; the server fetches from such repositories only with BERTH_GIT_ALLOW_PRIVATE_URLS=true`
}

export interface KubernetesExecutorDeps extends BuiltinDeps {
  /** What it does to a service of each kind (the kinds' `kubernetes` entries). */
  kinds: KubernetesKinds
  /** BERTH_HELM_PATH: the helm program. */
  helmPath: string
  /** Its version, as the start-up found it; asked of helm at the first deployment when not given. */
  helmVersion?: ProgramVersion
  /** The kubeconfig of the environment's cluster, in clear; undefined when none is stored. */
  kubeconfig(organizationId: string, environmentId: string): Promise<string | undefined>
  /** A helm repository of the organization with its credentials. */
  chartRepository(organizationId: string, repositoryId: string): Promise<ChartRepository>
  /** Opens a sealed (base64) secret variable. */
  openSecret(sealed: string): string
  /** Where work directories are made; the system's temporary directory by default. */
  workRoot?: string
  /** BERTH_KUBECTL_PATH: the kubectl program STOP and RESTART run; `kubectl` by default. */
  kubectlPath?: string
  /** Keeps the versions of the environment's cluster and of kubectl, seen as the executor acts on it, for the cluster's status. */
  recordClusterVersions?(organizationId: string, environmentId: string, versions: ClusterVersions): Promise<void>
}

/** The namespace an environment's services are installed in. */
export const namespaceOf = (environmentId: string) => `berth-${environmentId}`

/** A helm release name (at most 53 characters, a DNS label) for the service: its name made safe, and its id. */
export function releaseName(snapshot: Pick<ServiceSnapshot, 'name' | 'serviceId'>): string {
  const safe = snapshot.name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '')
  return `${safe || 'helm'}-${snapshot.serviceId.slice(0, 8)}`
}

/**
 * The values arguments, in helm's own order of precedence (lowest first): values files, then
 * --set-json, --set, --set-string (helm applies them in that order whatever their place on the
 * command line). Variables named as qovery.env.NAME are resolved in every value. Values files
 * from git (`gitFiles`, as fetched) take the raw files' place.
 */
export async function valuesArguments(
  dir: string,
  configuration: HelmConfig,
  variables: ReadonlyMap<string, string>,
  gitFiles: { content: string }[] = [],
): Promise<string[]> {
  const { set, setString, setJson, file } = configuration.valuesOverride
  const args: string[] = []
  const files = file && 'raw' in file ? file.raw.values : gitFiles
  for (const [index, value] of files.entries()) {
    const target = path.join(dir, `values-${index}.yaml`)
    await writeFile(target, resolvePlaceholders(value.content, variables), { mode: 0o600 })
    args.push('--values', target)
  }
  for (const [key, value] of setJson) args.push('--set-json', `${key}=${resolvePlaceholders(value, variables)}`)
  for (const [key, value] of set) args.push('--set', `${key}=${resolvePlaceholders(value, variables)}`)
  for (const [key, value] of setString) args.push('--set-string', `${key}=${resolvePlaceholders(value, variables)}`)
  return args
}

/** The service's extra arguments as argv words (a client may send a flag and its value as one string). */
export const extraArguments = (configuration: Pick<HelmConfig, 'arguments'>) =>
  configuration.arguments.flatMap((argument) => argument.trim().split(/\s+/)).filter((word) => word !== '')

/** Pulls the chart into `dir` and returns its path (a .tgz), with the repository files helm needs written there. */
async function pullChart(
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

export function createKubernetesExecutor(deps: KubernetesExecutorDeps): DeploymentExecutor {
  const workRoot = deps.workRoot ?? os.tmpdir()
  const workDirPrefix = (runId: string) => path.join(workRoot, `berth-helm-${runId}-`)
  // Asked once; a helm that could not be asked is asked again at the next deployment (it may be installed since).
  let dialect: Promise<HelmDialect> | undefined = deps.helmVersion ? Promise.resolve(helmDialect(deps.helmVersion)) : undefined
  const helmDialectOnce = () => {
    dialect ??= helmVersion(deps.helmPath).then((version) => {
      const unsupported = unsupportedHelm(version)
      if (unsupported) throw new HelmFailed(unsupported)
      return helmDialect(version)
    })
    dialect.catch(() => {
      dialect = undefined
    })
    return dialect
  }
  /** The values a dry run's comparison must never show: the secret variables, and what the kind names (a database's password). */
  const secretValues = (snapshot: ServiceSnapshot): string[] => [
    ...snapshot.variables.filter((variable) => variable.isSecret).map((variable) => deps.openSecret(variable.sealed ?? '')),
    ...(deps.kinds[snapshot.kind]?.secretValues?.(snapshot, deps.openSecret) ?? []),
  ]
  return {
    /** Removes the work directories (each holding the cluster's kubeconfig) and checkouts a run whose runner was killed left on this host. */
    async abandoned(run, say) {
      const prefix = path.basename(workDirPrefix(run.id))
      for (const entry of await readdir(workRoot).catch(() => [] as string[])) {
        if (!entry.startsWith(prefix)) continue
        await rm(path.join(workRoot, entry), { recursive: true, force: true })
        say(`removed the work directory ${entry}, left by the interrupted run`)
      }
      await removeRunCheckouts(run.id, say)
    },
    async run(_service, action, signal, context): Promise<ServiceOutcome> {
      const snapshot = context.snapshot
      if (!snapshot || !context.run) return { ok: false, message: 'the deployment has no snapshot of the service' }
      const { organizationId, environmentId } = context.run
      const kubeconfig = await deps.kubeconfig(organizationId, environmentId)
      if (kubeconfig === undefined) return { ok: false, message: 'the cluster has no kubeconfig: store one with editClusterKubeconfig' }
      let flags: HelmDialect
      try {
        flags = await helmDialectOnce()
      } catch (error) {
        if (error instanceof HelmFailed) return { ok: false, message: error.message }
        throw error
      }
      // Named after the run: a runner killed mid-action leaves it (with the kubeconfig) to the runner that ends the run.
      const dir = await mkdtemp(workDirPrefix(context.run.id))
      // What the history entry learns on the way (the commit of a chart in git), whatever the outcome.
      const found: { details?: Record<string, unknown> } = {}
      try {
        await chmod(dir, 0o700)
        const kubeconfigPath = path.join(dir, 'kubeconfig')
        await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 })
        const versions = await clusterVersions({ kubectlPath: deps.kubectlPath ?? 'kubectl', kubeconfigPath, home: dir, signal }, context.log)
        if (versions) await deps.recordClusterVersions?.(organizationId, environmentId, versions)
        const helm = (step: string) => (args: string[]) =>
          runHelm(deps.helmPath, args, {
            signal,
            env: { HOME: dir },
            onLine: (line, stream) => context.log(step, line, stream === 'stderr' ? 'WARNING' : 'INFO'),
          })
        const namespace = namespaceOf(environmentId)
        const release = releaseName(snapshot)
        const cluster = ['--namespace', namespace, '--kubeconfig', kubeconfigPath]
        const steps: ReleaseContext = { helmPath: deps.helmPath, dialect: flags, dir, namespace, release, cluster, helm, context, signal }
        // A dry run renders and guards as a deploy does, and compares instead of installing (release-dry-runs.ts).
        if (action === 'DEPLOY_DRY_RUN') steps.dryRun = { mask: secretMask(secretValues(snapshot)) }
        // What is done is the kind's entry: containers, jobs and databases are releases of the chart
        // Berth ships; a helm service's is its own chart.
        const kind = deps.kinds[snapshot.kind]
        if (!kind) return { ok: false, message: `${snapshot.kind.toLowerCase()} services are not deployed on Kubernetes clusters` }
        return await kind.perform(snapshot, {
          ...kubernetesAction(deps, steps, snapshot, action, context.run),
          ownChart: {
            install: () => install(snapshot as ServiceSnapshot<HelmConfig>, steps, organizationId, found),
            workloads: async (workloadAction) =>
              // A dry run never scales nor restarts (kinds ask it only of STOP and RESTART).
              steps.dryRun
                ? { ok: false, message: `a dry run does not ${workloadAction.toLowerCase()} workloads: nothing was changed` }
                : releaseWorkloadAction(workloadAction, {
                    helmPath: deps.helmPath,
                    kubectlPath: deps.kubectlPath ?? 'kubectl',
                    kubeconfigPath,
                    home: dir,
                    release,
                    namespace,
                    signal,
                    log: context.log,
                  }),
          },
        })
      } catch (error) {
        if (signal.aborted) throw error
        if (error instanceof HelmFailed || error instanceof Error) return { ok: false, message: error.message, ...found }
        throw error
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    },
  }

  async function install(
    snapshot: ServiceSnapshot<HelmConfig>,
    steps: ReleaseContext,
    organizationId: string,
    /** Where the commit of a chart from git is recorded for the history entry, whatever the outcome. */
    found: { details?: Record<string, unknown> },
  ): Promise<ServiceOutcome> {
    const { configuration } = snapshot
    const { source } = configuration
    const overrides = snapshot.overrides as HelmDeployOverrides
    const fetching = (step: string) => ({
      credentials: deps.gitCredentials ?? (async () => undefined),
      allowPrivateUrls: deps.allowPrivateUrls ?? false,
      say: (message: string) => steps.context.log(step, message),
      signal: steps.signal,
      ...(steps.context.run ? { runId: steps.context.run.id } : {}),
    })
    let chartPath: string
    if ('helmRepository' in source) {
      const chart = { name: source.helmRepository.chartName, version: overrides.chartVersion ?? source.helmRepository.chartVersion }
      const repository = await deps.chartRepository(organizationId, source.helmRepository.repositoryId)
      // helm connects wherever the repository's host leads, with its credentials: checked right before, as git is.
      const refused = deps.allowPrivateUrls ? undefined : await chartHostRefusal(repository.url)
      if (refused) {
        steps.context.log('chart', refused, 'ERROR')
        return { ok: false, message: refused }
      }
      steps.context.log('chart', `pulling ${chart.name} ${chart.version}`)
      chartPath = await pullChart(steps.dir, repository, chart, steps.helm('chart'), steps.dialect)
    } else {
      const fetched = await gitChart(steps.dir, organizationId, source.git, overrides.gitCommitId, fetching('chart'))
      if (!fetched.ok) return fetched
      chartPath = fetched.chartPath
      found.details = { commit: fetched.commit }
    }
    const { file } = configuration.valuesOverride
    let gitFiles: { content: string }[] = []
    if (file && 'git' in file) {
      const fetched = await gitValuesFiles(organizationId, file.git, overrides.valuesOverrideGitCommitId, fetching('values'))
      if (!fetched.ok) return { ...fetched, ...found }
      gitFiles = fetched.files
    }

    const variables = new Map(
      snapshot.variables.map((variable) => [variable.key, variable.isSecret ? deps.openSecret(variable.sealed ?? '') : (variable.value ?? '')]),
    )
    const outcome = await renderCheckInstall(steps, {
      path: chartPath,
      values: await valuesArguments(steps.dir, configuration, variables, gitFiles),
      allowClusterWide: configuration.allowClusterWideResources,
      timeoutSeconds: configuration.timeoutSec,
      extra: extraArguments(configuration),
    })
    return { ...outcome, ...found }
  }
}
