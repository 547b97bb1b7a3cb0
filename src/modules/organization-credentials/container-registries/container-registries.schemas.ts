import { type Static, Type } from 'typebox'
import { associatedServicesList } from '#src/platform/associated-services.ts'
import { Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import { basicAndAwsConfig, configValue, optionalStrings, SECRET, sealedCredentialRequest, sealedCredentialResponse } from '../credentials.schemas.ts'

export const CONTAINER_REGISTRY_KINDS = [
  'ECR',
  'SCALEWAY_CR',
  'DOCKER_HUB',
  'GITHUB_CR',
  'GITHUB_ENTERPRISE_CR',
  'GITLAB_CR',
  'PUBLIC_ECR',
  'DOCR',
  'GENERIC_CR',
  'GCP_ARTIFACT_REGISTRY',
  'AZURE_CR',
] as const
export type ContainerRegistryKind = (typeof CONTAINER_REGISTRY_KINDS)[number]
export const ContainerRegistryKind = Type.Unsafe<ContainerRegistryKind>({
  type: 'string',
  enum: [...CONTAINER_REGISTRY_KINDS],
  title: 'ContainerRegistryKindEnum',
})

// null is accepted as "not given" for clients that send every key (the Terraform provider does).
const ConfigValue = configValue(16_384)

export const ContainerRegistryRequest = sealedCredentialRequest(
  'ContainerRegistryRequest',
  ContainerRegistryKind,
  {
    url: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 2048,
          description:
            'https:// URL of the registry. DOCKER_HUB, GITHUB_CR and GITLAB_CR default to https://docker.io, https://ghcr.io and ' +
            'https://registry.gitlab.com; required for the other kinds. Loopback, private, link-local and metadata addresses, and ' +
            'plain http, only with BERTH_ALLOW_PRIVATE_URLS=true.',
        }),
      ),
    ),
  },
  {
    ...basicAndAwsConfig(ConfigValue, 'ECR'),
    region: ConfigValue('required for ECR, SCALEWAY_CR and GCP_ARTIFACT_REGISTRY'),
    role_arn: ConfigValue('ECR: a role to assume instead of static keys'),
    scaleway_access_key: ConfigValue('required for SCALEWAY_CR'),
    scaleway_secret_key: ConfigValue(`required for SCALEWAY_CR; ${SECRET}`),
    scaleway_project_id: ConfigValue(),
    json_credentials: ConfigValue(`GCP_ARTIFACT_REGISTRY: a service account JSON key, unless workload identity federation is used; ${SECRET}`),
    gcp_credentials_type: Type.Optional(
      Nullable(Type.Unsafe<'workload_identity_federation'>({ type: 'string', enum: ['workload_identity_federation'] })),
    ),
    project_id: ConfigValue('GCP_ARTIFACT_REGISTRY with workload identity federation'),
    service_account_email: ConfigValue('GCP_ARTIFACT_REGISTRY with workload identity federation'),
    workload_identity_provider_resource: ConfigValue('GCP_ARTIFACT_REGISTRY with workload identity federation'),
    token_lifetime_seconds: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }))),
    azure_tenant_id: ConfigValue('required for AZURE_CR'),
    azure_subscription_id: ConfigValue('required for AZURE_CR'),
  },
)
export type ContainerRegistryRequest = Static<typeof ContainerRegistryRequest>

export const ContainerRegistryResponse = sealedCredentialResponse(
  'ContainerRegistryResponse',
  ContainerRegistryKind,
  { description: Type.Optional(Type.String()), url: Type.String() },
  'container registry',
  {
    ...optionalStrings('gcp_credentials_type', 'project_id', 'service_account_email', 'workload_identity_provider_resource'),
    token_lifetime_seconds: Type.Optional(Type.Integer()),
    ...optionalStrings('azure_tenant_id', 'azure_subscription_id'),
  },
)
export type ContainerRegistryResponse = Static<typeof ContainerRegistryResponse>

export const ContainerRegistryResponseList = ListResponse(ContainerRegistryResponse, 'ContainerRegistryResponseList')

export const ContainerRegistryParams = Type.Object({ organizationId: Uuid, containerRegistryId: Uuid })

export const ContainerVersionsQuery = Type.Object({
  imageName: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'the image whose tags are listed' })),
  search: Type.Optional(Type.String({ maxLength: 255, description: "without imageName: part of the names of the registry's images to list" })),
})

export const ContainerVersionResponseList = Type.Object(
  {
    results: Type.Array(Type.Object({ image_name: Type.String(), versions: Type.Array(Type.String()) }, { title: 'ContainerVersionResponse' })),
  },
  { title: 'ContainerVersionResponseList' },
)

export const AvailableContainerRegistryResponseList = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          kind: ContainerRegistryKind,
          required_config: Type.Record(Type.String(), Type.String(), { description: 'each config field the kind needs, with its type' }),
          is_mandatory: Type.Boolean({ description: 'whether the kind needs any config field' }),
        },
        { title: 'AvailableContainerRegistryResponse' },
      ),
    ),
  },
  { title: 'AvailableContainerRegistryResponseList' },
)

export const ContainerRegistryAssociatedServicesResponseList = associatedServicesList(
  Enum(['CONTAINER', 'LIFECYCLE', 'CRON'], 'ContainerRegistryAssociatedServiceType'),
  'ContainerRegistryAssociatedServicesResponseList',
)
