import type { KindRoutes } from '#src/modules/services/kind-routes.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { toContainerRecord } from './container.kind.ts'
import { type ContainerDeployRequest as ContainerDeployBody, ContainerDeployRequest, ContainerResponse } from './container.schemas.ts'
import type { ContainerConfig } from './container.types.ts'
import { toContainerResponse } from './container.wire.ts'
import type { ContainerDeployOverrides } from './container-deployments.ts'

/** What a container deploy request (alone, or in a bulk deploy's `containers`) asks for beyond the configuration. */
// An empty tag is what the Go client sends for ContainerDeployRequest{} (its field is required).
export const containerDeployOverrides = (body: ContainerDeployBody | undefined): ContainerDeployOverrides =>
  body?.image_tag === undefined || body.image_tag === '' ? {} : { imageTag: body.image_tag }

/** Containers on the wire, for the routes every kind shares. */
export const containerRoutes: KindRoutes = {
  type: 'CONTAINER',
  segment: 'container',
  param: 'containerId',
  name: 'Container',
  tags: { actions: 'Container Actions', main: 'Container Main Calls', history: 'Container Deployment History' },
  deploy: {
    body: ContainerDeployRequest,
    description: '`image_tag` deploys that tag of the image instead of the configured one (the configuration keeps its tag).',
    overrides: (body) => containerDeployOverrides(body as ContainerDeployBody | undefined),
  },
  uninstall: true,
  response: { schema: ContainerResponse, of: (service) => toContainerResponse(toContainerRecord(service as ServiceRecord<ContainerConfig>)) },
  bulk: { statuses: 'containers', ids: 'container_ids' },
}
