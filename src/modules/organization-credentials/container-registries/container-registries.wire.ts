import type { ContainerRegistryRow } from './container-registries.repository.ts'
import {
  CONFIG_WIRE_NAMES,
  type ConfigField,
  PUBLIC_CONFIG_FIELDS,
  type PublicConfig,
  REQUIRED_CONFIG,
  SECRET_CONFIG_FIELDS,
  type SecretConfig,
} from './container-registries.rules.ts'
import {
  CONTAINER_REGISTRY_KINDS,
  type ContainerRegistryKind,
  type ContainerRegistryRequest,
  type ContainerRegistryResponse,
} from './container-registries.schemas.ts'
import type { AssociatedService, ContainerRegistryInput } from './container-registries.service.ts'

type ResponseConfig = Record<string, string | number>

/** A registry as the reference's `ContainerRegistryResponse`: only the config fields safe to return. */
export function toContainerRegistryResponse(row: ContainerRegistryRow): ContainerRegistryResponse {
  const stored = row.config as PublicConfig
  const config: ResponseConfig = {}
  for (const field of PUBLIC_CONFIG_FIELDS) {
    const value = stored[field]
    if (value !== undefined && value !== '') config[CONFIG_WIRE_NAMES[field]] = value
  }
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    name: row.name,
    kind: row.kind as ContainerRegistryKind,
    ...(row.description === null ? {} : { description: row.description }),
    url: row.url,
    associated_services_count: row.associatedServicesCount,
    config: config as ContainerRegistryResponse['config'],
  }
}

/**
 * A validated request as the service's input. Blank non-secret fields count as not set; secrets
 * are kept verbatim (a password may have spaces), "" meaning "clear it" and null or absent "keep it".
 */
export function containerRegistryInput(body: ContainerRegistryRequest): ContainerRegistryInput {
  const given = body.config as Record<string, string | number | null | undefined>
  const config: PublicConfig = {}
  for (const field of PUBLIC_CONFIG_FIELDS) {
    const value = given[CONFIG_WIRE_NAMES[field]]
    const kept = typeof value === 'string' ? value.trim() : value
    if (kept !== undefined && kept !== null && kept !== '') config[field] = kept
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
    config,
    secrets,
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

export const toAssociatedServiceResponse = (service: AssociatedService) => ({
  project_id: service.projectId,
  project_name: service.projectName,
  environment_id: service.environmentId,
  environment_name: service.environmentName,
  service_id: service.serviceId,
  service_name: service.serviceName,
  service_type: service.serviceType,
})
