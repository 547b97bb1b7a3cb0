import { type Static, Type } from 'typebox'
import { Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import {
  awsAndScalewayResponseConfig,
  basicAndAwsConfig,
  CredentialDescription,
  CredentialName,
  configValue,
  credentialResponseHead,
  SECRET,
} from '../credentials.schemas.ts'

export const HELM_REPOSITORY_KINDS = [
  'HTTPS',
  'OCI_ECR',
  'OCI_SCALEWAY_CR',
  'OCI_DOCKER_HUB',
  'OCI_PUBLIC_ECR',
  'OCI_GENERIC_CR',
  'OCI_GITHUB_CR',
  'OCI_GITLAB_CR',
] as const
export type HelmRepositoryKind = (typeof HELM_REPOSITORY_KINDS)[number]
const Kind = Type.Unsafe<HelmRepositoryKind>({ type: 'string', enum: [...HELM_REPOSITORY_KINDS], title: 'HelmRepositoryKindEnum' })

// null is accepted as "not given" for clients that send every key.
const ConfigValue = configValue(4096)

export const HelmRepositoryRequest = Type.Object(
  {
    name: CredentialName,
    kind: Kind,
    description: CredentialDescription,
    url: Type.Optional(
      Nullable(Type.String({ maxLength: 2048, description: 'https:// for HTTPS, oci:// for OCI kinds; optional for OCI_ECR and OCI_PUBLIC_ECR' })),
    ),
    skip_tls_verification: Type.Boolean({ description: 'Bypass tls certificate verification when connecting to repository' }),
    config: Type.Object(
      {
        ...basicAndAwsConfig(ConfigValue, 'OCI_ECR'),
        region: ConfigValue('required for OCI_ECR and OCI_SCALEWAY_CR'),
        scaleway_access_key: ConfigValue('required for OCI_SCALEWAY_CR'),
        scaleway_secret_key: ConfigValue(`required for OCI_SCALEWAY_CR; ${SECRET}`),
        scaleway_project_id: ConfigValue('required for OCI_SCALEWAY_CR'),
        azure_tenant_id: ConfigValue(),
        azure_subscription_id: ConfigValue(),
        role_arn: ConfigValue('OCI_ECR: a role to assume instead of static keys'),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'HelmRepositoryRequest' },
)
export type HelmRepositoryRequest = Static<typeof HelmRepositoryRequest>

// Only the fields safe to return: the serializer drops anything else, a secret included.
const ResponseConfig = Type.Object({
  ...awsAndScalewayResponseConfig(),
  azure_tenant_id: Type.Optional(Type.String()),
  azure_subscription_id: Type.Optional(Type.String()),
})

export const HelmRepositoryResponse = Type.Object(
  {
    ...credentialResponseHead(),
    kind: Kind,
    description: Nullable(Type.String()),
    url: Nullable(Type.String()),
    skip_tls_verification: Type.Boolean(),
    associated_services_count: Type.Integer({ description: 'The number of services using this helm repository' }),
    config: ResponseConfig,
  },
  { title: 'HelmRepositoryResponse' },
)
export type HelmRepositoryResponse = Static<typeof HelmRepositoryResponse>

export const HelmRepositoryResponseList = ListResponse(HelmRepositoryResponse, 'HelmRepositoryResponseList')

export const HelmRepositoryParams = Type.Object({ organizationId: Uuid, helmRepositoryId: Uuid })
