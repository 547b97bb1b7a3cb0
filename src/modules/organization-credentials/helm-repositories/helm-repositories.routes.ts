import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { organizationResourceRoutes } from '#src/platform/http/organization-resource.routes.ts'
import { HelmRepositoryParams, HelmRepositoryRequest, HelmRepositoryResponse, HelmRepositoryResponseList } from './helm-repositories.schemas.ts'
import type { HelmRepositoriesService } from './helm-repositories.service.ts'
import { helmRepositoryInput, toHelmRepositoryResponse } from './helm-repositories.wire.ts'

export function helmRepositoriesRoutes(helmRepositories: HelmRepositoriesService): FastifyPluginAsyncTypebox {
  return organizationResourceRoutes(
    {
      segment: 'helmRepository',
      param: 'helmRepositoryId',
      tags: ['Helm Repositories'],
      schemas: {
        params: HelmRepositoryParams,
        request: HelmRepositoryRequest,
        response: HelmRepositoryResponse,
        responseList: HelmRepositoryResponseList,
      },
      docs: {
        list: {
          operationId: 'listHelmRepository',
          summary: 'List organization helm repositories',
          description:
            'Ordered by name; at most BERTH_LIST_LIMIT of them (`has_more` says when more exist). Secret config fields are never returned.',
        },
        create: {
          operationId: 'createHelmRepository',
          summary: 'Create a helm repository',
          description: 'Needs the WRITE role. password, secret_access_key and scaleway_secret_key are stored encrypted and never returned.',
        },
        get: { operationId: 'getHelmRepository', summary: 'Get a helm repository' },
        edit: {
          operationId: 'editHelmRepository',
          summary: 'Edit a helm repository',
          description: 'Needs the WRITE role. A full replacement, except that an omitted secret config field keeps its stored value; "" clears it.',
        },
        delete: {
          operationId: 'deleteHelmRepository',
          summary: 'Delete a helm repository',
          description: 'Needs the WRITE role. Refused with 409 while helm services use the repository.',
        },
      },
      inUse: 'helm services use the repository (`conflict`)',
      toInput: helmRepositoryInput,
      toResponse: toHelmRepositoryResponse,
    },
    helmRepositories,
  )
}
