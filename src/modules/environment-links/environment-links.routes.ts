import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import { linkResponseList } from '#src/modules/services/kind-schemas.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { ServiceLink } from '#src/modules/services/service-links.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { LINK_SERVICE_TYPES } from '#src/platform/service-types.ts'

// listEnvironmentServicesLinks: every link of every service of the environment, each exactly as its
// own kind's listing answers it (listApplicationLinks, listContainerLinks, listHelmLinks); the
// kinds without links (databases, jobs, IAC) add none.

const LinkResponseList = linkResponseList(Type.Unsafe<string>({ type: 'string', enum: [...LINK_SERVICE_TYPES] }))

export interface EnvironmentLinksDeps {
  /** READ on the environment: its services, by name. */
  listServices(principal: Principal, environmentId: string): Promise<ServiceRecord[]>
  /** Each kind with links: the links of one of its services (which checks READ again). */
  linksOf: Partial<Record<string, (principal: Principal, serviceId: string) => Promise<ServiceLink[]>>>
}

export function environmentLinksRoutes(deps: EnvironmentLinksDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/environment/:environmentId/link',
      {
        schema: {
          operationId: 'listEnvironmentServicesLinks',
          summary: 'List environment services links',
          description:
            "Every link of every application, container and helm service of the environment, in the order of its services' names, each as its own link listing answers (docs/front-door.md says which are live on Docker).",
          tags: ['Environment'],
          params: EnvironmentParams,
          response: { 200: LinkResponseList },
        },
      },
      async (req) => {
        const services = await deps.listServices(req.principal, req.params.environmentId)
        const results: ServiceLink[] = []
        for (const service of services) {
          const links = deps.linksOf[service.kind]
          if (links) results.push(...(await links(req.principal, service.id)))
        }
        return { results }
      },
    )
  }
}
