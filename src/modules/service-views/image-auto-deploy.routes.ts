import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { toStatusResponse } from '#src/modules/deployments/api/triggers/triggers.wire.ts'
import { Status } from '#src/platform/deployment-status.schemas.ts'
import { OrganizationParams } from '#src/platform/http/common-schemas.ts'
import type { ImageAutoDeploy, ImageKind } from './image-auto-deploy.ts'

const AutoDeployRequest = (what: string, title: string) =>
  Type.Object(
    {
      image_name: Type.String({ minLength: 1, maxLength: 512, description: `the ${what} image name to deploy` }),
      tag: Type.String({ minLength: 1, maxLength: 128, description: 'the new tag to deploy' }),
    },
    { title },
  )

const OPERATIONS: { kind: ImageKind; segment: string; operationId: string; title: string; tags: string[] }[] = [
  {
    kind: 'CONTAINER',
    segment: 'container',
    operationId: 'autoDeployContainerEnvironments',
    title: 'OrganizationContainerAutoDeployRequest',
    tags: ['Containers'],
  },
  { kind: 'JOB', segment: 'job', operationId: 'autoDeployJobEnvironments', title: 'OrganizationJobAutoDeployRequest', tags: ['Jobs'] },
]

export function imageAutoDeployRoutes(autoDeploy: ImageAutoDeploy): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const { kind, segment, operationId, title, tags } of OPERATIONS) {
      app.post(
        `/organization/:organizationId/${segment}/deploy`,
        {
          schema: {
            operationId,
            summary: `Auto deploy ${segment}s`,
            description:
              `Deploys \`tag\` (as a deploy's \`image_tag\`; the configuration keeps its tag) to every ${segment} of the organization outside previews ` +
              `that runs another tag of \`image_name\`${kind === 'JOB' ? ' (a job from an image)' : ''} with \`auto_deploy\` on, one deployment each, ` +
              "where the caller may deploy. The answer is the first one's status. Needs the DEPLOY role; none matching is a 400 at `image_name`, matches the caller may deploy none of a 403.",
            tags,
            params: OrganizationParams,
            body: AutoDeployRequest(segment, title),
            response: { 202: Status },
          },
        },
        async (req, reply) =>
          reply
            .code(202)
            .send(toStatusResponse(await autoDeploy.deploy(req.principal, req.params.organizationId, kind, req.body.image_name, req.body.tag))),
      )
    }
  }
}
