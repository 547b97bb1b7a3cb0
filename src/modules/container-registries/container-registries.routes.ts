import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import {
  AvailableContainerRegistryResponseList,
  ContainerRegistryAssociatedServicesResponseList,
  ContainerRegistryParams,
  ContainerRegistryRequest,
  ContainerRegistryResponse,
  ContainerRegistryResponseList,
  ContainerVersionResponseList,
  ContainerVersionsQuery,
} from './container-registries.schemas.ts'
import type { ContainerRegistriesService } from './container-registries.service.ts'
import {
  availableContainerRegistries,
  containerRegistryInput,
  toAssociatedServiceResponse,
  toContainerRegistryResponse,
} from './container-registries.wire.ts'

const tags = ['Container Registries']
const inUse = Type.Ref('ErrorResponse', { description: 'services use the registry (`conflict`)' })
const SECRETS = 'password, secret_access_key, scaleway_secret_key and json_credentials are stored encrypted and never returned.'

export function containerRegistriesRoutes(registries: ContainerRegistriesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const base = '/organization/:organizationId/containerRegistry'

    app.get(
      base,
      {
        schema: {
          operationId: 'listContainerRegistry',
          summary: 'List organization container registries',
          description: `Ordered by name; at most BERTH_LIST_LIMIT of them (\`has_more\` says when more exist). ${SECRETS}`,
          tags,
          params: OrganizationParams,
          response: { 200: ContainerRegistryResponseList },
        },
      },
      async (req) => listBody(await registries.list(req.principal, req.params.organizationId), toContainerRegistryResponse),
    )

    app.post(
      base,
      {
        schema: {
          operationId: 'createContainerRegistry',
          summary: 'Create a container registry',
          description: `Needs the WRITE role. ${SECRETS}`,
          tags,
          params: OrganizationParams,
          body: ContainerRegistryRequest,
          response: { 201: ContainerRegistryResponse },
        },
      },
      async (req, reply) => {
        const created = await registries.create(req.principal, req.params.organizationId, containerRegistryInput(req.body))
        return reply.code(201).send(toContainerRegistryResponse(created))
      },
    )

    app.get(
      `${base}/:containerRegistryId`,
      {
        schema: {
          operationId: 'getContainerRegistry',
          summary: 'Get a container registry',
          tags,
          params: ContainerRegistryParams,
          response: { 200: ContainerRegistryResponse },
        },
      },
      async (req) => toContainerRegistryResponse(await registries.get(req.principal, req.params.organizationId, req.params.containerRegistryId)),
    )

    app.put(
      `${base}/:containerRegistryId`,
      {
        schema: {
          operationId: 'editContainerRegistry',
          summary: 'Edit a container registry',
          description: 'Needs the WRITE role. A full replacement, except that an omitted secret config field keeps its stored value; "" clears it.',
          tags,
          params: ContainerRegistryParams,
          body: ContainerRegistryRequest,
          response: { 200: ContainerRegistryResponse },
        },
      },
      async (req) => {
        const { organizationId, containerRegistryId } = req.params
        return toContainerRegistryResponse(
          await registries.update(req.principal, organizationId, containerRegistryId, containerRegistryInput(req.body)),
        )
      },
    )

    app.delete(
      `${base}/:containerRegistryId`,
      {
        schema: {
          operationId: 'deleteContainerRegistry',
          summary: 'Delete a container registry',
          description: 'Needs the WRITE role. Refused with 409 while services use the registry.',
          tags,
          params: ContainerRegistryParams,
          response: { 204: Type.Null({ description: 'deleted' }), 409: inUse },
        },
      },
      async (req, reply) => {
        await registries.delete(req.principal, req.params.organizationId, req.params.containerRegistryId)
        return reply.code(204).send(null)
      },
    )

    app.get(
      `${base}/:containerRegistryId/images`,
      {
        schema: {
          operationId: 'getContainerVersions',
          summary: 'List image version for a container registry',
          description:
            'Asks the registry itself, with its credentials, through its Docker Registry HTTP API v2, within BERTH_GIT_TIMEOUT_MS: with ' +
            '`imageName`, that image and its tags; without, the images of its catalog whose name holds `search`, with no versions. ' +
            'DOCKER_HUB, GITHUB_CR, GITHUB_ENTERPRISE_CR, GITLAB_CR, GENERIC_CR, SCALEWAY_CR and GCP_ARTIFACT_REGISTRY (with ' +
            'json_credentials) are listed; other kinds need their cloud API: 400. A registry that refuses the credentials: 400; ' +
            'an unknown image: 404; an unreachable registry: 502 or 504.',
          tags,
          params: ContainerRegistryParams,
          querystring: ContainerVersionsQuery,
          response: { 200: ContainerVersionResponseList },
        },
      },
      async (req) => {
        const { organizationId, containerRegistryId } = req.params
        const images = await registries.listVersions(req.principal, organizationId, containerRegistryId, req.query)
        return { results: images.map((image) => ({ image_name: image.imageName, versions: image.versions })) }
      },
    )

    app.get(
      `${base}/:containerRegistryId/associatedServices`,
      {
        schema: {
          operationId: 'getContainerRegistryAssociatedServices',
          summary: 'Get organization container registry associated services',
          description: 'The services whose image comes from the registry, by project, environment and name; at most BERTH_LIST_LIMIT of them.',
          tags: ['Organization Main Calls'],
          params: ContainerRegistryParams,
          response: { 200: ContainerRegistryAssociatedServicesResponseList },
        },
      },
      async (req) => {
        const { organizationId, containerRegistryId } = req.params
        const page = await registries.listAssociatedServices(req.principal, organizationId, containerRegistryId)
        return { results: page.rows.map(toAssociatedServiceResponse) }
      },
    )

    app.get(
      '/availableContainerRegistry',
      {
        schema: {
          operationId: 'listAvailableContainerRegistry',
          summary: 'List supported container registries',
          description:
            'The kinds of registry a create takes, each with the config fields it needs (the other fields are optional). DOCR is no longer taken.',
          tags,
          response: { 200: AvailableContainerRegistryResponseList },
        },
      },
      async () => ({ results: availableContainerRegistries() }),
    )
  }
}
