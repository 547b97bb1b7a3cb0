import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import { listBody } from '#src/platform/http/lists.ts'
import { HelmRepositoryParams, HelmRepositoryRequest, HelmRepositoryResponse, HelmRepositoryResponseList } from './helm-repositories.schemas.ts'
import type { HelmRepositoriesService } from './helm-repositories.service.ts'
import { helmRepositoryInput, toHelmRepositoryResponse } from './helm-repositories.wire.ts'

const tags = ['Helm Repositories']
const inUse = Type.Ref('ErrorResponse', { description: 'helm services use the repository (`conflict`)' })

export function helmRepositoriesRoutes(helmRepositories: HelmRepositoriesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/helmRepository',
      {
        schema: {
          operationId: 'listHelmRepository',
          summary: 'List organization helm repositories',
          description:
            'Ordered by name; at most BERTH_LIST_LIMIT of them (`has_more` says when more exist). Secret config fields are never returned.',
          tags,
          params: OrganizationParams,
          response: { 200: HelmRepositoryResponseList },
        },
      },
      async (req) => listBody(await helmRepositories.list(req.principal, req.params.organizationId), toHelmRepositoryResponse),
    )

    app.post(
      '/organization/:organizationId/helmRepository',
      {
        schema: {
          operationId: 'createHelmRepository',
          summary: 'Create a helm repository',
          description: 'Needs the WRITE role. password, secret_access_key and scaleway_secret_key are stored encrypted and never returned.',
          tags,
          params: OrganizationParams,
          body: HelmRepositoryRequest,
          response: { 201: HelmRepositoryResponse },
        },
      },
      async (req, reply) => {
        const created = await helmRepositories.create(req.principal, req.params.organizationId, helmRepositoryInput(req.body))
        return reply.code(201).send(toHelmRepositoryResponse(created))
      },
    )

    app.get(
      '/organization/:organizationId/helmRepository/:helmRepositoryId',
      {
        schema: {
          operationId: 'getHelmRepository',
          summary: 'Get a helm repository',
          tags,
          params: HelmRepositoryParams,
          response: { 200: HelmRepositoryResponse },
        },
      },
      async (req) => toHelmRepositoryResponse(await helmRepositories.get(req.principal, req.params.organizationId, req.params.helmRepositoryId)),
    )

    app.put(
      '/organization/:organizationId/helmRepository/:helmRepositoryId',
      {
        schema: {
          operationId: 'editHelmRepository',
          summary: 'Edit a helm repository',
          description: 'Needs the WRITE role. A full replacement, except that an omitted secret config field keeps its stored value; "" clears it.',
          tags,
          params: HelmRepositoryParams,
          body: HelmRepositoryRequest,
          response: { 200: HelmRepositoryResponse },
        },
      },
      async (req) => {
        const { organizationId, helmRepositoryId } = req.params
        return toHelmRepositoryResponse(await helmRepositories.update(req.principal, organizationId, helmRepositoryId, helmRepositoryInput(req.body)))
      },
    )

    app.delete(
      '/organization/:organizationId/helmRepository/:helmRepositoryId',
      {
        schema: {
          operationId: 'deleteHelmRepository',
          summary: 'Delete a helm repository',
          description: 'Needs the WRITE role. Refused with 409 while helm services use the repository.',
          tags,
          params: HelmRepositoryParams,
          response: { 204: Type.Null({ description: 'deleted' }), 409: inUse },
        },
      },
      async (req, reply) => {
        await helmRepositories.delete(req.principal, req.params.organizationId, req.params.helmRepositoryId)
        return reply.code(204).send(null)
      },
    )
  }
}
