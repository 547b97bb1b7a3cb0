import type { HelmRepositoryRow } from './helm-repositories.repository.ts'
import { CONFIG_WIRE_NAMES, PUBLIC_CONFIG_FIELDS, type PublicConfig, SECRET_CONFIG_FIELDS, type SecretConfig } from './helm-repositories.rules.ts'
import type { HelmRepositoryKind, HelmRepositoryRequest, HelmRepositoryResponse } from './helm-repositories.schemas.ts'
import type { HelmRepositoryInput } from './helm-repositories.service.ts'

type ResponseConfig = HelmRepositoryResponse['config']

/** A repository as the reference's `HelmRepositoryResponse`: only the config fields safe to return. */
export function toHelmRepositoryResponse(row: HelmRepositoryRow): HelmRepositoryResponse {
  const stored = row.config as PublicConfig
  const config: ResponseConfig = {}
  for (const field of PUBLIC_CONFIG_FIELDS) {
    const value = stored[field]
    if (value) config[CONFIG_WIRE_NAMES[field]] = value
  }
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    name: row.name,
    kind: row.kind as HelmRepositoryKind,
    description: row.description,
    url: row.url,
    skip_tls_verification: row.skipTlsVerification,
    associated_services_count: row.associatedServicesCount,
    config,
  }
}

/**
 * A validated request as the service's input. Blank non-secret fields count as not set; secrets
 * are kept verbatim (a password may have spaces), "" meaning "clear it" and null or absent "keep it".
 */
export function helmRepositoryInput(body: HelmRepositoryRequest): HelmRepositoryInput {
  const given = body.config as Record<string, string | null | undefined>
  const config: PublicConfig = {}
  for (const field of PUBLIC_CONFIG_FIELDS) {
    const value = given[CONFIG_WIRE_NAMES[field]]?.trim()
    if (value) config[field] = value
  }
  const secrets: SecretConfig = {}
  for (const field of SECRET_CONFIG_FIELDS) {
    const value = given[CONFIG_WIRE_NAMES[field]]
    if (typeof value === 'string') secrets[field] = value
  }
  return {
    name: body.name.trim(),
    kind: body.kind,
    description: body.description ?? null,
    url: body.url?.trim() || null,
    skipTlsVerification: body.skip_tls_verification,
    config,
    secrets,
  }
}
