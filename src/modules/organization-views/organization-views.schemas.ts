import { type TSchema, Type } from 'typebox'
import { CLOUD_PROVIDERS } from '#src/modules/clusters/clusters.schemas.ts'
import { MODES } from '#src/modules/environments/environments.schemas.ts'
import { associatedService } from '#src/platform/associated-services.ts'
import { SERVICE_TYPES } from '#src/platform/deployment-states.ts'
import { EnvironmentStatus } from '#src/platform/deployment-status.schemas.ts'
import { DateTime, Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import { NamedResource } from '#src/platform/http/named-resources.ts'
import { GIT_TOKEN_ASSOCIATED_SERVICE_TYPES } from '#src/platform/service-types.ts'

const Mode = Enum(MODES, 'EnvironmentModeEnum')

export const ServicesQuery = Type.Object({
  project_id: Type.Optional(Uuid),
  environment_id: Type.Optional(Uuid),
  cluster_id: Type.Optional(Uuid),
})

export const ServiceLightList = ListResponse(
  Type.Object(
    {
      id: Uuid,
      name: Type.String(),
      description: Type.String(),
      icon_uri: Type.String({ format: 'uri' }),
      service_type: Enum(SERVICE_TYPES, 'ServiceTypeEnum'),
      project_id: Uuid,
      project_name: Type.String(),
      environment_id: Uuid,
      environment_name: Type.String(),
      cluster_id: Uuid,
      job_type: Type.Optional(Enum(['CRON', 'LIFECYCLE'], 'JobTypeEnum')),
    },
    { title: 'ServiceLightResponse' },
  ),
  'ServiceLightResponseList',
)

export const OrganizationEnvironmentList = ListResponse(
  NamedResource('OrganizationEnvironmentResponse', {
    organization: Type.Object({ id: Uuid }),
    project: Type.Object({ id: Uuid }),
    mode: Mode,
    cluster_id: Type.Optional(Uuid),
  }),
  'OrganizationEnvironmentResponseList',
)

export const ProjectStatsList = Type.Object(
  {
    results: Type.Array(
      Type.Object({ id: Uuid, service_total_number: Type.Number(), environment_total_number: Type.Number() }, { title: 'ProjectStats' }),
    ),
  },
  { title: 'ProjectStatsResponseList' },
)

export const EnvironmentStatsList = Type.Object(
  { results: Type.Array(Type.Object({ id: Uuid, service_total_number: Type.Number() }, { title: 'EnvironmentStats' })) },
  { title: 'EnvironmentStatsResponseList' },
)

export const EnvironmentOverviewList = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          id: Uuid,
          created_at: DateTime,
          updated_at: DateTime,
          name: Type.String(),
          mode: Mode,
          cluster: Type.Object(
            {
              id: Uuid,
              name: Type.String(),
              cloud_provider: Enum(CLOUD_PROVIDERS, 'CloudVendorEnum'),
              is_demo: Type.Boolean({ description: 'always false: Berth has no demo clusters' }),
            },
            { title: 'ClusterOverviewResponse' },
          ),
          services_overview: Type.Object(
            {
              service_count: Type.Integer(),
              managed_by: Enum(
                ['QOVERY', 'ARGOCD', 'MIXED'],
                'ServicesOverviewManagedBy',
                'ARGOCD when every service is a GITOPS_APP (deployed by Argo CD), MIXED when some are, else QOVERY (Berth deploys them all)',
              ),
            },
            { title: 'ServicesOverviewResponse' },
          ),
          deployment_status: Nullable(EnvironmentStatus),
        },
        { title: 'EnvironmentOverviewResponse' },
      ),
    ),
  },
  { title: 'EnvironmentOverviewResponseList' },
)

const associatedServices = (serviceType: TSchema, title: string) => ListResponse(associatedService(serviceType, title.replace(/List$/, '')), title)

export const GitTokenAssociatedServicesList = associatedServices(
  Enum(GIT_TOKEN_ASSOCIATED_SERVICE_TYPES, 'GitTokenAssociatedServiceType'),
  'GitTokenAssociatedServicesResponseList',
)

export const HelmRepositoryAssociatedServicesList = associatedServices(
  Enum(['HELM'], 'HelmRepositoryAssociatedServiceType'),
  'HelmRepositoryAssociatedServicesResponseList',
)

export const AvailableRoleList = Type.Object(
  { results: Type.Array(Type.Object({ id: Uuid, name: Type.String() }, { title: 'OrganizationAvailableRole' })) },
  { title: 'OrganizationAvailableRoleList' },
)

const OnboardingStatus = Enum(['IN_PROGRESS', 'DISMISSED', 'COMPLETED'], 'OrganizationOnboardingStatusEnum')

export const OnboardingResponse = Type.Object(
  {
    use_cases: Nullable(Type.String({ description: 'always null: Berth has no sign-up that asks for use cases' })),
    status: OnboardingStatus,
  },
  { title: 'OrganizationOnboardingResponse' },
)

export const OnboardingPatchRequest = Type.Object({ status: OnboardingStatus }, { title: 'OrganizationOnboardingPatchRequest' })
