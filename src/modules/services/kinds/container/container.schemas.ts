import { type Static, Type } from 'typebox'
import { ContainerRegistryKind } from '#src/modules/organization-credentials/container-registries/container-registries.schemas.ts'
import { ServiceGroupIdsRequest } from '#src/modules/organization-groups/organization-groups.schemas.ts'
import { kindParams, linkResponseList, PortProtocol, ServicePortResponse, serviceResponseTail } from '#src/modules/services/kind-schemas.ts'
import { DateTime, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'

// Body schemas use plain objects with optional members instead of oneOf: Ajv's removeAdditional
// would strip members while trying alternatives. "Exactly one of" is checked in container-request-rules.ts.

export const CPU_ARCHITECTURES = ['AMD64', 'ARM64'] as const
export type CpuArchitecture = (typeof CPU_ARCHITECTURES)[number]
const CpuArchitecture = Type.Unsafe<CpuArchitecture>({ type: 'string', enum: [...CPU_ARCHITECTURES], title: 'CpuArchitectureEnum' })

const StorageType = Type.Unsafe<'FAST_SSD'>({ type: 'string', enum: ['FAST_SSD'], title: 'StorageTypeEnum' })

const MAX_INT = 2_147_483_647
const Port = Type.Integer({ minimum: 1, maximum: 65535 })
const Seconds = (fallback: number) => Type.Optional(Type.Integer({ minimum: 0, maximum: 3600, default: fallback }))

const ProbeRequest = Type.Object(
  {
    type: Type.Object(
      {
        tcp: Type.Optional(Nullable(Type.Object({ port: Type.Optional(Port), host: Type.Optional(Nullable(Type.String({ maxLength: 253 }))) }))),
        http: Type.Optional(
          Nullable(
            Type.Object({
              path: Type.Optional(Type.String({ maxLength: 2048, default: '/' })),
              scheme: Type.Optional(Type.String({ maxLength: 16, default: 'HTTP' })),
              port: Type.Optional(Port),
            }),
          ),
        ),
        exec: Type.Optional(Nullable(Type.Object({ command: Type.Array(Type.String({ maxLength: 4096 }), { minItems: 1, maxItems: 100 }) }))),
        grpc: Type.Optional(Nullable(Type.Object({ service: Type.Optional(Nullable(Type.String({ maxLength: 255 }))), port: Type.Optional(Port) }))),
      },
      { description: 'exactly one of tcp, http, exec and grpc' },
    ),
    initial_delay_seconds: Seconds(30),
    period_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, default: 10 })),
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, default: 5 })),
    success_threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 1 })),
    failure_threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 9 })),
  },
  { title: 'Probe' },
)

export const Healthcheck = Type.Object(
  { readiness_probe: Type.Optional(Nullable(ProbeRequest)), liveness_probe: Type.Optional(Nullable(ProbeRequest)) },
  { title: 'Healthcheck' },
)
export type Healthcheck = Static<typeof Healthcheck>

const ContainerPortRequest = Type.Object(
  {
    id: Type.Optional(Nullable(Uuid)),
    name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 63 }))),
    internal_port: Port,
    external_port: Type.Optional(Nullable(Port)),
    publicly_accessible: Type.Boolean(),
    is_default: Type.Optional(Nullable(Type.Boolean())),
    protocol: Type.Optional(Nullable(PortProtocol)),
    public_path: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
    public_path_rewrite: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
  },
  { title: 'ServicePortRequestPortsInner' },
)

const StorageRequest = Type.Object(
  {
    id: Type.Optional(Nullable(Uuid)),
    type: StorageType,
    size: Type.Integer({ minimum: 4, maximum: 65_536, description: 'unit is GB; at least 4' }),
    mount_point: Type.String({ minLength: 2, maxLength: 1024 }),
  },
  { title: 'ServiceStorageRequestStorageInner' },
)

export const ContainerRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'case insensitive; unique in the environment' }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    registry_id: Uuid,
    image_name: Type.String({ minLength: 1, maxLength: 255, description: 'the image without registry host and tag: `image` or `namespace/image`' }),
    tag: Type.String({ minLength: 1, maxLength: 128 }),
    arguments: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 200 }))),
    entrypoint: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
    cpu: Type.Optional(Nullable(Type.Integer({ minimum: 10, maximum: MAX_INT, default: 500, description: 'millicores' }))),
    memory: Type.Optional(Nullable(Type.Integer({ minimum: 10, maximum: MAX_INT, default: 512, description: 'MB' }))),
    gpu: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 64, default: 0 }))),
    ephemeral_storage_in_gib: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 65_536 }))),
    cpu_architecture: Type.Optional(Nullable(CpuArchitecture)),
    min_running_instances: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1000, default: 1 }))),
    max_running_instances: Type.Optional(Nullable(Type.Integer({ minimum: -1, maximum: 1000, default: 1, description: '-1: no limit' }))),
    healthchecks: Healthcheck,
    auto_preview: Type.Optional(Nullable(Type.Boolean({ description: "absent or null: the environment's auto_preview" }))),
    auto_deploy: Type.Optional(Nullable(Type.Boolean({ default: false }))),
    ports: Type.Optional(Nullable(Type.Array(ContainerPortRequest, { maxItems: 50 }))),
    storage: Type.Optional(Nullable(Type.Array(StorageRequest, { maxItems: 20 }))),
    annotations_groups: ServiceGroupIdsRequest('annotations'),
    labels_groups: ServiceGroupIdsRequest('labels'),
    icon_uri: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2048 }))),
  },
  { title: 'ContainerRequest' },
)
export type ContainerRequest = Static<typeof ContainerRequest>

const ProbeResponse = Type.Object({
  type: Type.Object({
    tcp: Nullable(Type.Object({ port: Type.Optional(Type.Integer()), host: Nullable(Type.String()) })),
    http: Nullable(Type.Object({ path: Type.String(), scheme: Type.String(), port: Type.Optional(Type.Integer()) })),
    exec: Nullable(Type.Object({ command: Type.Array(Type.String()) })),
    grpc: Nullable(Type.Object({ service: Nullable(Type.String()), port: Type.Optional(Type.Integer()) })),
  }),
  initial_delay_seconds: Type.Integer(),
  period_seconds: Type.Integer(),
  timeout_seconds: Type.Integer(),
  success_threshold: Type.Integer(),
  failure_threshold: Type.Integer(),
})

export const ContainerResponse = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: DateTime,
    storage: Type.Array(Type.Object({ id: Uuid, type: StorageType, size: Type.Integer(), mount_point: Type.String() })),
    image_name: Type.String(),
    tag: Type.String(),
    registry_id: Uuid,
    registry: Type.Object({ id: Uuid, name: Type.String(), url: Type.String(), kind: ContainerRegistryKind }),
    environment: Type.Object({ id: Uuid }),
    maximum_cpu: Type.Integer({ description: 'millicores a container may ask for on its cluster' }),
    maximum_memory: Type.Integer({ description: 'MB a container may ask for on its cluster' }),
    maximum_gpu: Type.Integer(),
    name: Type.String(),
    description: Type.Optional(Type.String()),
    arguments: Type.Array(Type.String()),
    entrypoint: Type.Optional(Type.String()),
    cpu: Type.Integer(),
    memory: Type.Integer(),
    gpu: Type.Integer(),
    ephemeral_storage_in_gib: Type.Optional(Type.Integer()),
    cpu_architecture: Nullable(CpuArchitecture),
    min_running_instances: Type.Integer(),
    max_running_instances: Type.Integer(),
    healthchecks: Type.Object({ readiness_probe: Nullable(ProbeResponse), liveness_probe: Nullable(ProbeResponse) }),
    auto_preview: Type.Boolean(),
    ports: Type.Array(ServicePortResponse),
    auto_deploy: Type.Boolean(),
    ...serviceResponseTail('CONTAINER'),
  },
  { title: 'ContainerResponse' },
)
export type ContainerResponse = Static<typeof ContainerResponse>

export const ContainerParams = kindParams('containerId')

export const ContainerDeployRequest = Type.Object(
  {
    image_tag: Type.Optional(
      Type.String({
        maxLength: 128,
        description:
          'the tag to deploy; absent or empty: the configured tag (Berth accepts a deploy without a body; the CLI sends {"image_tag":""} to redeploy)',
      }),
    ),
  },
  { title: 'ContainerDeployRequest' },
)
export type ContainerDeployRequest = Static<typeof ContainerDeployRequest>

export const LinkResponseList = linkResponseList(Type.Literal('CONTAINER'))
