import { credentialNameAndDescription, credentialResponseHead } from '../credentials.wire.ts'
import { configInput, configResponse } from '../sealed-config.ts'
import { CONFIG_WIRE_NAMES, type ConfigField, REGISTRY_CONFIG_FIELDS, REQUIRED_CONFIG } from './container-registries.rules.ts'
import {
  CONTAINER_REGISTRY_KINDS,
  type ContainerRegistryKind,
  type ContainerRegistryRequest,
  type ContainerRegistryResponse,
} from './container-registries.schemas.ts'
import type { ContainerRegistryInput, ContainerRegistryRow } from './container-registries.service.ts'

/** A registry as the reference's `ContainerRegistryResponse`: only the config fields safe to return. */
export function toContainerRegistryResponse(row: ContainerRegistryRow): ContainerRegistryResponse {
  return {
    ...credentialResponseHead(row),
    kind: row.kind as ContainerRegistryKind,
    ...(row.description === null ? {} : { description: row.description }),
    url: row.url,
    associated_services_count: row.associatedServicesCount,
    config: configResponse(REGISTRY_CONFIG_FIELDS, row.config) as ContainerRegistryResponse['config'],
  }
}

/**
 * A validated request as the service's input. Blank non-secret fields count as not set; secrets
 * are kept verbatim (a password may have spaces), "" meaning "clear it" and null or absent "keep it".
 */
export function containerRegistryInput(body: ContainerRegistryRequest): ContainerRegistryInput {
  return {
    ...credentialNameAndDescription(body),
    kind: body.kind,
    url: body.url?.trim() || null,
    ...configInput(REGISTRY_CONFIG_FIELDS, body.config),
  }
}

/** The reference's `AvailableContainerRegistryResponse` of every kind but DOCR, which the platform no longer takes. */
export function availableContainerRegistries() {
  const typeOf = (field: ConfigField) => (field === 'tokenLifetimeSeconds' ? 'integer' : 'string')
  return CONTAINER_REGISTRY_KINDS.filter((kind) => kind !== 'DOCR').map((kind) => ({
    kind,
    required_config: Object.fromEntries(REQUIRED_CONFIG[kind].map((field) => [CONFIG_WIRE_NAMES[field], typeOf(field)])),
    is_mandatory: REQUIRED_CONFIG[kind].length > 0,
  }))
}

export { toAssociatedServiceResponse } from '../associated-services.wire.ts'
