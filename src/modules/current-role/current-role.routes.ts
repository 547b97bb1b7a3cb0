import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Principal } from '#src/platform/auth/principal.ts'
import { ROLE_IDS, type Role } from '#src/platform/auth/roles.ts'
import { OrganizationParams, RoleId, RoleName, Uuid } from '#src/platform/http/common-schemas.ts'

const CurrentRole = Type.Object(
  {
    organization_id: Uuid,
    role: RoleName('the role the caller holds in the organization'),
    role_id: RoleId,
  },
  { title: 'CurrentRole', description: 'Berth extension: what the caller may do in an organization.' },
)

/** Finds the role the principal holds in the organization; no access at all is a 404. */
export type FindRole = (principal: Principal, organizationId: string) => Promise<Role>

/**
 * Berth extension: the reference has no operation that tells callers their own role. The console
 * reads it to hide the buttons the role does not allow (the API checks every call regardless).
 */
export function currentRoleRoutes(roleOf: FindRole): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/currentRole',
      {
        schema: {
          operationId: 'getOrganizationCurrentRole',
          summary: "Get the caller's role in an organization",
          description:
            'Berth extension. Any member may call it: the role of the calling API token (or, for a Bearer JWT, of the user) in the ' +
            'organization, by name and by built-in role id. READ < DEPLOY < WRITE < ADMIN.',
          tags: ['Organization Main Calls'],
          params: OrganizationParams,
          response: { 200: CurrentRole },
        },
      },
      async (req) => {
        const role = await roleOf(req.principal, req.params.organizationId)
        return { organization_id: req.params.organizationId, role, role_id: ROLE_IDS[role] }
      },
    )
  }
}
