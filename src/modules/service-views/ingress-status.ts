import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { ServiceAddress } from '#src/modules/executors/service-runtime.ts'
import type { KindRouteContext } from '#src/modules/services/kind-route-context.ts'
import type { LinkedPort } from '#src/modules/services/service-links.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { AppError } from '#src/platform/http/errors.ts'
import { INGRESS_SERVICE_TYPES } from '#src/platform/service-types.ts'
import { stableUuid } from '#src/platform/stable-uuid.ts'

// getIngressDeploymentStatus (docs/front-door.md, "A service's route"): the route that brings the
// outside to a service's public ports. On Docker it is the front door's route, live while an
// instance serves; elsewhere (a Kubernetes cluster's Ingress of the built-in chart or the chart's
// own, the simulator) it is deployed with the service, so its state is the service's.

const KINDS = INGRESS_SERVICE_TYPES
type IngressKind = (typeof KINDS)[number]

export interface IngressStatusDeps {
  context: Pick<KindRouteContext, 'core' | 'triggers'>
  /** The addresses of the service's running instances where an engine really runs it (Docker); undefined elsewhere. */
  addresses?(service: { id: string; environmentId: string }): Promise<ServiceAddress[] | undefined>
  /** Whether this process runs the front door (docs/front-door.md). */
  frontDoor: boolean
}

export function createIngressStatus(deps: IngressStatusDeps) {
  return {
    async status(principal: Principal, kind: IngressKind, serviceId: string): Promise<{ routerId: string; status: string }> {
      const service = await deps.context.core.get(principal, kind, serviceId)
      const ports = ((service.configuration as { ports?: LinkedPort[] }).ports ?? []).filter((port) => port.publiclyAccessible)
      if (kind !== 'HELM' && ports.length === 0) throw new AppError('not_found', 'the service has no publicly accessible port: nothing routes to it')
      const routerId = stableUuid(`router/${service.id}`)
      const addresses = await deps.addresses?.(service)
      if (addresses !== undefined && kind !== 'HELM') {
        // The front door routes a name to instances that run and are ready; with none it answers 503.
        return { routerId, status: deps.frontDoor && addresses.length > 0 ? 'DEPLOYED' : 'STOPPED' }
      }
      const statuses = await deps.context.triggers.environmentStatuses(principal, service.environmentId)
      const state = statuses.find((entry) => entry.serviceId === service.id)?.status.state
      return { routerId, status: state ?? 'STOPPED' }
    },
  }
}

const StateEnum = Type.Unsafe<string>({ type: 'string', title: 'StateEnum' })

export function ingressStatusRoutes(ingress: ReturnType<typeof createIngressStatus>): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/:serviceType/:serviceId/ingressDeploymentStatus',
      {
        schema: {
          operationId: 'getIngressDeploymentStatus',
          summary: 'Get Ingress Deployment Status By Service',
          description:
            "The state of the route that brings traffic to the service's public ports; `routerId` names it (stable for the service). On a Docker cluster it is the front door's route: " +
            'DEPLOYED while an instance serves behind the front door, STOPPED when none does (or no front door runs). Elsewhere the route (a Kubernetes Ingress) is deployed with the service: ' +
            "its state is the service's. A container or application without a publicly accessible port has no route: 404.",
          tags: ['service_status'],
          params: Type.Object({ serviceType: Type.Unsafe<IngressKind>({ type: 'string', enum: [...KINDS] }), serviceId: Uuid }),
          response: { 200: Type.Object({ routerId: Uuid, status: StateEnum }, { title: 'IngressDeploymentStatusResponse' }) },
        },
      },
      async (req) => ingress.status(req.principal, req.params.serviceType, req.params.serviceId),
    )
  }
}
