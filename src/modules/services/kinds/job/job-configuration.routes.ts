import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { ServicesService } from '#src/modules/services/services.service.ts'
import { JobParams } from './job.schemas.ts'

// A job's deployment restrictions, as the Terraform provider's `qovery_job` reads them on every
// apply: Berth has none to list. (Advanced settings: src/modules/services/advanced-settings/.)

const JobDeploymentRestrictionResponseList = Type.Object(
  { results: Type.Array(Type.Object({ id: Type.String(), mode: Type.String(), type: Type.String(), value: Type.String() })) },
  { title: 'JobDeploymentRestrictionResponseList' },
)

export function jobConfigurationRoutes(core: ServicesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/job/:jobId/deploymentRestriction',
      {
        schema: {
          operationId: 'getJobDeploymentRestrictions',
          summary: 'Get job deployment restrictions',
          description: 'Berth has no deployment restrictions: the list is empty.',
          tags: ['Job Deployment Restriction'],
          params: JobParams,
          response: { 200: JobDeploymentRestrictionResponseList },
        },
      },
      async (req) => {
        await core.requireService(req.principal, req.params.jobId, 'READ', 'JOB')
        return { results: [] }
      },
    )
  }
}
