import { type Static, Type } from 'typebox'
import { Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import { basicAndAwsConfig, configValue, optionalStrings, SECRET, sealedCredentialRequest, sealedCredentialResponse } from '../credentials.schemas.ts'

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

export const HelmRepositoryRequest = sealedCredentialRequest(
  'HelmRepositoryRequest',
  Kind,
  {
    url: Type.Optional(
      Nullable(Type.String({ maxLength: 2048, description: 'https:// for HTTPS, oci:// for OCI kinds; optional for OCI_ECR and OCI_PUBLIC_ECR' })),
    ),
    skip_tls_verification: Type.Boolean({ description: 'Bypass tls certificate verification when connecting to repository' }),
  },
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
)
export type HelmRepositoryRequest = Static<typeof HelmRepositoryRequest>

export const HelmRepositoryResponse = sealedCredentialResponse(
  'HelmRepositoryResponse',
  Kind,
  { description: Nullable(Type.String()), url: Nullable(Type.String()), skip_tls_verification: Type.Boolean() },
  'helm repository',
  optionalStrings('azure_tenant_id', 'azure_subscription_id'),
)
export type HelmRepositoryResponse = Static<typeof HelmRepositoryResponse>

export const HelmRepositoryResponseList = ListResponse(HelmRepositoryResponse, 'HelmRepositoryResponseList')

export const HelmRepositoryParams = Type.Object({ organizationId: Uuid, helmRepositoryId: Uuid })
