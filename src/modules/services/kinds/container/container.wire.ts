import { coreResponseFields, resourceResponseFields, toPortResponse } from '#src/modules/services/service-responses.ts'
import type { ContainerRequest, ContainerResponse } from './container.schemas.ts'
import type { ContainerServiceInput, ContainerServiceRecord, Healthchecks, Probe } from './container.types.ts'

/** What a container shows when the request gives no icon. */
export const DEFAULT_CONTAINER_ICON_URI = 'app://berth/container'

/** The platform's defaults for what a request leaves out (its ContainerRequest schema, and the Terraform provider's). */
export const CONTAINER_DEFAULTS = { cpu: 500, memory: 512, gpu: 0, minRunningInstances: 1, maxRunningInstances: 1 } as const

/** What one container may ask for on a cluster Berth runs (the response's `maximum_*`). */
export const CONTAINER_MAXIMUMS = { cpu: 64_000, memory: 262_144, gpu: 0 } as const

/** The external port of a public HTTP or gRPC port that names none: served over TLS. */
const DEFAULT_PUBLIC_HTTP_PORT = 443

type ProbeRequest = NonNullable<ContainerRequest['healthchecks']['readiness_probe']>

function probeInput(probe: ProbeRequest | null | undefined): Probe | null {
  if (!probe) return null
  const { tcp, http, exec, grpc } = probe.type
  // The rules have checked that exactly one is given.
  const type: Probe['type'] = tcp
    ? { tcp: { port: tcp.port ?? null, host: tcp.host ?? null } }
    : http
      ? { http: { path: http.path ?? '/', scheme: http.scheme ?? 'HTTP', port: http.port ?? null } }
      : exec
        ? { exec: { command: exec.command } }
        : { grpc: { service: grpc?.service ?? null, port: grpc?.port ?? null } }
  return {
    type,
    initialDelaySeconds: probe.initial_delay_seconds ?? 30,
    periodSeconds: probe.period_seconds ?? 10,
    timeoutSeconds: probe.timeout_seconds ?? 5,
    successThreshold: probe.success_threshold ?? 1,
    failureThreshold: probe.failure_threshold ?? 9,
  }
}

/** A container request that passed its schema and containerRequestErrors, as the service's input. */
export function containerInput(body: ContainerRequest): ContainerServiceInput {
  return {
    name: body.name.trim(),
    description: body.description ?? null,
    registryId: body.registry_id,
    imageName: body.image_name.trim(),
    tag: body.tag.trim(),
    arguments: body.arguments ?? [],
    entrypoint: body.entrypoint || null,
    cpu: body.cpu ?? CONTAINER_DEFAULTS.cpu,
    memory: body.memory ?? CONTAINER_DEFAULTS.memory,
    gpu: body.gpu ?? CONTAINER_DEFAULTS.gpu,
    ephemeralStorageInGib: body.ephemeral_storage_in_gib ?? null,
    cpuArchitecture: body.cpu_architecture ?? null,
    minRunningInstances: body.min_running_instances ?? CONTAINER_DEFAULTS.minRunningInstances,
    maxRunningInstances: body.max_running_instances ?? CONTAINER_DEFAULTS.maxRunningInstances,
    healthchecks: { readinessProbe: probeInput(body.healthchecks.readiness_probe), livenessProbe: probeInput(body.healthchecks.liveness_probe) },
    autoPreview: body.auto_preview ?? null,
    autoDeploy: body.auto_deploy ?? false,
    ports: (body.ports ?? []).map((port) => {
      const protocol = port.protocol ?? 'HTTP'
      const web = protocol === 'HTTP' || protocol === 'GRPC'
      return {
        id: port.id ?? null,
        name: port.name ?? `p${port.internal_port}`,
        internalPort: port.internal_port,
        externalPort: port.external_port ?? (port.publicly_accessible ? (web ? DEFAULT_PUBLIC_HTTP_PORT : port.internal_port) : null),
        publiclyAccessible: port.publicly_accessible,
        isDefault: port.is_default ?? false,
        protocol,
        publicPath: port.public_path ?? (port.publicly_accessible && web ? '/' : null),
        publicPathRewrite: port.public_path_rewrite ?? null,
      }
    }),
    storage: (body.storage ?? []).map((storage) => ({
      id: storage.id ?? null,
      type: storage.type,
      sizeGb: storage.size,
      mountPoint: storage.mount_point,
    })),
    iconUri: body.icon_uri ?? DEFAULT_CONTAINER_ICON_URI,
  }
}

function toProbeResponse(probe: Probe | null) {
  if (!probe) return null
  const { type } = probe
  return {
    type: {
      tcp: 'tcp' in type ? { ...(type.tcp.port === null ? {} : { port: type.tcp.port }), host: type.tcp.host } : null,
      http: 'http' in type ? { path: type.http.path, scheme: type.http.scheme, ...(type.http.port === null ? {} : { port: type.http.port }) } : null,
      exec: 'exec' in type ? { command: type.exec.command } : null,
      grpc: 'grpc' in type ? { service: type.grpc.service, ...(type.grpc.port === null ? {} : { port: type.grpc.port }) } : null,
    },
    initial_delay_seconds: probe.initialDelaySeconds,
    period_seconds: probe.periodSeconds,
    timeout_seconds: probe.timeoutSeconds,
    success_threshold: probe.successThreshold,
    failure_threshold: probe.failureThreshold,
  }
}

const toHealthchecksResponse = (healthchecks: Healthchecks) => ({
  readiness_probe: toProbeResponse(healthchecks.readinessProbe),
  liveness_probe: toProbeResponse(healthchecks.livenessProbe),
})

/** A container service as the reference's `ContainerResponse`. */
export function toContainerResponse(record: ContainerServiceRecord): ContainerResponse {
  return {
    ...coreResponseFields(record),
    storage: record.storage.map((storage) => ({ id: storage.id, type: storage.type, size: storage.sizeGb, mount_point: storage.mountPoint })),
    image_name: record.imageName,
    tag: record.tag,
    registry_id: record.registryId,
    registry: record.registry as ContainerResponse['registry'],
    maximum_cpu: CONTAINER_MAXIMUMS.cpu,
    maximum_memory: CONTAINER_MAXIMUMS.memory,
    maximum_gpu: CONTAINER_MAXIMUMS.gpu,
    arguments: record.arguments,
    ...(record.entrypoint === null ? {} : { entrypoint: record.entrypoint }),
    ...resourceResponseFields(record),
    min_running_instances: record.minRunningInstances,
    max_running_instances: record.maxRunningInstances,
    healthchecks: toHealthchecksResponse(record.healthchecks),
    auto_preview: record.autoPreview,
    ports: record.ports.map(toPortResponse),
    auto_deploy: record.autoDeploy,
    ...record.groups,
    icon_uri: record.iconUri,
    service_type: 'CONTAINER',
  }
}
