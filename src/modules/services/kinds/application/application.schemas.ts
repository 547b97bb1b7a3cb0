import { type Static, Type } from 'typebox'
import { ServiceGroupIdsRequest } from '#src/modules/organization-groups/organization-groups.schemas.ts'
import { ApplicationGitRepository, gitRepositoryRequest } from '#src/modules/services/git-repositories/git-repository.schemas.ts'
import { kindParams, PortProtocol, ServicePortResponse, serviceResponseHead, serviceResponseTail } from '#src/modules/services/kind-schemas.ts'
import { probeTypeRequest } from '#src/modules/services/probe-schemas.ts'
import { Commit } from '#src/platform/git-commit.schemas.ts'
import { Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'

// The reference's ApplicationRequest, ApplicationEditRequest and Application (its response), with
// the parts Berth keeps. Request objects drop members they do not name (Ajv's removeAdditional), so
// that a client echoing a response back (the CLI's `application update`) is accepted.

/** The most a cluster gives one instance; the response's `maximum_cpu` and `maximum_memory`. */
export const MAXIMUM_CPU = 64_000
export const MAXIMUM_MEMORY = 262_144
const MAX_INT = 2_147_483_647

const GitRepositoryRequest = gitRepositoryRequest('ApplicationGitRepositoryRequest')

/** A port as requests give it; `id` names a port to keep (any other text, an empty one included, makes a new port, as the Terraform provider sends). */
const PortRequest = Type.Object(
  {
    id: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
    internal_port: Type.Integer({ minimum: 1, maximum: 65_535 }),
    external_port: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 65_535 }))),
    publicly_accessible: Type.Boolean(),
    is_default: Type.Optional(Nullable(Type.Boolean())),
    protocol: Type.Optional(PortProtocol),
    public_path: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
    public_path_rewrite: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
  },
  { additionalProperties: false, title: 'ServicePortRequest' },
)

const StorageRequest = Type.Object(
  {
    id: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    type: Enum(['FAST_SSD'], 'StorageTypeEnum'),
    size: Type.Integer({ minimum: 4, maximum: 65_536, description: 'GB; at least 4' }),
    mount_point: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false, title: 'ServiceStorageRequest' },
)

const ProbeType = probeTypeRequest({ maxLength: 1024, default: '/' }, { maxLength: 16, default: 'HTTP' })

const Seconds = (fallback: number) => Type.Optional(Type.Integer({ minimum: 0, maximum: 3600, default: fallback }))

const Probe = Type.Object(
  {
    type: ProbeType,
    initial_delay_seconds: Seconds(30),
    period_seconds: Seconds(10),
    timeout_seconds: Seconds(5),
    success_threshold: Seconds(1),
    failure_threshold: Seconds(9),
  },
  { additionalProperties: false, title: 'Probe' },
)

const Healthcheck = Type.Object(
  { readiness_probe: Type.Optional(Nullable(Probe)), liveness_probe: Type.Optional(Nullable(Probe)) },
  { additionalProperties: false, title: 'Healthcheck' },
)

const fields = {
  storage: Type.Optional(Type.Array(StorageRequest, { maxItems: 20 })),
  ports: Type.Optional(Type.Array(PortRequest, { maxItems: 50 })),
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  build_mode: Type.Optional(Enum(['DOCKER'], 'BuildModeEnum')),
  dockerfile_path: Type.Optional(Nullable(Type.String({ maxLength: 1024, description: 'relative to root_path; null: Dockerfile' }))),
  cpu: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INT, default: 500, description: 'millicores' })),
  memory: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INT, default: 512, description: 'MB' })),
  gpu: Type.Optional(Type.Integer({ minimum: 0, maximum: 64, default: 0 })),
  ephemeral_storage_in_gib: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 10_000 }))),
  min_running_instances: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 1 })),
  max_running_instances: Type.Optional(Type.Integer({ minimum: -1, maximum: 1000, default: 1, description: '-1: no limit' })),
  healthchecks: Healthcheck,
  auto_preview: Type.Optional(Nullable(Type.Boolean({ description: "absent or null: the environment's auto_preview" }))),
  arguments: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 200 }))),
  entrypoint: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
  auto_deploy: Type.Optional(Nullable(Type.Boolean({ description: 'absent or null: true' }))),
  annotations_groups: ServiceGroupIdsRequest('annotations'),
  labels_groups: ServiceGroupIdsRequest('labels'),
  icon_uri: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
  docker_target_build_stage: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  cpu_architecture: Type.Optional(Nullable(Enum(['AMD64', 'ARM64'], 'CpuArchitectureEnum'))),
  autoscaling: Type.Optional(
    Nullable(
      Type.Object({ mode: Type.String({ maxLength: 32 }) }, { description: 'KEDA autoscaling: not supported by Berth; only null is accepted' }),
    ),
  ),
}

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'case insensitive; unique in the environment' })

export const ApplicationRequest = Type.Object(
  { name: Name, git_repository: GitRepositoryRequest, ...fields },
  { additionalProperties: false, title: 'ApplicationRequest' },
)
export type ApplicationRequest = Static<typeof ApplicationRequest>

export const ApplicationEditRequest = Type.Object(
  {
    name: Type.Optional(Name),
    git_repository: Type.Optional(GitRepositoryRequest),
    ...fields,
  },
  {
    additionalProperties: false,
    title: 'ApplicationEditRequest',
    description: 'A full replacement; an absent name or git_repository keeps the current one',
  },
)
export type ApplicationEditRequest = Static<typeof ApplicationEditRequest>

const ProbeResponse = Type.Object({
  type: Type.Object({
    tcp: Type.Optional(Nullable(Type.Object({ port: Type.Optional(Type.Integer()), host: Type.Optional(Nullable(Type.String())) }))),
    http: Type.Optional(Nullable(Type.Object({ path: Type.String(), scheme: Type.String(), port: Type.Optional(Type.Integer()) }))),
    exec: Type.Optional(Nullable(Type.Object({ command: Type.Array(Type.String()) }))),
    grpc: Type.Optional(Nullable(Type.Object({ service: Type.Optional(Nullable(Type.String())), port: Type.Optional(Type.Integer()) }))),
  }),
  initial_delay_seconds: Type.Integer(),
  period_seconds: Type.Integer(),
  timeout_seconds: Type.Integer(),
  success_threshold: Type.Integer(),
  failure_threshold: Type.Integer(),
})

export const ApplicationResponse = Type.Object(
  {
    ...serviceResponseHead,
    storage: Type.Array(Type.Object({ id: Uuid, type: Type.String(), size: Type.Integer(), mount_point: Type.String() })),
    git_repository: ApplicationGitRepository,
    maximum_cpu: Type.Integer(),
    maximum_memory: Type.Integer(),
    maximun_gpu: Type.Integer({ description: 'spelt as the reference spells it' }),
    name: Type.String(),
    description: Type.Optional(Type.String()),
    build_mode: Type.String(),
    dockerfile_path: Nullable(Type.String()),
    cpu: Type.Integer(),
    memory: Type.Integer(),
    gpu: Type.Integer(),
    ephemeral_storage_in_gib: Type.Optional(Type.Integer()),
    cpu_architecture: Nullable(Type.String()),
    min_running_instances: Type.Integer(),
    max_running_instances: Type.Integer(),
    healthchecks: Type.Object({ readiness_probe: Nullable(ProbeResponse), liveness_probe: Nullable(ProbeResponse) }),
    auto_preview: Type.Boolean(),
    ports: Type.Array(ServicePortResponse),
    arguments: Type.Array(Type.String()),
    entrypoint: Type.Optional(Type.String()),
    auto_deploy: Type.Boolean(),
    ...serviceResponseTail('APPLICATION'),
    docker_target_build_stage: Nullable(Type.String()),
  },
  { title: 'Application' },
)
export type ApplicationResponse = Static<typeof ApplicationResponse>

export const ApplicationParams = kindParams('applicationId')

export const ApplicationDeployRequest = Type.Object(
  {
    git_commit_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'the commit to build (an id, or a branch or tag the provider resolves); absent: the head of the branch when the deployment is queued',
      }),
    ),
  },
  { title: 'DeployRequest' },
)
export type ApplicationDeployRequest = Static<typeof ApplicationDeployRequest>

export const CommitResponseList = Type.Object({ results: Type.Array(Commit) }, { title: 'CommitResponseList' })

export const CommitListQuery = Type.Object({
  startId: Type.Optional(Type.String({ maxLength: 255, description: 'accepted for compatibility; the listing is one page' })),
  gitCommitId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'list from this commit rather than from the head of the branch' }),
  ),
})
