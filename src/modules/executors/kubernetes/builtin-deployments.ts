import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { RegistryPullAccess } from '#src/modules/container-registries/registry-pull-access.ts'
import type { RunnableTrigger } from '#src/modules/deployments/deployment-states.ts'
import type { ContainerConfig } from '#src/modules/services/kinds/container/container.types.ts'
import type { ContainerDeployOverrides } from '#src/modules/services/kinds/container/container-deployments.ts'
import type { DatabaseConfig } from '#src/modules/services/kinds/database/database.types.ts'
import type { JobConfig } from '#src/modules/services/kinds/job/job.types.ts'
import { commandFor, type JobDeployOverrides, LIFECYCLE_EVENT } from '#src/modules/services/kinds/job/job-deployments.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { imageReference } from '../docker/images.ts'
import type { ServiceOutcome } from '../executor.ts'
import {
  BUILTIN_CHART,
  type ChartOwner,
  type ChartValues,
  containerValues,
  databaseValues,
  jobValues,
  type OpenVariable,
} from './builtin-chart-values.ts'
import { type ReleaseContext, renderCheckInstall, uninstallRelease } from './release-steps.ts'

// Containers, container databases and jobs on a Kubernetes cluster (README, "Deploying to
// Kubernetes"): each service is a release of the chart Berth ships, installed by the same steps as
// a helm service's chart (render, the cluster-wide check, `helm upgrade --install`), with `--wait`
// so that the deployment ends when Kubernetes says the workload is ready (a Job: complete).

export interface BuiltinDeps {
  /** Opens a sealed (base64) secret: a variable, a database's password. */
  openSecret(sealed: string): string
  /** A container registry's host and credentials (unsealed), for an image and its pull secret. */
  registry?(organizationId: string, registryId: string): Promise<RegistryPullAccess>
  /** BERTH_DOCKER_DATABASE_IMAGES: where databases' official images are; `docker.io/library` by default. */
  databaseImages?: string
}

/** How long a rollout may take before helm gives up (services have no timeout of their own). */
const ROLLOUT_TIMEOUT_SECONDS = 600
/** What a job's run gets beyond its max_duration_seconds: pulling the image, waiting for a node. */
const JOB_START_SECONDS = 300

const isRemoval = (action: RunnableTrigger) => action === 'UNINSTALL' || action === 'DELETE'

/** Installs the built-in chart with `values`, written to a private values file (they hold the variables in clear). */
async function installChart(steps: ReleaseContext, values: ChartValues, timeoutSeconds: number, wait: string[]): Promise<ServiceOutcome> {
  const file = path.join(steps.dir, 'berth-values.json')
  await writeFile(file, JSON.stringify(values), { mode: 0o600 })
  steps.context.log('render', `the chart Berth ships: a ${values.workload}${values.ports.length > 0 ? ' and its Service' : ''}`)
  return renderCheckInstall(steps, { path: BUILTIN_CHART, values: ['--values', file], allowClusterWide: false, timeoutSeconds, extra: wait })
}

export async function deployBuiltin(
  deps: BuiltinDeps,
  steps: ReleaseContext,
  snapshot: ServiceSnapshot,
  action: RunnableTrigger,
  run: { id: string; organizationId: string; environmentId: string },
): Promise<ServiceOutcome> {
  const owner: ChartOwner = { serviceId: snapshot.serviceId, environmentId: run.environmentId, executionId: run.id }
  const variables = (): OpenVariable[] =>
    snapshot.variables.map((variable) => ({
      key: variable.key,
      value: variable.isSecret ? deps.openSecret(variable.sealed ?? '') : (variable.value ?? ''),
      mountPath: variable.mountPath,
    }))
  const image = async (registryId: string, imageName: string, tag: string) => {
    if (!deps.registry) throw new Error('this runner cannot read container registries')
    const registry = await deps.registry(run.organizationId, registryId)
    return { reference: imageReference(registry.host, imageName, tag), registry }
  }

  switch (snapshot.kind) {
    case 'CONTAINER': {
      if (isRemoval(action)) return uninstallRelease(steps)
      const container = snapshot as ServiceSnapshot<ContainerConfig>
      const { registryId, imageName, tag } = container.configuration
      const pulled = await image(registryId, imageName, (snapshot.overrides as ContainerDeployOverrides).imageTag ?? tag)
      const values = containerValues(container, owner, variables(), pulled, action === 'STOP')
      return installChart(steps, values, ROLLOUT_TIMEOUT_SECONDS, ['--wait'])
    }
    case 'DATABASE': {
      if (isRemoval(action)) return uninstallRelease(steps)
      const database = snapshot as ServiceSnapshot<DatabaseConfig>
      const config = database.configuration
      if (config.mode !== 'CONTAINER')
        return { ok: false, message: `a ${config.mode} database needs a cloud provider; Kubernetes clusters run CONTAINER databases` }
      const password = deps.openSecret(config.credentials.passwordSealed)
      const values = databaseValues(database, owner, deps.databaseImages ?? 'docker.io/library', password, action === 'STOP')
      return installChart(steps, values, ROLLOUT_TIMEOUT_SECONDS, ['--wait'])
    }
    case 'JOB':
      return job(snapshot as ServiceSnapshot<JobConfig>)
    case 'APPLICATION':
      if (isRemoval(action)) return uninstallRelease(steps)
      return {
        ok: false,
        message:
          'an application on a Kubernetes cluster needs its image built from git, and Berth has no image builder for Kubernetes clusters yet: deploy it on a Docker cluster, or as a container service from an image in a registry',
      }
    default:
      return { ok: false, message: `${snapshot.kind.toLowerCase()} services are not deployed on Kubernetes clusters` }
  }

  async function job(snapshot: ServiceSnapshot<JobConfig>): Promise<ServiceOutcome> {
    const config = snapshot.configuration
    const overrides = snapshot.overrides as JobDeployOverrides
    const delivers = action === 'DEPLOY' || action === 'RESTART'
    const { schedule, source } = config
    const forced = delivers ? overrides.forceEvent : undefined
    // A tick of the scheduler: the cluster's CronJob runs it on its own.
    if (forced === 'CRON' && overrides.scheduledFor && 'cronjob' in schedule) {
      steps.context.log('schedule', 'the CronJob on the cluster runs the ticks of this schedule: nothing to do')
      return { ok: true }
    }
    const event = forced ?? ('cronjob' in schedule ? undefined : LIFECYCLE_EVENT[action])
    const command = event ? commandFor(config, event) : undefined
    if (isRemoval(action) && !command) return uninstallRelease(steps)
    if (!('image' in source)) {
      if (isRemoval(action)) steps.context.log('run', 'the on_delete event is not run: the job is built from git', 'WARNING')
      return isRemoval(action)
        ? uninstallRelease(steps)
        : {
            ok: false,
            message:
              'a job built from git needs its image built, and Berth has no image builder for Kubernetes clusters yet: deploy it on a Docker cluster, or give the job an image from a registry',
          }
    }
    if (!('cronjob' in schedule) && !command) {
      steps.context.log('run', 'no command for this event: nothing to run')
      return { ok: true }
    }
    const pulled = await image(source.image.registryId, source.image.imageName, overrides.imageTag || source.image.tag)
    const wait = ['--wait', '--wait-for-jobs']
    const timeout = config.maxDurationSeconds + JOB_START_SECONDS
    if ('cronjob' in schedule) {
      const { scheduledAt, timezone } = schedule.cronjob
      const values = jobValues(snapshot, owner, variables(), pulled, {
        cron: { scheduledAt, timezone, command: schedule.cronjob },
        stopped: action === 'STOP',
        runNow: forced === 'CRON',
      })
      return installChart(steps, values, timeout, wait)
    }
    if (!command) return { ok: true }
    const outcome = await installChart(steps, jobValues(snapshot, owner, variables(), pulled, { command }), timeout, wait)
    // The on_delete event ran: the release goes with the service.
    return outcome.ok && isRemoval(action) ? uninstallRelease(steps) : outcome
  }
}
