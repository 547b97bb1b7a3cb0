import type { GitRepositoryInput, GitRepositoryRef } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { AttachedGroups } from '#src/modules/services/service-groups.ts'
import type { CoreRecord, GitTokenNames } from '#src/modules/services/service-records.ts'

// The job service as the service layer and the database see it: camelCase records, stored as the
// service's JSON configuration.

/** What a job runs for one event: the container's arguments and, when set, its entrypoint. */
export interface JobCommand {
  arguments: string[]
  entrypoint: string | null
}

export const LIFECYCLE_TYPES = ['GENERIC', 'TERRAFORM', 'CLOUDFORMATION'] as const
export type LifecycleType = (typeof LIFECYCLE_TYPES)[number]

export interface CronSchedule extends JobCommand {
  /** The cron expression (five fields, or six with seconds first). */
  scheduledAt: string
  timezone: string
}

export interface LifecycleSchedule {
  onStart: JobCommand | null
  onStop: JobCommand | null
  onDelete: JobCommand | null
  lifecycleType: LifecycleType | null
}

/** A cron job runs on its schedule; a lifecycle job when its environment starts, stops or is deleted. */
export type JobSchedule = { cronjob: CronSchedule } | { lifecycle: LifecycleSchedule }

export type JobSource<Repository = GitRepositoryRef> =
  /** `registryKind`: the registry's kind as the last write found it, for responses. */
  | { image: { imageName: string; tag: string; registryId: string; registryKind?: string } }
  | {
      docker: {
        git: Repository
        dockerfilePath: string | null
        dockerfileRaw: string | null
        dockerTargetBuildStage: string | null
      }
    }

/** Everything a create or a full edit sets; git repositories as the request named them. */
export interface JobServiceInput<Repository = GitRepositoryInput> {
  name: string
  description: string | null
  cpu: number
  memory: number
  gpu: number
  ephemeralStorageInGib: number | null
  maxNbRestart: number
  maxDurationSeconds: number
  /** Null: take the environment's value. */
  autoPreview: boolean | null
  port: number | null
  source: JobSource<Repository>
  cpuArchitecture: 'AMD64' | 'ARM64' | null
  /** The reference's Healthcheck object, kept as the request gave it. */
  healthchecks: Record<string, unknown>
  autoDeploy: boolean
  iconUri: string
  schedule: JobSchedule
}

/** A job's stored configuration: everything but its name, which the service core keeps. */
export interface JobConfig extends Omit<JobServiceInput<GitRepositoryRef>, 'autoPreview' | 'name'> {
  autoPreview: boolean
}

/** A stored job with the names of what it references, as reads return it. */
export interface JobServiceRecord extends JobConfig, CoreRecord, GitTokenNames {
  /** The labels and annotations groups attached to it, in response shapes. */
  groups: AttachedGroups
  version: number
  registry: { id: string; name: string; url: string | null } | null
}

export const jobType = (schedule: JobSchedule): 'CRON' | 'LIFECYCLE' => ('cronjob' in schedule ? 'CRON' : 'LIFECYCLE')
