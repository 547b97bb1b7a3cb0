import { type Static, Type } from 'typebox'
import { Uuid } from '#src/platform/http/common-schemas.ts'

export const CredentialsParams = Type.Object({ organizationId: Uuid, credentialsId: Uuid })

export const OnPremiseCredentialsRequest = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '\\S',
      description: 'case insensitive; unique among the organization’s on-premise credentials',
    }),
  },
  { additionalProperties: false, title: 'OnPremiseCredentialsRequest' },
)
export type OnPremiseCredentialsRequest = Static<typeof OnPremiseCredentialsRequest>

/** The reference's `GenericClusterCredentials` (`object_type` OTHER), the on-premise family's shape. */
export const ClusterCredentials = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    object_type: Type.Unsafe<'OTHER'>({ type: 'string', enum: ['OTHER'] }),
  },
  { title: 'GenericClusterCredentials' },
)
export type ClusterCredentials = Static<typeof ClusterCredentials>

export const ClusterCredentialsResponseList = Type.Object({ results: Type.Array(ClusterCredentials) }, { title: 'ClusterCredentialsResponseList' })

const CLOUD_PROVIDERS = ['AWS', 'SCW', 'GCP', 'ON_PREMISE', 'AZURE'] as const
export const CredentialCluster = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    cloud_provider: Type.Optional(
      Type.Unsafe<(typeof CLOUD_PROVIDERS)[number]>({ type: 'string', enum: [...CLOUD_PROVIDERS], title: 'CloudProviderEnum' }),
    ),
  },
  { title: 'CredentialCluster' },
)

export const OrganizationCredentialsResponseList = Type.Object(
  { results: Type.Array(Type.Object({ credential: ClusterCredentials, clusters: Type.Array(CredentialCluster) })) },
  { title: 'OrganizationCrendentialsResponseList' },
)
