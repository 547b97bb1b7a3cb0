import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { ContainerRegistryParams } from '#src/modules/organization-credentials/container-registries/container-registries.schemas.ts'
import type { KindCrudService } from '#src/modules/services/kind-descriptor.ts'
import type { KindRouteContext } from '#src/modules/services/kind-route-context.ts'
import type { ServiceLink } from '#src/modules/services/service-links.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { Status } from '#src/platform/deployment-status.schemas.ts'
import { ContainerParams, LinkResponseList } from './container.schemas.ts'
import type { ContainerServiceRecord } from './container.types.ts'
import { liveContainerLinks } from './container-links.ts'

// The container's own routes, besides those every kind has (kind-crud.routes.ts, service-actions.routes.ts).

const StatusList = Type.Object({ results: Type.Array(Status) }, { title: 'ReferenceObjectStatusResponseList' })

/** The statuses of the environment's containers and of a registry's: the routes before the containers' list. */
export function containerStatusRoutes({ triggers, containerRegistries }: KindRouteContext): FastifyPluginAsyncTypebox {
  /** The statuses of the environment's containers, or of those of them `only` names. */
  async function containerStatuses(principal: Principal, environmentId: string, only?: Set<string>) {
    const services = await triggers.environmentStatuses(principal, environmentId)
    return services.filter(({ serviceId, kind }) => kind === 'CONTAINER' && (!only || only.has(serviceId))).map(({ status }) => status)
  }

  return async (app) => {
    app.get(
      '/environment/:environmentId/container/status',
      {
        schema: {
          operationId: 'getEnvironmentContainerStatus',
          summary: 'List all environment container statuses',
          description: "The status of each of the environment's containers.",
          tags: ['Containers'],
          params: EnvironmentParams,
          response: { 200: StatusList },
        },
      },
      async (req) => ({ results: await containerStatuses(req.principal, req.params.environmentId) }),
    )

    app.get(
      '/organization/:organizationId/containerRegistry/:containerRegistryId/container/status',
      {
        schema: {
          operationId: 'getContainerRegistryContainerStatus',
          summary: 'List all container registry container statuses',
          description: 'The status of each container whose image comes from the registry (at most BERTH_LIST_LIMIT of them).',
          tags: ['Containers'],
          params: ContainerRegistryParams,
          response: { 200: StatusList },
        },
      },
      async (req) => {
        const { organizationId, containerRegistryId } = req.params
        const associated = await containerRegistries.listAssociatedServices(req.principal, organizationId, containerRegistryId)
        const containerIds = new Set(associated.rows.filter((row) => row.serviceType === 'CONTAINER').map((row) => row.serviceId))
        const environmentIds = [...new Set(associated.rows.filter((row) => containerIds.has(row.serviceId)).map((row) => row.environmentId))]
        const results = []
        for (const environmentId of environmentIds) results.push(...(await containerStatuses(req.principal, environmentId, containerIds)))
        return { results }
      },
    )
  }
}

/** A container's links and its reboot: the routes after its delete. */
export function containerMemberRoutes(
  { triggers, withLiveLinks }: KindRouteContext,
  containers: KindCrudService<ContainerServiceRecord>,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/container/:containerId/link',
      {
        schema: {
          operationId: 'listContainerLinks',
          summary: 'List all URLs of the container',
          description:
            'The URLs its publicly accessible ports are reached at. Under the simulator Berth derives stable addresses from the ids: ' +
            '`https://p<external port>-z<8 hex of the container id>-z<8 hex of the environment id>.berth.local` per HTTP or GRPC port ' +
            '(`tcp://…:<port>`, `udp://…:<port>` otherwise), plus the same host without `p<port>-` for the default port (`is_default`), ' +
            'then `https://<domain>` for each custom domain, on the default port (`is_qovery_domain: false`). ' +
            'When its environment deploys to Docker, only what answers, while an instance runs: its names at the front door ' +
            '(`https://z<8 hex of the id>.<BERTH_APPS_DOMAIN>[:<BERTH_PROXY_HTTPS_PORT>]` for the default port, `https://p<internal port>-z<8 hex>.…` per public web port; docs/front-door.md) ' +
            'and its custom domains whose last check passed, then `http://<host>:<host port>` (`tcp://`, `udp://`) per public port of each running instance, for debugging.',
          tags: ['Container Main Calls'],
          params: ContainerParams,
          response: { 200: LinkResponseList },
        },
      },
      async (req) => {
        const container = await containers.get(req.principal, req.params.containerId)
        // Every link is the container's own (service_type CONTAINER).
        return { results: (await liveContainerLinks(withLiveLinks, container)) as (ServiceLink & { service_type: 'CONTAINER' })[] }
      },
    )

    app.post(
      '/container/:containerId/restart-service',
      {
        schema: {
          operationId: 'rebootContainer',
          summary: 'Reboot container',
          description:
            'Restarts the container (trigger RESTART), as redeploy does. Needs the DEPLOY role. The deployment is queued behind those of the environment already queued or running.',
          tags: ['Container Actions'],
          params: ContainerParams,
          response: { 202: Status },
        },
      },
      async (req, reply) => reply.code(202).send(await triggers.restart(req.principal, 'CONTAINER', req.params.containerId)),
    )
  }
}
