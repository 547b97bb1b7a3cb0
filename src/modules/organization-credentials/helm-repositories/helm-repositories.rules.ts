import type { FieldError } from '#src/platform/http/errors.ts'
import { hasUrlCredentials, urlCredentialsMessage } from '#src/platform/http/url-credentials.ts'
import { SEALED_CONFIG_WIRE_NAMES } from '../credentials.schemas.ts'
import { type ConfigFields, configChecks } from '../sealed-config.ts'
import type { HelmRepositoryKind } from './helm-repositories.schemas.ts'

/** Config fields stored in the clear and returned. */
export const PUBLIC_CONFIG_FIELDS = [
  'username',
  'accessKeyId',
  'region',
  'roleArn',
  'scalewayAccessKey',
  'scalewayProjectId',
  'azureTenantId',
  'azureSubscriptionId',
] as const
/** Config fields sealed at rest and never returned. */
export const SECRET_CONFIG_FIELDS = ['password', 'secretAccessKey', 'scalewaySecretKey'] as const

export type PublicConfigField = (typeof PUBLIC_CONFIG_FIELDS)[number]
export type SecretConfigField = (typeof SECRET_CONFIG_FIELDS)[number]
export type PublicConfig = Partial<Record<PublicConfigField, string>>
export type SecretConfig = Partial<Record<SecretConfigField, string>>

/** The helm repositories' config fields, for the shared sealed config (`sealed-config.ts`). */
export const HELM_CONFIG_FIELDS: ConfigFields<PublicConfigField, SecretConfigField> = {
  public: PUBLIC_CONFIG_FIELDS,
  secret: SECRET_CONFIG_FIELDS,
  wireNames: SEALED_CONFIG_WIRE_NAMES,
}

const URL_SCHEME: Record<HelmRepositoryKind, 'https:' | 'oci:'> = {
  HTTPS: 'https:',
  OCI_ECR: 'oci:',
  OCI_SCALEWAY_CR: 'oci:',
  OCI_DOCKER_HUB: 'oci:',
  OCI_PUBLIC_ECR: 'oci:',
  OCI_GENERIC_CR: 'oci:',
  OCI_GITHUB_CR: 'oci:',
  OCI_GITLAB_CR: 'oci:',
}

/** Kinds whose URL follows from the account and region, so it may be left out. */
const URL_OPTIONAL = new Set<HelmRepositoryKind>(['OCI_ECR', 'OCI_PUBLIC_ECR'])

function hasScheme(text: string, scheme: string): boolean {
  const url = URL.canParse(text) ? new URL(text) : undefined
  return !!url && url.protocol === scheme && url.host !== ''
}

export interface RepositoryToCheck {
  kind: HelmRepositoryKind
  url: string | null
  config: PublicConfig
  /** The secrets the repository will hold: the stored ones merged with the request's. */
  secrets: SecretConfig
}

/** Every rule the repository breaks, by JSON pointer into the request body. Messages never quote values. */
export function helmRepositoryErrors({ kind, url, config, secrets }: RepositoryToCheck): FieldError[] {
  const errors: FieldError[] = []
  const fail = (path: string, message: string) => errors.push({ path, message, location: 'body' })
  const { need, awsKeys, basicAuthPair } = configChecks(HELM_CONFIG_FIELDS, { ...config, ...secrets }, errors)

  const scheme = URL_SCHEME[kind]
  if (url === null) {
    if (!URL_OPTIONAL.has(kind)) fail('/url', `is required for ${kind}`)
  } else if (hasUrlCredentials(url)) {
    fail('/url', urlCredentialsMessage('they go in config (username and password, or the access keys of the kind)'))
  } else if (!hasScheme(url, scheme)) {
    fail('/url', `must be a ${scheme}// URL for ${kind}`)
  }

  if (kind === 'OCI_ECR') awsKeys(kind)
  if (kind === 'OCI_SCALEWAY_CR') {
    for (const field of ['region', 'scalewayAccessKey', 'scalewaySecretKey', 'scalewayProjectId'] as const) need(field, 'for OCI_SCALEWAY_CR')
  }
  basicAuthPair()
  return errors
}
