import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { secretMask } from '#src/platform/secrets/secret-masking.ts'
import type { DeploymentExecutor, ServiceOutcome, ServiceSnapshot } from '../executor.ts'
import { removeRunCheckouts } from '../git-checkout.ts'
import { snapshotSecretValues } from '../snapshot-secrets.ts'
import type { KindWorkloads, Workload, WorkloadSettings } from '../workload.ts'
import { type BuiltinDeps, builtinRelease } from './builtin-deployments.ts'
import { type ClusterVersions, clusterVersions } from './cluster-versions.ts'
import { type HelmDialect, helmDialect } from './helm-dialect.ts'
import { HelmFailed, runHelm } from './helm-program.ts'
import { type OwnChartDeps, ownChartRelease } from './own-charts.ts'
import { helmVersion, type ProgramVersion, unsupportedHelm } from './program-versions.ts'
import type { ReleaseContext } from './release-context.ts'

// The Kubernetes executor (docs/kubernetes.md, "Deploying to Kubernetes"): every service is a helm
// release in the environment's namespace, installed with the cluster's kubeconfig, written to a
// private temporary file for that one action. What a service runs is its kind's workload (the
// kinds' table handed in at wiring): a helm service's own chart (own-charts.ts), or the chart Berth
// ships for instances, runs, schedules and steps (builtin-deployments.ts). The executor names no kind.

export type { ChartRepository } from './own-charts.ts'
export { valuesArguments } from './own-charts.ts'

export interface KubernetesExecutorDeps extends BuiltinDeps, OwnChartDeps {
  /** What a service of each kind runs (the kinds' workloads). */
  kinds: KindWorkloads
  /** BERTH_DOCKER_DATABASE_IMAGES, `docker.io/library` by default. */
  databaseImages?: string
  /** BERTH_IAC_IMAGES; '' (the engines' official images) by default. */
  iacImages?: string
  /** BERTH_HELM_PATH: the helm program. */
  helmPath: string
  /** Its version, as the start-up found it; asked of helm at the first deployment when not given. */
  helmVersion?: ProgramVersion
  /** The kubeconfig of the environment's cluster, in clear; undefined when none is stored. */
  kubeconfig(organizationId: string, environmentId: string): Promise<string | undefined>
  /** Where work directories are made; the system's temporary directory by default. */
  workRoot?: string
  /** BERTH_KUBECTL_PATH: the kubectl program STOP and RESTART run; `kubectl` by default. */
  kubectlPath?: string
  /** Keeps the versions of the environment's cluster and of kubectl, seen as the executor acts on it, for the cluster's status. */
  recordClusterVersions?(organizationId: string, environmentId: string, versions: ClusterVersions): Promise<void>
  /** What an external kind's action reads its own credentials with (an Argo CD's); absent: such kinds are refused. */
  external?: { db: Db; secrets: SecretBox }
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

export function createKubernetesExecutor(deps: KubernetesExecutorDeps): DeploymentExecutor {
  const workRoot = deps.workRoot ?? os.tmpdir()
  const workDirPrefix = (runId: string) => path.join(workRoot, `berth-helm-${runId}-`)
  const settings: WorkloadSettings = { databaseImages: deps.databaseImages ?? 'docker.io/library', iacImages: deps.iacImages ?? '' }
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
    /**
     * One action to one service, step by step: its kind describes the workload; the cluster's
     * kubeconfig goes to a private work directory and its versions are noted; the workload is
     * released (rendered, checked, installed; compared instead in a dry run); the directory goes.
     */
    async run(_service, action, signal, context): Promise<ServiceOutcome> {
      const { snapshot, run } = context
      if (!snapshot || !run) return { ok: false, message: 'the deployment has no snapshot of the service' }
      const kind = deps.kinds[snapshot.kind]
      if (!kind) return { ok: false, message: `${snapshot.kind.toLowerCase()} services are not deployed on Kubernetes clusters` }
      const { organizationId, environmentId } = run
      const namespace = namespaceOf(environmentId)
      let workload: Workload
      try {
        workload = kind.describe(snapshot, { action, settings, openSecret: deps.openSecret, namespace })
      } catch (error) {
        return { ok: false, message: (error as Error).message }
      }
      if (workload.type === 'refused') return { ok: false, message: workload.message }
      if (workload.type === 'external') {
        if (!deps.external) return { ok: false, message: `this runner cannot reach what deploys ${snapshot.kind.toLowerCase()} services` }
        return workload.perform({ ...deps.external, action, run, log: context.log, signal })
      }
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
      const dir = await mkdtemp(workDirPrefix(run.id))
      // What the history entry learns on the way (the commit of a chart in git), whatever the outcome.
      const found: { details?: Record<string, unknown> } = {}
      try {
        await chmod(dir, 0o700)
        const kubeconfigPath = path.join(dir, 'kubeconfig')
        await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 })
        const kubectlPath = deps.kubectlPath ?? 'kubectl'
        const versions = await clusterVersions({ kubectlPath, kubeconfigPath, home: dir, signal }, context.log)
        if (versions) await deps.recordClusterVersions?.(organizationId, environmentId, versions)
        const helm = (step: string) => (args: string[]) =>
          runHelm(deps.helmPath, args, {
            signal,
            env: { HOME: dir },
            onLine: (line, stream) => context.log(step, line, stream === 'stderr' ? 'WARNING' : 'INFO'),
          })
        const cluster = ['--namespace', namespace, '--kubeconfig', kubeconfigPath]
        const release = releaseName(snapshot)
        const steps: ReleaseContext = { helmPath: deps.helmPath, dialect: flags, dir, namespace, release, cluster, helm, context, signal }
        // A dry run renders and guards as a deploy does, and compares instead of installing (release-dry-runs.ts).
        if (action === 'DEPLOY_DRY_RUN') {
          const secrets = snapshotSecretValues(snapshot, deps.openSecret, (of, open) => kind.secretValues?.(of as ServiceSnapshot, open) ?? [])
          steps.dryRun = { mask: secretMask(secrets) }
        }
        if (workload.type === 'chart')
          return await ownChartRelease(deps, workload, {
            action,
            snapshot,
            organizationId,
            steps,
            kubectl: { path: kubectlPath, kubeconfigPath },
            found,
          })
        return await builtinRelease(deps, workload, { action, snapshot, steps, run })
      } catch (error) {
        if (signal.aborted) throw error
        if (error instanceof HelmFailed || error instanceof Error) return { ok: false, message: error.message, ...found }
        throw error
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    },
  }
}
