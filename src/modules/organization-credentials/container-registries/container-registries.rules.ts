import { gitApiUrlProblem } from '#src/modules/git-providers/address-guard.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import { hasUrlCredentials, urlCredentialsMessage } from '#src/platform/http/url-credentials.ts'
import { SEALED_CONFIG_WIRE_NAMES } from '../credentials.schemas.ts'
import { type ConfigFields, configChecks } from '../sealed-config.ts'
import type { ContainerRegistryKind } from './container-registries.schemas.ts'

/** Config fields stored in the clear and returned (reference ContainerRegistryResponse.config). */
export const PUBLIC_CONFIG_FIELDS = [
  'username',
  'region',
  'accessKeyId',
  'roleArn',
  'scalewayAccessKey',
  'scalewayProjectId',
  'gcpCredentialsType',
  'projectId',
  'serviceAccountEmail',
  'workloadIdentityProviderResource',
  'tokenLifetimeSeconds',
  'azureTenantId',
  'azureSubscriptionId',
] as const
/** Config fields sealed at rest and never returned. */
export const SECRET_CONFIG_FIELDS = ['password', 'secretAccessKey', 'scalewaySecretKey', 'jsonCredentials'] as const

export type PublicConfigField = (typeof PUBLIC_CONFIG_FIELDS)[number]
export type SecretConfigField = (typeof SECRET_CONFIG_FIELDS)[number]
export type ConfigField = PublicConfigField | SecretConfigField
/** `tokenLifetimeSeconds` is the one number; every other field a string. */
export type PublicConfig = Partial<Record<PublicConfigField, string | number>>
export type SecretConfig = Partial<Record<SecretConfigField, string>>

/** Each config field's name on the wire, in `config` of the request and the response. */
export const CONFIG_WIRE_NAMES: Record<ConfigField, string> = SEALED_CONFIG_WIRE_NAMES

/** The registries' config fields, for the shared sealed config (`sealed-config.ts`). */
export const REGISTRY_CONFIG_FIELDS: ConfigFields<PublicConfigField, SecretConfigField, string | number> = {
  public: PUBLIC_CONFIG_FIELDS,
  secret: SECRET_CONFIG_FIELDS,
  wireNames: CONFIG_WIRE_NAMES,
}

/** The reference: these kinds have one address, the default when the request gives none. */
export const DEFAULT_URLS: Partial<Record<ContainerRegistryKind, string>> = {
  DOCKER_HUB: 'https://docker.io',
  GITHUB_CR: 'https://ghcr.io',
  GITLAB_CR: 'https://registry.gitlab.com',
}

/** The config fields each kind needs (listAvailableContainerRegistry), as the reference's request schema says. */
export const REQUIRED_CONFIG: Record<ContainerRegistryKind, ConfigField[]> = {
  ECR: ['region', 'accessKeyId', 'secretAccessKey'],
  SCALEWAY_CR: ['region', 'scalewayAccessKey', 'scalewaySecretKey'],
  DOCKER_HUB: [],
  GITHUB_CR: [],
  GITHUB_ENTERPRISE_CR: [],
  GITLAB_CR: [],
  PUBLIC_ECR: [],
  DOCR: [],
  GENERIC_CR: [],
  GCP_ARTIFACT_REGISTRY: ['region', 'jsonCredentials'],
  AZURE_CR: ['azureTenantId', 'azureSubscriptionId'],
}

/** Kinds whose username and password are optional, but go together. */
const BASIC_AUTH_KINDS = new Set<ContainerRegistryKind>(['DOCKER_HUB', 'GITHUB_CR', 'GITHUB_ENTERPRISE_CR', 'GITLAB_CR', 'GENERIC_CR'])

export interface RegistryToCheck {
  kind: ContainerRegistryKind
  /** As given; null when the request gave none. */
  url: string | null
  config: PublicConfig
  /** The secrets the registry will hold: the stored ones merged with the request's. */
  secrets: SecretConfig
  /** Whether the registry may lead to loopback, private, link-local or metadata addresses, and be plain http (BERTH_ALLOW_PRIVATE_URLS). */
  allowPrivateUrls: boolean
}

/** Why a registry URL may not be used, or undefined: a git token's `git_api_url` rules (same setting). */
function urlProblem(text: string, allowPrivateUrls: boolean): string | undefined {
  if (hasUrlCredentials(text)) return urlCredentialsMessage('they go in config (username and password, or the keys of the kind)')
  const url = URL.canParse(text) ? new URL(text) : undefined
  if (!url || !['https:', 'http:'].includes(url.protocol) || url.hostname === '') return 'must be an absolute https URL'
  if (allowPrivateUrls) return undefined
  return gitApiUrlProblem(url)?.replace('the git token would travel', 'the registry credentials would travel')
}

/** The URL a registry is stored with: as given, else its kind's only address. */
export const registryUrl = (kind: ContainerRegistryKind, url: string | null): string | null => url ?? DEFAULT_URLS[kind] ?? null

/** Every rule the registry breaks, by JSON pointer into the request body. Messages never quote values. */
export function containerRegistryErrors({ kind, url, config, secrets, allowPrivateUrls }: RegistryToCheck): FieldError[] {
  const errors: FieldError[] = []
  const fail = (path: string, message: string) => errors.push({ path, message, location: 'body' })
  const { need, awsKeys, basicAuthPair } = configChecks(REGISTRY_CONFIG_FIELDS, { ...config, ...secrets }, errors)

  if (kind === 'DOCR') fail('/kind', 'DOCR is not supported anymore (as on the platform)')

  const stored = registryUrl(kind, url)
  if (stored === null) fail('/url', `is required for ${kind}`)
  else {
    const problem = urlProblem(stored, allowPrivateUrls)
    if (problem) fail('/url', problem)
  }

  if (kind === 'ECR') awsKeys(kind)
  if (kind === 'SCALEWAY_CR') for (const field of REQUIRED_CONFIG.SCALEWAY_CR) need(field, 'for SCALEWAY_CR')
  if (kind === 'GCP_ARTIFACT_REGISTRY') {
    need('region', 'for GCP_ARTIFACT_REGISTRY')
    if (config.gcpCredentialsType === 'workload_identity_federation') {
      for (const field of ['projectId', 'serviceAccountEmail', 'workloadIdentityProviderResource'] as const) {
        need(field, 'for GCP_ARTIFACT_REGISTRY with gcp_credentials_type workload_identity_federation')
      }
    } else need('jsonCredentials', 'for GCP_ARTIFACT_REGISTRY unless gcp_credentials_type is workload_identity_federation')
  }
  if (kind === 'AZURE_CR') for (const field of REQUIRED_CONFIG.AZURE_CR) need(field, 'for AZURE_CR')
  if (BASIC_AUTH_KINDS.has(kind)) basicAuthPair()
  return errors
}
