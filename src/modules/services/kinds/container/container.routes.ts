import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ContainerRegistryParams } from '#src/modules/container-registries/container-registries.schemas.ts'
import type { ContainerRegistriesService } from '#src/modules/container-registries/container-registries.service.ts'
import type { DeploymentTriggersService } from '#src/modules/deployments/api/triggers/deployment-triggers.service.ts'
import { toStatusResponse } from '#src/modules/deployments/api/triggers/triggers.wire.ts'
import { Status } from '#src/modules/deployments/deployments.schemas.ts'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { groupIdsOfBody } from '#src/modules/services/service-groups.ts'
import type { ServiceLink } from '#src/modules/services/service-links.ts'
import { LIST_WRITE_TIMEOUT_MS, SERVICE_LIST_DESCRIPTION, ServiceListQuery } from '#src/modules/services/service-lists.ts'
import { conflictResponse } from '#src/platform/http/common-schemas.ts'
import { entityTag, ifMatchTags, ifNoneMatchHits } from '#src/platform/http/entity-tags.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { responseWritten } from '#src/platform/http/response-written.ts'
import type { ContainerWrite } from './container.kind.ts'
import {
  ContainerParams,
  ContainerRequest,
  ContainerResponse,
  ContainerResponseList,
  DeleteContainerQuery,
  LinkResponseList,
} from './container.schemas.ts'
import type { ContainerServices } from './container.service.ts'
import type { ContainerServiceRecord } from './container.types.ts'
import { containerInput, toContainerResponse } from './container.wire.ts'
import { containerLinks } from './container-links.ts'
import { containerRequestErrors } from './container-request-rules.ts'

const ETAG_HEADER = {
  ETag: Type.String({ description: 'Berth extension: names this representation of the container; send it back in If-Match or If-None-Match' }),
}

const LIMITS =
  'A configuration over BERTH_SERVICE_CONFIG_MAX_BYTES (256 KiB of JSON by default) is a 400. An unknown `registry_id` is a 400 at /registry_id.'

/** The validated body as the service's input, with what it breaks of the rules the schema cannot say. */
const containerWrite = (body: ContainerRequest): ContainerWrite => ({
  input: containerInput(body),
  ruleErrors: containerRequestErrors(body),
  groups: groupIdsOfBody(body),
})

const StatusList = Type.Object({ results: Type.Array(Status) }, { title: 'ReferenceObjectStatusResponseList' })

export function containerServicesRoutes(
  containers: ContainerServices,
  deployments: DeploymentTriggersService,
  registries: Pick<ContainerRegistriesService, 'listAssociatedServices'>,
  /** The container's links with its running instances' addresses and its custom domains added (services.ts). */
  withCustomDomains: (container: ContainerServiceRecord, links: ServiceLink[]) => Promise<ServiceLink[]> = async (_, links) => links,
): FastifyPluginAsyncTypebox {
  /** The statuses of the environment's containers, or of those of them `only` names. */
  async function containerStatuses(
    principal: Parameters<DeploymentTriggersService['getEnvironmentStatuses']>[0],
    environmentId: string,
    only?: Set<string>,
  ) {
    const { services } = await deployments.getEnvironmentStatuses(principal, environmentId)
    return services
      .filter(({ service }) => service.kind === 'CONTAINER' && (!only || only.has(service.id)))
      .map(({ status }) => toStatusResponse(status))
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
        const associated = await registries.listAssociatedServices(req.principal, organizationId, containerRegistryId)
        const containerIds = new Set(associated.rows.filter((row) => row.serviceType === 'CONTAINER').map((row) => row.serviceId))
        const environmentIds = [...new Set(associated.rows.filter((row) => containerIds.has(row.serviceId)).map((row) => row.environmentId))]
        const results = []
        for (const environmentId of environmentIds) results.push(...(await containerStatuses(req.principal, environmentId, containerIds)))
        return { results }
      },
    )

    app.get(
      '/environment/:environmentId/container',
      {
        schema: {
          operationId: 'listContainer',
          summary: 'List containers',
          description: SERVICE_LIST_DESCRIPTION,
          tags: ['Containers'],
          params: EnvironmentParams,
          querystring: ServiceListQuery,
          response: { 200: ContainerResponseList },
        },
      },
      async (req, reply) => {
        const heldUntil = () => responseWritten(reply, LIST_WRITE_TIMEOUT_MS)
        return listBody(
          await containers.list(req.principal, req.params.environmentId, { startId: req.query.startId, heldUntil }),
          toContainerResponse,
        )
      },
    )

    app.post(
      '/environment/:environmentId/container',
      {
        schema: {
          operationId: 'createContainer',
          summary: 'Create a container',
          description: `Needs the WRITE role. ${LIMITS} An environment holds at most BERTH_SERVICES_PER_ENVIRONMENT services (200 by default), a 409 past it.`,
          tags: ['Containers'],
          params: EnvironmentParams,
          body: ContainerRequest,
          response: {
            201: { ...ContainerResponse, headers: ETAG_HEADER },
            ...conflictResponse('the name is taken in the environment, or the environment holds BERTH_SERVICES_PER_ENVIRONMENT services already'),
          },
        },
      },
      async (req, reply) => {
        const created = await containers.create(req.principal, req.params.environmentId, containerWrite(req.body))
        return reply.code(201).header('etag', entityTag(created.entityTag)).send(toContainerResponse(created))
      },
    )

    app.get(
      '/container/:containerId',
      {
        schema: {
          operationId: 'getContainer',
          summary: 'Get container by ID',
          description: 'Answers 304 when If-None-Match names the current ETag.',
          tags: ['Container Main Calls'],
          params: ContainerParams,
          response: { 200: { ...ContainerResponse, headers: ETAG_HEADER }, 304: { type: 'null', description: 'not modified' } },
        },
      },
      async (req, reply) => {
        const container = await containers.get(req.principal, req.params.containerId)
        reply.header('etag', entityTag(container.entityTag))
        // A 304 has no body; Fastify would serialise null as 'null'.
        if (ifNoneMatchHits(req.headers['if-none-match'], container.entityTag)) return reply.code(304).send(undefined as never)
        return toContainerResponse(container)
      },
    )

    app.put(
      '/container/:containerId',
      {
        schema: {
          operationId: 'editContainer',
          summary: 'Edit container',
          description:
            "A full replacement. Needs the WRITE role. A port or storage entry that names the id of one of the container's keeps it (a port without " +
            'id keeps the id of the port of the same name); entries left out are removed. Berth extension: with `If-Match: <ETag>` the edit ' +
            `applies only if nobody changed the container since, else 412. ${LIMITS}`,
          tags: ['Container Main Calls'],
          params: ContainerParams,
          body: ContainerRequest,
          response: {
            200: { ...ContainerResponse, headers: ETAG_HEADER },
            ...conflictResponse('the name is taken in the environment'),
            412: Type.Ref('ErrorResponse', { description: 'If-Match names a version that is no longer current (`precondition_failed`)' }),
          },
        },
      },
      async (req, reply) => {
        const updated = await containers.update(req.principal, req.params.containerId, containerWrite(req.body), ifMatchTags(req.headers['if-match']))
        return reply.header('etag', entityTag(updated.entityTag)).send(toContainerResponse(updated))
      },
    )

    app.delete(
      '/container/:containerId',
      {
        schema: {
          operationId: 'deleteContainer',
          summary: 'Delete container',
          description: 'Needs the WRITE role.',
          tags: ['Container Main Calls'],
          params: ContainerParams,
          querystring: DeleteContainerQuery,
        },
      },
      async (req, reply) => {
        await containers.delete(req.principal, req.params.containerId)
        return reply.code(204).send()
      },
    )

    app.get(
      '/container/:containerId/link',
      {
        schema: {
          operationId: 'listContainerLinks',
          summary: 'List all URLs of the container',
          description:
            'The URLs its publicly accessible ports are reached at. Under the simulator Berth derives stable addresses from the ids: ' +
            '`https://p<external port>-z<8 hex of the container id>-z<8 hex of the environment id>.berth.local` per HTTP or GRPC port ' +
            '(`tcp://…:<port>`, `udp://…:<port>` otherwise), plus the same host without `p<port>-` for the default port (`is_default`); ' +
            'then, when its environment deploys to Docker, `http://<host>:<host port>` (`tcp://`, `udp://`) per public port of each running instance (README, "Deploying with Docker"); ' +
            'then `https://<domain>` for each custom domain, on the default port (`is_qovery_domain: false`).',
          tags: ['Container Main Calls'],
          params: ContainerParams,
          response: { 200: LinkResponseList },
        },
      },
      async (req) => {
        const container = await containers.get(req.principal, req.params.containerId)
        const links = containerLinks(container).map(
          (link): ServiceLink => ({
            service_id: container.id,
            service_type: 'CONTAINER' as const,
            url: link.url,
            internal_port: link.internalPort,
            external_port: link.externalPort,
            is_qovery_domain: true,
            is_default: link.isDefault,
          }),
        )
        // Every link is the container's own (service_type CONTAINER).
        return { results: (await withCustomDomains(container, links)) as (ServiceLink & { service_type: 'CONTAINER' })[] }
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
      async (req, reply) =>
        reply.code(202).send(toStatusResponse(await deployments.redeployService(req.principal, 'CONTAINER', req.params.containerId))),
    )
  }
}
