import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, Type } from 'typebox'
import type { ServicesService } from '#src/modules/services/services.service.ts'
import type { Db } from '#src/platform/db/database.ts'
import { JobParams } from './job.schemas.ts'

// A job's advanced settings, as the Terraform provider's `qovery_job` reads and writes them on every
// apply. Berth keeps the settings a job was given and applies none of them (the simulator has no
// cluster). Its deployment restrictions are served by src/modules/deployment-restrictions/.

const Integer = Type.Integer({ minimum: 0, maximum: 2_147_483_647 })

export const JobAdvancedSettings = Type.Object(
  {
    'build.timeout_max_sec': Type.Optional(Integer),
    'build.cpu_max_in_milli': Type.Optional(Integer),
    'build.ram_max_in_gib': Type.Optional(Integer),
    'build.disable_buildkit_cache': Type.Optional(Type.Boolean()),
    'build.skip_git_submodules': Type.Optional(Type.Boolean()),
    'deployment.termination_grace_period_seconds': Type.Optional(Integer),
    'deployment.affinity.node.required': Type.Optional(
      Type.Record(Type.String({ maxLength: 317 }), Type.String({ maxLength: 63 }), { maxProperties: 50 }),
    ),
    'job.delete_ttl_seconds_after_finished': Type.Optional(Type.Union([Integer, Type.Null()])),
    'cronjob.concurrency_policy': Type.Optional(Type.String({ maxLength: 32 })),
    'cronjob.failed_jobs_history_limit': Type.Optional(Integer),
    'cronjob.success_jobs_history_limit': Type.Optional(Integer),
    'security.service_account_name': Type.Optional(Type.String({ maxLength: 253 })),
    'security.automount_service_account_token': Type.Optional(Type.Boolean()),
    'security.read_only_root_filesystem': Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'JobAdvancedSettings' },
)
type JobAdvancedSettings = Static<typeof JobAdvancedSettings>

/** What a job reads before anything was set: the platform's defaults. */
const DEFAULTS: JobAdvancedSettings = {
  'build.timeout_max_sec': 1800,
  'build.cpu_max_in_milli': 4000,
  'build.ram_max_in_gib': 8,
  'build.disable_buildkit_cache': false,
  'build.skip_git_submodules': false,
  'deployment.termination_grace_period_seconds': 60,
  'deployment.affinity.node.required': {},
  'job.delete_ttl_seconds_after_finished': null,
  'cronjob.concurrency_policy': 'Forbid',
  'cronjob.failed_jobs_history_limit': 1,
  'cronjob.success_jobs_history_limit': 1,
  'security.service_account_name': '',
  'security.automount_service_account_token': false,
  'security.read_only_root_filesystem': false,
}

export function jobConfigurationRoutes(core: ServicesService, db: Db): FastifyPluginAsyncTypebox {
  const stored = async (jobId: string): Promise<JobAdvancedSettings> => {
    const row = await db.selectFrom('jobAdvancedSettings').select('settings').where('serviceId', '=', jobId).executeTakeFirst()
    return { ...DEFAULTS, ...(row?.settings as JobAdvancedSettings | undefined) }
  }
  return async (app) => {
    app.get(
      '/job/:jobId/advancedSettings',
      {
        schema: {
          operationId: 'getJobAdvancedSettings',
          summary: 'Get advanced settings',
          description: 'The settings the job was given over the defaults. Berth keeps them and applies none (the simulator has no cluster).',
          tags: ['Job Configuration'],
          params: JobParams,
          response: { 200: JobAdvancedSettings },
        },
      },
      async (req) => {
        await core.requireService(req.principal, req.params.jobId, 'READ', 'JOB')
        return stored(req.params.jobId)
      },
    )

    app.put(
      '/job/:jobId/advancedSettings',
      {
        schema: {
          operationId: 'editJobAdvancedSettings',
          summary: 'Edit advanced settings',
          description: 'Needs the WRITE role. The keys given replace the stored ones; the others keep their value.',
          tags: ['Job Configuration'],
          params: JobParams,
          body: JobAdvancedSettings,
          response: { 201: JobAdvancedSettings },
        },
      },
      async (req, reply) => {
        const { jobId } = req.params
        await core.requireService(req.principal, jobId, 'WRITE', 'JOB')
        const settings = JSON.stringify({ ...(await stored(jobId)), ...req.body })
        await db
          .insertInto('jobAdvancedSettings')
          .values({ serviceId: jobId, settings })
          .onConflict((conflict) => conflict.column('serviceId').doUpdateSet({ settings, updatedAt: new Date() }))
          .execute()
        return reply.code(201).send(await stored(jobId))
      },
    )
  }
}
