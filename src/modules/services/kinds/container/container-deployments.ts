import type { PlannedStep, ResolveContext, ServiceKind, ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { argumentsSimulateFailure } from '#src/modules/services/simulated-failures.ts'
import type { RunnableTrigger } from '#src/platform/deployment-states.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { ContainerConfig } from './container.types.ts'
import { IMAGE_TAG } from './container-request-rules.ts'

// What deploying a container means: the tag a deploy request may choose, the history `details`
// (contract 2.7, container shape), and the steps an executor goes through.

/** What a container deploy request asks for beyond the configuration (reference ContainerDeployRequest). */
export interface ContainerDeployOverrides {
  imageTag?: string | undefined
}

export function containerOverrideErrors(_container: ContainerConfig, overrides: ContainerDeployOverrides): FieldError[] {
  if (overrides.imageTag === undefined || IMAGE_TAG.test(overrides.imageTag)) return []
  return [{ path: '/image_tag', message: 'must be an image tag: letters, digits, _ . - (at most 128, not starting with . or -)', location: 'body' }]
}

/**
 * The argument that makes the simulated executor fail a container: `berth.simulate.fail` fails
 * every action; `berth.simulate.fail=deploy,stop` (of deploy, restart, stop, uninstall) those only.
 */
export const SIMULATE_FAILURE_ARGUMENT = 'berth.simulate.fail'

export const simulatesFailure = (container: Pick<ContainerConfig, 'arguments'>, trigger: RunnableTrigger): boolean =>
  argumentsSimulateFailure(container.arguments, SIMULATE_FAILURE_ARGUMENT, trigger)

/** A container's `details` (contract 2.7, container shape): the image and tag deployed, its arguments and entrypoint. */
export function containerDetails(container: ContainerConfig, overrides: ContainerDeployOverrides): Record<string, unknown> {
  return {
    image_name: container.imageName,
    tag: overrides.imageTag ?? container.tag,
    arguments: container.arguments,
    ...(container.entrypoint === null ? {} : { entrypoint: container.entrypoint }),
  }
}

/** The image as a log names it: name, tag and registry id; never the registry's credentials. */
const imageLine = ({ configuration, overrides }: ServiceSnapshot<ContainerConfig>) =>
  `pulling image ${configuration.imageName}:${(overrides as ContainerDeployOverrides).imageTag ?? configuration.tag} from container registry ${configuration.registryId}`

/** How the container is started, as a log shows it: the entrypoint, how many arguments (they may hold secrets), resources and ports. */
function startLines({ name, configuration }: ServiceSnapshot<ContainerConfig>): string[] {
  const { entrypoint, cpu, memory, minRunningInstances, maxRunningInstances, ports, storage } = configuration
  const instances = maxRunningInstances === -1 ? `${minRunningInstances}+` : `${minRunningInstances}-${maxRunningInstances}`
  return [
    `starting ${name}: entrypoint ${entrypoint ?? '(image default)'}, ${configuration.arguments.length} argument(s)`,
    `resources: ${cpu}m cpu, ${memory} MB memory, ${instances} instance(s)`,
    `ports: ${ports.length === 0 ? 'none' : ports.map((port) => `${port.internalPort}/${port.protocol}${port.publiclyAccessible ? ' public' : ''}`).join(', ')}`,
    ...(storage.length === 0 ? [] : [`storage: ${storage.map((volume) => `${volume.sizeGb} GB at ${volume.mountPoint}`).join(', ')}`]),
  ]
}

/** What an executor does to a container, as it reports it. */
export function containerPlan(snapshot: ServiceSnapshot<ContainerConfig>, action: RunnableTrigger): PlannedStep[] {
  const { name } = snapshot
  switch (action) {
    case 'DEPLOY':
      return [
        { step: 'pull', lines: [imageLine(snapshot)] },
        { step: 'start', lines: startLines(snapshot) },
      ]
    case 'DEPLOY_DRY_RUN':
      return [
        { step: 'pull', lines: [imageLine(snapshot)] },
        { step: 'compare', lines: [`comparing the image ${name} would run with the image it runs now; nothing running is changed`] },
      ]
    case 'RESTART':
      return [{ step: 'restart', lines: [`restarting the instances of ${name}`] }]
    case 'STOP':
      return [{ step: 'stop', lines: [`stopping the instances of ${name}`] }]
    case 'UNINSTALL':
    case 'DELETE':
      return [{ step: 'uninstall', lines: [`removing the instances, ports and storage of ${name}`] }]
  }
}

/**
 * A deploy runs the tag it names, else the configured one. Every other action (a redeploy, a stop,
 * a start after a stop) is of what runs: it carries the tag the last successful deploy or redeploy
 * ran, so that a container deployed at `image_tag: "2"`, stopped and started again runs 2, and its
 * entries say 2 (issue 42, docs/deployments.md "What runs after a deploy of another version").
 */
export async function resolveContainerOverrides(
  _container: ContainerConfig,
  overrides: ContainerDeployOverrides,
  { serviceId, trigger, lookups }: ResolveContext,
): Promise<ContainerDeployOverrides> {
  if (trigger === 'DEPLOY' || trigger === 'DEPLOY_DRY_RUN' || overrides.imageTag !== undefined) return overrides
  const deployed = (await lookups.deployedOverrides(serviceId))?.imageTag
  return typeof deployed === 'string' && deployed !== '' ? { ...overrides, imageTag: deployed } : overrides
}

/** What a deployment of a container records of it, as the service kind says it. */
export const containerPlanning: Pick<
  ServiceKind<unknown, ContainerConfig, ContainerDeployOverrides>,
  'type' | 'details' | 'iconUri' | 'simulatesFailure' | 'overrideErrors' | 'plan' | 'resolveOverrides'
> = {
  type: 'CONTAINER',
  details: containerDetails,
  iconUri: (configuration) => configuration.iconUri,
  simulatesFailure,
  overrideErrors: containerOverrideErrors,
  plan: containerPlan,
  resolveOverrides: resolveContainerOverrides,
}
