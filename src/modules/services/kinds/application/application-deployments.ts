import type { GitCommit } from '#src/modules/git-providers/git-provider-adapter.ts'
import { comparisonStep } from '#src/modules/services/dry-run-plans.ts'
import type { PlannedStep, ResolveContext, ServiceKind, ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { argumentsSimulateFailure } from '#src/modules/services/simulated-failures.ts'
import type { RunnableTrigger } from '#src/platform/deployment-states.ts'
import type { ApplicationConfig, ApplicationDeployOverrides } from './application.types.ts'
import { toCommitResponse } from './application.wire.ts'

// What deploying an application means: the commit it builds (resolved at the git provider when the
// deployment is queued), the history `details` (contract 2.7, application shape), and the steps an
// executor goes through.

/**
 * The commit a deployment builds. A deploy resolves the commit it names (else the branch's head, or
 * the default branch's) at the provider now, so that the snapshot and the history name exactly what
 * is built, whatever is pushed later; the provider's error is the trigger's answer. Other actions
 * build nothing: they carry the commit the last successful deploy or redeploy built, for history.
 */
export async function resolveApplicationOverrides(
  configuration: ApplicationConfig,
  overrides: ApplicationDeployOverrides,
  { organizationId, serviceId, trigger, lookups }: ResolveContext,
): Promise<ApplicationDeployOverrides> {
  if (trigger === 'DEPLOY' || trigger === 'DEPLOY_DRY_RUN') {
    const { provider, owner, name, gitTokenId, branch } = configuration.gitRepository
    const commit = await lookups.gitCommit({ organizationId, provider, owner, name, gitTokenId }, overrides.gitCommitId ?? branch)
    return { ...overrides, commit }
  }
  const deployed = (await lookups.deployedOverrides(serviceId))?.commit as GitCommit | undefined
  return deployed ? { ...overrides, commit: deployed } : overrides
}

/** The argument that makes the simulated executor fail an application (docs/deployments.md, "Simulated deployments"). */
export const SIMULATE_FAILURE_ARGUMENT = '--berth-simulate-fail'

/** `--berth-simulate-fail` fails every action; `--berth-simulate-fail=deploy,stop` those only. */
export const applicationSimulatesFailure = (configuration: Pick<ApplicationConfig, 'arguments'>, trigger: RunnableTrigger): boolean =>
  argumentsSimulateFailure(configuration.arguments, SIMULATE_FAILURE_ARGUMENT, trigger)

/** An application's `details` (contract 2.7): the commit the deployment builds as its provider describes it, and its build pod. */
export function applicationDetails(_configuration: ApplicationConfig, overrides: ApplicationDeployOverrides, deployment?: { executionId: string }) {
  return {
    commit: overrides.commit ? toCommitResponse(overrides.commit) : null,
    build_pod_name: `build-${deployment?.executionId ?? 'unknown'}-0`,
  }
}

/** The commit as a log names it: its id and the first line of its message (never the author's address: providers give none here). */
function commitLine({ configuration, overrides }: ServiceSnapshot<ApplicationConfig>): string {
  const { url, branch, rootPath } = configuration.gitRepository
  const commit = (overrides as ApplicationDeployOverrides).commit
  const at = commit
    ? `commit ${commit.id} (${commit.message.split('\n', 1)[0]!.slice(0, 200)})`
    : branch
      ? `the head of ${branch}`
      : 'the default branch'
  return `cloning ${url} at ${at}, root ${rootPath}`
}

/** What an executor does to an application, as it reports it; argument values never appear, only their count. */
export function applicationPlan(snapshot: ServiceSnapshot<ApplicationConfig>, action: RunnableTrigger): PlannedStep[] {
  const { name, configuration: app } = snapshot
  const instances = app.maxRunningInstances === -1 ? `${app.minRunningInstances}+` : `${app.minRunningInstances}-${app.maxRunningInstances}`
  const ports = app.ports.map((port) => `${port.internalPort}/${port.protocol}${port.publiclyAccessible ? ' (public)' : ''}`).join(', ') || 'none'
  switch (action) {
    case 'DEPLOY':
    case 'DEPLOY_DRY_RUN': {
      const build: PlannedStep = {
        step: 'build',
        lines: [
          commitLine(snapshot),
          `docker build -f ${app.dockerfilePath ?? 'Dockerfile'}${app.dockerTargetBuildStage ? ` --target ${app.dockerTargetBuildStage}` : ''} .`,
        ],
      }
      if (action === 'DEPLOY_DRY_RUN') return [build, comparisonStep('compare', `the image built for ${name} with the image it runs now`)]
      return [
        build,
        {
          step: 'deploy',
          lines: [
            `running ${name}: ${instances} instances of ${app.cpu}m CPU and ${app.memory} MB, ports ${ports}, ${app.arguments.length} arguments`,
          ],
        },
      ]
    }
    case 'RESTART':
      return [{ step: 'restart', lines: [`restarting the instances of ${name}`] }]
    case 'STOP':
      return [{ step: 'stop', lines: [`scaling ${name} to zero instances`] }]
    case 'UNINSTALL':
    case 'DELETE':
      return [{ step: 'uninstall', lines: [`removing the instances, ports and storage of ${name}`] }]
  }
}

/** What a deployment of an application records of it, as the service kind says it. */
export const applicationPlanning: Pick<
  ServiceKind<unknown, ApplicationConfig, ApplicationDeployOverrides>,
  'type' | 'details' | 'iconUri' | 'simulatesFailure' | 'resolveOverrides' | 'plan'
> = {
  type: 'APPLICATION',
  details: applicationDetails,
  iconUri: (configuration) => configuration.iconUri,
  simulatesFailure: applicationSimulatesFailure,
  resolveOverrides: resolveApplicationOverrides,
  plan: applicationPlan,
}
