import type { GitCommit } from '#src/modules/git-providers/git-provider-adapter.ts'
import { gitRepositoryInput, toGitRepositoryResponse } from '#src/modules/services/git-repositories/git-repositories.ts'
import { coreResponseFields, resourceResponseFields, toPortResponse } from '#src/modules/services/service-responses.ts'
import { type ApplicationEditRequest, type ApplicationRequest, type ApplicationResponse, MAXIMUM_CPU, MAXIMUM_MEMORY } from './application.schemas.ts'
import type { ApplicationInput, ApplicationRecord, Healthchecks, Probe } from './application.types.ts'

/** What an application shows when the request gives no icon. */
export const DEFAULT_APPLICATION_ICON_URI = 'app://berth/application'
/** The reference: "If not set a default port will be used": 443 for a public HTTP or gRPC port. */
const DEFAULT_PUBLIC_PORT = 443

type ProbeRequest = NonNullable<ApplicationRequest['healthchecks']['readiness_probe']>

/** A probe with the reference's defaults filled in. */
function probe(given: ProbeRequest | null | undefined): Probe | null {
  if (!given) return null
  const { tcp, http, exec, grpc } = given.type
  return {
    type: {
      ...(tcp ? { tcp: { ...(tcp.port === undefined ? {} : { port: tcp.port }), host: tcp.host ?? null } } : {}),
      ...(http ? { http: { path: http.path ?? '/', scheme: http.scheme ?? 'HTTP', ...(http.port === undefined ? {} : { port: http.port }) } } : {}),
      ...(exec ? { exec: { command: exec.command } } : {}),
      ...(grpc ? { grpc: { service: grpc.service ?? null, ...(grpc.port === undefined ? {} : { port: grpc.port }) } } : {}),
    },
    initial_delay_seconds: given.initial_delay_seconds ?? 30,
    period_seconds: given.period_seconds ?? 10,
    timeout_seconds: given.timeout_seconds ?? 5,
    success_threshold: given.success_threshold ?? 1,
    failure_threshold: given.failure_threshold ?? 9,
  }
}

const healthchecks = (given: ApplicationRequest['healthchecks']): Healthchecks => ({
  readiness_probe: probe(given.readiness_probe),
  liveness_probe: probe(given.liveness_probe),
})

/** A request that passed its schema and applicationRequestErrors, as the service's input; an edit may leave out the name and repository. */
export function applicationInput(body: ApplicationRequest | ApplicationEditRequest): ApplicationInput {
  return {
    name: body.name === undefined ? null : body.name.trim(),
    description: body.description ?? null,
    gitRepository: body.git_repository ? gitRepositoryInput(body.git_repository) : null,
    buildMode: 'DOCKER',
    dockerfilePath: body.dockerfile_path ?? null,
    dockerTargetBuildStage: body.docker_target_build_stage ?? null,
    cpu: body.cpu ?? 500,
    memory: body.memory ?? 512,
    gpu: body.gpu ?? 0,
    ephemeralStorageInGib: body.ephemeral_storage_in_gib ?? null,
    cpuArchitecture: body.cpu_architecture ?? null,
    minRunningInstances: body.min_running_instances ?? 1,
    maxRunningInstances: body.max_running_instances ?? 1,
    healthchecks: healthchecks(body.healthchecks),
    autoPreview: body.auto_preview ?? null,
    autoDeploy: body.auto_deploy ?? true,
    arguments: body.arguments ?? [],
    entrypoint: body.entrypoint ?? null,
    iconUri: body.icon_uri ?? DEFAULT_APPLICATION_ICON_URI,
    ports: (body.ports ?? []).map((port) => {
      const protocol = port.protocol ?? 'HTTP'
      const web = protocol === 'HTTP' || protocol === 'GRPC'
      return {
        requestedId: port.id ?? null,
        name: port.name ?? `p${port.internal_port}`,
        internalPort: port.internal_port,
        externalPort: port.external_port ?? (port.publicly_accessible && web ? DEFAULT_PUBLIC_PORT : null),
        publiclyAccessible: port.publicly_accessible,
        isDefault: port.is_default ?? false,
        protocol,
        publicPath: port.public_path ?? null,
        publicPathRewrite: port.public_path_rewrite ?? null,
      }
    }),
    storage: (body.storage ?? []).map((storage) => ({
      requestedId: storage.id ?? null,
      type: storage.type,
      size: storage.size,
      mountPoint: storage.mount_point,
    })),
  }
}

/** A commit as the reference's `Commit` (contract 2.9). */
export const toCommitResponse = (commit: GitCommit) => ({
  git_commit_id: commit.id,
  created_at: commit.createdAt,
  author_name: commit.authorName,
  message: commit.message,
  tag: commit.tag,
  ...(commit.authorAvatarUrl === undefined ? {} : { author_avatar_url: commit.authorAvatarUrl }),
  ...(commit.pageUrl === undefined ? {} : { commit_page_url: commit.pageUrl }),
})

/** An application as the reference's `Application`. */
export function toApplicationResponse(record: ApplicationRecord): ApplicationResponse {
  const deployed = record.deployedCommit
  return {
    ...coreResponseFields(record),
    storage: record.storage.map((storage) => ({ id: storage.id, type: storage.type, size: storage.size, mount_point: storage.mountPoint })),
    git_repository: {
      ...toGitRepositoryResponse(record.gitRepository, record.gitTokenNames),
      ...(deployed
        ? {
            deployed_commit_id: deployed.id,
            deployed_commit_date: deployed.createdAt,
            deployed_commit_contributor: deployed.authorName,
            deployed_commit_tag: deployed.tag,
          }
        : {}),
    },
    maximum_cpu: MAXIMUM_CPU,
    maximum_memory: MAXIMUM_MEMORY,
    maximun_gpu: 0,
    build_mode: record.buildMode,
    dockerfile_path: record.dockerfilePath,
    ...resourceResponseFields(record),
    min_running_instances: record.minRunningInstances,
    max_running_instances: record.maxRunningInstances,
    healthchecks: record.healthchecks,
    auto_preview: record.autoPreview,
    ports: record.ports.map(toPortResponse),
    arguments: record.arguments,
    ...(record.entrypoint === null ? {} : { entrypoint: record.entrypoint }),
    auto_deploy: record.autoDeploy,
    ...record.groups,
    icon_uri: record.iconUri,
    service_type: 'APPLICATION',
    docker_target_build_stage: record.dockerTargetBuildStage,
  }
}
