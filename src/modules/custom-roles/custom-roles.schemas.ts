import { type Static, Type } from 'typebox'
import { Enum, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import { RequestName } from '#src/platform/http/named-resources.ts'

export const CLUSTER_PERMISSIONS = ['VIEWER', 'ENV_CREATOR', 'ADMIN'] as const
export type ClusterPermission = (typeof CLUSTER_PERMISSIONS)[number]
export const PROJECT_PERMISSIONS = ['NO_ACCESS', 'VIEWER', 'DEPLOYER', 'MANAGER'] as const
export type ProjectPermission = (typeof PROJECT_PERMISSIONS)[number]
export const ENVIRONMENT_TYPES = ['DEVELOPMENT', 'PREVIEW', 'STAGING', 'PRODUCTION'] as const
export type EnvironmentType = (typeof ENVIRONMENT_TYPES)[number]

const ClusterPermissionEnum = Enum(CLUSTER_PERMISSIONS, 'OrganizationCustomRoleClusterPermission')
const ProjectPermissionEnum = Enum(PROJECT_PERMISSIONS, 'OrganizationCustomRoleProjectPermission')
const EnvironmentTypeEnum = Enum(ENVIRONMENT_TYPES, 'EnvironmentModeEnum')

const Name = RequestName('unique in the organization, ignoring case; not a built-in role name')
const Description = Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()]))

export const CustomRoleCreateRequest = Type.Object(
  { name: Name, description: Description },
  { additionalProperties: false, title: 'OrganizationCustomRoleCreateRequest' },
)
export type CustomRoleCreateRequest = Static<typeof CustomRoleCreateRequest>

export const CustomRoleUpdateRequest = Type.Object(
  {
    name: Name,
    description: Description,
    cluster_permissions: Type.Array(Type.Object({ cluster_id: Uuid, permission: ClusterPermissionEnum }, { additionalProperties: false }), {
      maxItems: 1000,
      description: 'a cluster left out gets VIEWER',
    }),
    project_permissions: Type.Array(
      Type.Object(
        {
          project_id: Uuid,
          is_admin: Type.Optional(Type.Boolean({ default: false })),
          permissions: Type.Optional(
            Type.Array(Type.Object({ environment_type: EnvironmentTypeEnum, permission: ProjectPermissionEnum }, { additionalProperties: false }), {
              maxItems: ENVIRONMENT_TYPES.length,
              description: 'an environment type left out gets NO_ACCESS; ignored when is_admin',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { maxItems: 10_000, description: 'a project left out gets NO_ACCESS for every environment type' },
    ),
  },
  { additionalProperties: false, title: 'OrganizationCustomRoleUpdateRequest' },
)
export type CustomRoleUpdateRequest = Static<typeof CustomRoleUpdateRequest>

export const CustomRoleResponse = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    description: Type.Optional(Type.String()),
    cluster_permissions: Type.Array(Type.Object({ cluster_id: Uuid, cluster_name: Type.String(), permission: ClusterPermissionEnum })),
    project_permissions: Type.Array(
      Type.Object({
        project_id: Uuid,
        project_name: Type.String(),
        is_admin: Type.Boolean(),
        permissions: Type.Array(Type.Object({ environment_type: EnvironmentTypeEnum, permission: ProjectPermissionEnum })),
      }),
    ),
  },
  { title: 'OrganizationCustomRole' },
)
export type CustomRoleResponse = Static<typeof CustomRoleResponse>

export const CustomRoleList = ListResponse(CustomRoleResponse, 'OrganizationCustomRoleList')

export const CustomRoleParams = Type.Object({ organizationId: Uuid, customRoleId: Uuid })
