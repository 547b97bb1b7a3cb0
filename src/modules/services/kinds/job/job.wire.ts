import { gitRepositoryInput, toGitRepositoryResponse } from '#src/modules/services/git-repositories/git-repositories.ts'
import { coreResponseFields, resourceResponseFields } from '#src/modules/services/service-responses.ts'
import { DEFAULT_TIMEZONE } from './cron-expressions.ts'
import { type JobRequest, type JobResponse, MAXIMUM_CPU, MAXIMUM_GPU, MAXIMUM_MEMORY } from './job.schemas.ts'
import type { JobCommand, JobSchedule, JobServiceInput, JobServiceRecord } from './job.types.ts'

/** What a job shows when the request gives no icon. */
export const DEFAULT_JOB_ICON_URI = 'app://berth/job'
const DEFAULT_CPU = 500
const DEFAULT_MEMORY = 512
const DEFAULT_MAX_DURATION_SECONDS = 300
/** The Dockerfile a git source builds when the request names none. */
const DEFAULT_DOCKERFILE = 'Dockerfile'

type CommandRequest = { arguments?: string[]; entrypoint?: string | null } | null | undefined

const command = (given: CommandRequest): JobCommand | null =>
  given == null ? null : { arguments: given.arguments ?? [], entrypoint: given.entrypoint ?? null }

function scheduleInput(schedule: JobRequest['schedule']): JobSchedule {
  const cron = schedule.cronjob
  if (cron) {
    return {
      cronjob: {
        arguments: cron.arguments ?? [],
        entrypoint: cron.entrypoint ?? null,
        scheduledAt: cron.scheduled_at.trim(),
        timezone: cron.timezone ?? DEFAULT_TIMEZONE,
      },
    }
  }
  return {
    lifecycle: {
      onStart: command(schedule.on_start),
      onStop: command(schedule.on_stop),
      onDelete: command(schedule.on_delete),
      lifecycleType: schedule.lifecycle_type ?? null,
    },
  }
}

/** A job request that passed its schema and jobRequestErrors, as the service's input. */
export function jobInput(body: JobRequest): JobServiceInput {
  const { image, docker } = body.source
  return {
    name: body.name.trim(),
    description: body.description ?? null,
    cpu: body.cpu ?? DEFAULT_CPU,
    memory: body.memory ?? DEFAULT_MEMORY,
    gpu: body.gpu ?? 0,
    ephemeralStorageInGib: body.ephemeral_storage_in_gib ?? null,
    maxNbRestart: body.max_nb_restart ?? 0,
    maxDurationSeconds: body.max_duration_seconds ?? DEFAULT_MAX_DURATION_SECONDS,
    autoPreview: body.auto_preview ?? null,
    port: body.port ?? null,
    source: image
      ? { image: { imageName: image.image_name, tag: image.tag, registryId: image.registry_id } }
      : {
          docker: {
            git: gitRepositoryInput(docker!.git_repository),
            dockerfilePath: docker!.dockerfile_path ?? (docker!.dockerfile_raw == null ? DEFAULT_DOCKERFILE : null),
            dockerfileRaw: docker!.dockerfile_raw ?? null,
            dockerTargetBuildStage: docker!.docker_target_build_stage ?? null,
          },
        },
    cpuArchitecture: body.cpu_architecture ?? null,
    healthchecks: body.healthchecks,
    autoDeploy: body.auto_deploy ?? false,
    iconUri: body.icon_uri ?? DEFAULT_JOB_ICON_URI,
    schedule: scheduleInput(body.schedule),
  }
}

const commandResponse = (given: JobCommand) => ({
  arguments: given.arguments,
  ...(given.entrypoint === null ? {} : { entrypoint: given.entrypoint }),
})

/** A job as the reference's `JobResponse`: a CronJobResponse or a LifecycleJobResponse. */
export function toJobResponse(record: JobServiceRecord): JobResponse {
  const { source, schedule } = record
  const base = {
    ...coreResponseFields(record),
    maximum_cpu: MAXIMUM_CPU,
    maximum_memory: MAXIMUM_MEMORY,
    maximum_gpu: MAXIMUM_GPU,
    ...resourceResponseFields(record),
    max_nb_restart: record.maxNbRestart,
    max_duration_seconds: record.maxDurationSeconds,
    auto_preview: record.autoPreview,
    port: record.port,
    source:
      'image' in source
        ? {
            image: {
              image_name: source.image.imageName,
              tag: source.image.tag,
              registry_id: source.image.registryId,
              registry: {
                id: source.image.registryId,
                name: record.registry?.name ?? '',
                url: record.registry?.url ?? '',
                kind: source.image.registryKind ?? '',
              },
            },
          }
        : {
            docker: {
              git_repository: toGitRepositoryResponse(source.docker.git, record.gitTokenNames),
              dockerfile_path: source.docker.dockerfilePath,
              dockerfile_raw: source.docker.dockerfileRaw,
              docker_target_build_stage: source.docker.dockerTargetBuildStage,
            },
          },
    healthchecks: record.healthchecks,
    auto_deploy: record.autoDeploy,
    icon_uri: record.iconUri,
    service_type: 'JOB' as const,
    ...record.groups,
  }
  if ('cronjob' in schedule) {
    const cron = schedule.cronjob
    return {
      ...base,
      job_type: 'CRON',
      schedule: { cronjob: { ...commandResponse(cron), timezone: cron.timezone, scheduled_at: cron.scheduledAt } },
    }
  }
  const { onStart, onStop, onDelete, lifecycleType } = schedule.lifecycle
  return {
    ...base,
    job_type: 'LIFECYCLE',
    schedule: {
      ...(onStart ? { on_start: commandResponse(onStart) } : {}),
      ...(onStop ? { on_stop: commandResponse(onStop) } : {}),
      ...(onDelete ? { on_delete: commandResponse(onDelete) } : {}),
      ...(lifecycleType ? { lifecycle_type: lifecycleType } : {}),
    },
  }
}
