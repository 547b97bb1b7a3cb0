import { credentialNameAndDescription, credentialResponseHead } from '../credentials.wire.ts'
import { configInput, configResponse } from '../sealed-config.ts'
import { HELM_CONFIG_FIELDS } from './helm-repositories.rules.ts'
import type { HelmRepositoryKind, HelmRepositoryRequest, HelmRepositoryResponse } from './helm-repositories.schemas.ts'
import type { HelmRepositoryInput, HelmRepositoryRow } from './helm-repositories.service.ts'

/** A repository as the reference's `HelmRepositoryResponse`: only the config fields safe to return. */
export function toHelmRepositoryResponse(row: HelmRepositoryRow): HelmRepositoryResponse {
  return {
    ...credentialResponseHead(row),
    kind: row.kind as HelmRepositoryKind,
    description: row.description,
    url: row.url,
    skip_tls_verification: row.skipTlsVerification,
    associated_services_count: row.associatedServicesCount,
    config: configResponse(HELM_CONFIG_FIELDS, row.config),
  }
}

/**
 * A validated request as the service's input. Blank non-secret fields count as not set; secrets
 * are kept verbatim (a password may have spaces), "" meaning "clear it" and null or absent "keep it".
 */
export function helmRepositoryInput(body: HelmRepositoryRequest): HelmRepositoryInput {
  return {
    ...credentialNameAndDescription(body),
    kind: body.kind,
    url: body.url?.trim() || null,
    skipTlsVerification: body.skip_tls_verification,
    ...configInput(HELM_CONFIG_FIELDS, body.config),
  }
}
