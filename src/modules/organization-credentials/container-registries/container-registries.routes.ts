import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { organizationResourceRoutes } from '#src/platform/http/organization-resource.routes.ts'
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
const SECRETS = 'password, secret_access_key, scaleway_secret_key and json_credentials are stored encrypted and never returned.'

export function containerRegistriesRoutes(registries: ContainerRegistriesService): FastifyPluginAsyncTypebox {
  const crud = organizationResourceRoutes(
    {
      segment: 'containerRegistry',
      param: 'containerRegistryId',
      tags,
      schemas: {
        params: ContainerRegistryParams,
        request: ContainerRegistryRequest,
        response: ContainerRegistryResponse,
        responseList: ContainerRegistryResponseList,
      },
      docs: {
        list: {
          operationId: 'listContainerRegistry',
          summary: 'List organization container registries',
          description: `Ordered by name; at most BERTH_LIST_LIMIT of them (\`has_more\` says when more exist). ${SECRETS}`,
        },
        create: { operationId: 'createContainerRegistry', summary: 'Create a container registry', description: `Needs the WRITE role. ${SECRETS}` },
        get: { operationId: 'getContainerRegistry', summary: 'Get a container registry' },
        edit: {
          operationId: 'editContainerRegistry',
          summary: 'Edit a container registry',
          description: 'Needs the WRITE role. A full replacement, except that an omitted secret config field keeps its stored value; "" clears it.',
        },
        delete: {
          operationId: 'deleteContainerRegistry',
          summary: 'Delete a container registry',
          description: 'Needs the WRITE role. Refused with 409 while services use the registry.',
        },
      },
      inUse: 'services use the registry (`conflict`)',
      toInput: containerRegistryInput,
      toResponse: toContainerRegistryResponse,
    },
    registries,
  )

  return async (app) => {
    const base = '/organization/:organizationId/containerRegistry'
    await app.register(crud)

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
