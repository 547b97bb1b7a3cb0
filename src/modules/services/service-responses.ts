import type { LinkedPort } from './service-links.ts'

// What the reference's responses of several kinds share, mapped once.

/** The fields every kind's response starts with. */
export const coreResponseFields = (record: {
  id: string
  createdAt: Date
  updatedAt: Date
  environmentId: string
  name: string
  description: string | null
}) => ({
  id: record.id,
  created_at: record.createdAt.toISOString(),
  updated_at: record.updatedAt.toISOString(),
  environment: { id: record.environmentId },
  name: record.name,
  ...(record.description === null ? {} : { description: record.description }),
})

/** The resources of a service that runs instances (application, container, job). */
export const resourceResponseFields = <Architecture>(record: {
  cpu: number
  memory: number
  gpu: number
  ephemeralStorageInGib: number | null
  cpuArchitecture: Architecture
}) => ({
  cpu: record.cpu,
  memory: record.memory,
  gpu: record.gpu,
  ...(record.ephemeralStorageInGib === null ? {} : { ephemeral_storage_in_gib: record.ephemeralStorageInGib }),
  cpu_architecture: record.cpuArchitecture,
})

/** A port of an application or a container, as stored. */
export interface ServicePort<Protocol extends LinkedPort['protocol'] = LinkedPort['protocol']> extends LinkedPort {
  id: string
  name: string
  protocol: Protocol
  publicPath: string | null
  publicPathRewrite: string | null
}

/** A port as the reference's `ServicePort`. */
export const toPortResponse = <Protocol extends LinkedPort['protocol']>(port: ServicePort<Protocol>) => ({
  id: port.id,
  name: port.name,
  internal_port: port.internalPort,
  ...(port.externalPort === null ? {} : { external_port: port.externalPort }),
  publicly_accessible: port.publiclyAccessible,
  is_default: port.isDefault,
  protocol: port.protocol,
  ...(port.publicPath === null ? {} : { public_path: port.publicPath }),
  ...(port.publicPathRewrite === null ? {} : { public_path_rewrite: port.publicPathRewrite }),
})
