import { type Static, Type } from 'typebox'
import {
  AnnotationsGroupResponse,
  LabelsGroupResponse,
  ServiceGroupIdsRequest,
} from '#src/modules/organization-groups/organization-groups.schemas.ts'
import { ApplicationGitRepository, gitRepositoryRequest } from '#src/modules/services/git-repositories/git-repository.schemas.ts'
import { serviceResponseHead } from '#src/modules/services/kind-schemas.ts'
import { probeTypeRequest } from '#src/modules/services/probe-schemas.ts'
import { Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { LIFECYCLE_TYPES } from './job.types.ts'

// Body schemas use plain objects with optional members instead of oneOf (Ajv's removeAdditional
// would strip members while trying alternatives). "Exactly one of" is checked in job-request-rules.ts.

/** The most CPU (millicores), memory (MB) and GPUs a job may ask for: the simulated cluster's. */
export const MAXIMUM_CPU = 16_000
export const MAXIMUM_MEMORY = 16_384
export const MAXIMUM_GPU = 0

const MAX_INT = 2_147_483_647
const Argument = Type.String({ maxLength: 4096 })
const Arguments = Type.Array(Argument, { maxItems: 200 })
const Entrypoint = Type.String({ maxLength: 4096, description: 'optional entrypoint when launching container' })

const Command = (title: string) =>
  Type.Object({ arguments: Type.Optional(Arguments), entrypoint: Type.Optional(Nullable(Entrypoint)) }, { additionalProperties: false, title })

const ProbeType = probeTypeRequest({ maxLength: 2048 }, { maxLength: 16 })

const Seconds = Type.Integer({ minimum: 0, maximum: 86_400 })
const Probe = Nullable(
  Type.Object(
    {
      type: Type.Optional(ProbeType),
      initial_delay_seconds: Type.Optional(Seconds),
      period_seconds: Type.Optional(Seconds),
      timeout_seconds: Type.Optional(Seconds),
      success_threshold: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
      failure_threshold: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    },
    { additionalProperties: false, title: 'Probe' },
  ),
)

export const Healthcheck = Type.Object(
  { readiness_probe: Type.Optional(Probe), liveness_probe: Type.Optional(Probe) },
  { additionalProperties: false, title: 'Healthcheck' },
)

const CpuArchitecture = Enum(['AMD64', 'ARM64'], 'CpuArchitectureEnum')
const LifecycleType = Enum(LIFECYCLE_TYPES, 'JobLifecycleTypeEnum')

export const JobRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'case insensitive; unique in the environment' }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    cpu: Type.Optional(Type.Integer({ minimum: 1, maximum: MAXIMUM_CPU, default: 500, description: 'millicores' })),
    memory: Type.Optional(Type.Integer({ minimum: 1, maximum: MAXIMUM_MEMORY, default: 512, description: 'MB' })),
    gpu: Type.Optional(Type.Integer({ minimum: 0, maximum: MAXIMUM_GPU, default: 0 })),
    ephemeral_storage_in_gib: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 10_000 }))),
    max_nb_restart: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 0 })),
    max_duration_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_INT, default: 300 })),
    auto_preview: Type.Optional(Nullable(Type.Boolean({ description: "absent or null: the environment's auto_preview" }))),
    port: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 65535 }))),
    source: Type.Object(
      {
        image: Type.Optional(
          Nullable(
            Type.Object(
              {
                image_name: Type.String({ minLength: 1, maxLength: 512 }),
                tag: Type.String({ minLength: 1, maxLength: 128 }),
                registry_id: Uuid,
              },
              { additionalProperties: false },
            ),
          ),
        ),
        docker: Type.Optional(
          Nullable(
            Type.Object(
              {
                git_repository: gitRepositoryRequest('JobGitRepositoryRequest'),
                dockerfile_path: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 1024 }))),
                dockerfile_raw: Type.Optional(Nullable(Type.String({ maxLength: 256 * 1024 }))),
                docker_target_build_stage: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
              },
              { additionalProperties: false },
            ),
          ),
        ),
      },
      { additionalProperties: false, description: 'exactly one of image and docker' },
    ),
    cpu_architecture: Type.Optional(Nullable(CpuArchitecture)),
    healthchecks: Healthcheck,
    schedule: Type.Object(
      {
        on_start: Type.Optional(Nullable(Command('JobLifecycleScheduleRequest'))),
        on_stop: Type.Optional(Nullable(Command('JobLifecycleScheduleRequest'))),
        on_delete: Type.Optional(Nullable(Command('JobLifecycleScheduleRequest'))),
        lifecycle_type: Type.Optional(Nullable(LifecycleType)),
        cronjob: Type.Optional(
          Nullable(
            Type.Object(
              {
                arguments: Type.Optional(Arguments),
                entrypoint: Type.Optional(Nullable(Entrypoint)),
                timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, default: 'Etc/UTC', description: 'an IANA timezone' })),
                scheduled_at: Type.String({
                  minLength: 1,
                  maxLength: 255,
                  description:
                    'a cron expression of five fields (minute hour day-of-month month day-of-week); Berth extension: six fields, seconds first',
                }),
              },
              { additionalProperties: false },
            ),
          ),
        ),
      },
      { additionalProperties: false, description: 'a cron job: only cronjob; a lifecycle job: at least one of on_start, on_stop, on_delete' },
    ),
    auto_deploy: Type.Optional(Nullable(Type.Boolean())),
    annotations_groups: ServiceGroupIdsRequest('annotations'),
    labels_groups: ServiceGroupIdsRequest('labels'),
    icon_uri: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
  },
  { additionalProperties: false, title: 'JobRequest' },
)
export type JobRequest = Static<typeof JobRequest>

const CommandResponse = { arguments: Type.Array(Type.String()), entrypoint: Type.Optional(Type.String()) }

const BaseJobResponse = {
  ...serviceResponseHead,
  maximum_cpu: Type.Integer(),
  maximum_memory: Type.Integer(),
  maximum_gpu: Type.Integer(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  cpu: Type.Integer(),
  memory: Type.Integer(),
  gpu: Type.Integer(),
  ephemeral_storage_in_gib: Type.Optional(Type.Integer()),
  cpu_architecture: Nullable(CpuArchitecture),
  max_nb_restart: Type.Integer(),
  max_duration_seconds: Type.Integer(),
  auto_preview: Type.Boolean(),
  port: Nullable(Type.Integer()),
  source: Type.Union([
    Type.Object({
      image: Type.Object(
        {
          image_name: Type.String(),
          tag: Type.String(),
          registry_id: Uuid,
          registry: Type.Object({ id: Uuid, name: Type.String(), url: Type.String(), kind: Type.String() }),
        },
        { title: 'ContainerSource' },
      ),
    }),
    Type.Object({
      docker: Type.Object(
        {
          git_repository: ApplicationGitRepository,
          dockerfile_path: Nullable(Type.String()),
          dockerfile_raw: Nullable(Type.String()),
          docker_target_build_stage: Nullable(Type.String()),
        },
        { title: 'JobSourceDockerResponse' },
      ),
    }),
  ]),
  healthchecks: Type.Object({}, { additionalProperties: true }),
  auto_deploy: Type.Boolean(),
  icon_uri: Type.String(),
  service_type: Type.Literal('JOB'),
  annotations_groups: Type.Array(AnnotationsGroupResponse),
  labels_groups: Type.Array(LabelsGroupResponse),
}

export const CronJobResponse = Type.Object(
  {
    ...BaseJobResponse,
    job_type: Type.Literal('CRON'),
    schedule: Type.Object({
      cronjob: Type.Object({ ...CommandResponse, timezone: Type.String(), scheduled_at: Type.String() }),
    }),
  },
  { title: 'CronJobResponse' },
)

const LifecycleCommandResponse = Type.Object(CommandResponse)
export const LifecycleJobResponse = Type.Object(
  {
    ...BaseJobResponse,
    job_type: Type.Literal('LIFECYCLE'),
    schedule: Type.Object({
      on_start: Type.Optional(LifecycleCommandResponse),
      on_stop: Type.Optional(LifecycleCommandResponse),
      on_delete: Type.Optional(LifecycleCommandResponse),
      lifecycle_type: Type.Optional(LifecycleType),
    }),
  },
  { title: 'LifecycleJobResponse' },
)

export const JobResponse = Type.Union([LifecycleJobResponse, CronJobResponse], { title: 'JobResponse' })
export type JobResponse = Static<typeof JobResponse>

export const JobDeployRequest = Type.Object(
  {
    image_tag: Type.Optional(
      Type.String({ maxLength: 128, description: 'for an image source: the tag to deploy; cannot be set with git_commit_id' }),
    ),
    git_commit_id: Type.Optional(
      Type.String({ maxLength: 255, description: 'for a Dockerfile in git: the commit to build; cannot be set with image_tag' }),
    ),
  },
  { title: 'JobDeployRequest' },
)
export type JobDeployRequest = Static<typeof JobDeployRequest>

export const JOB_FORCE_EVENTS = ['START', 'STOP', 'DELETE', 'CRON'] as const
export type JobForceEvent = (typeof JOB_FORCE_EVENTS)[number]

export const JobForceEventQuery = Type.Object({
  forceEvent: Type.Optional(
    Enum(
      JOB_FORCE_EVENTS,
      'JobForceEvent',
      "Runs the job's command for this event now (force-run): START, STOP or DELETE for a lifecycle job that has it, CRON for a cron job; a job without that event is a 400",
    ),
  ),
})
