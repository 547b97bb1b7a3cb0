import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import type { ServiceRecord } from './service-kinds.ts'

/**
 * The services core's access check of one service (`ServicesService.requireService`): the service
 * with the caller's role on its environment; 404 for another organization's service or, with
 * `type`, another kind's id; 403 for a role below `needed`. Modules that check a service take this.
 */
export type RequireService = (
  principal: Principal,
  serviceId: string,
  needed: Role,
  type?: ServiceRecord['kind'],
) => Promise<{ service: ServiceRecord; role: Role }>
