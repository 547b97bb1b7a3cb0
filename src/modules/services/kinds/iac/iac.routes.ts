import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { KindRouteContext } from '#src/modules/services/kind-route-context.ts'
import { kindParams } from '#src/modules/services/kind-schemas.ts'
import { CommitListQuery, CommitResponseList } from '#src/modules/services/kinds/application/application.schemas.ts'
import { toCommitResponse } from '#src/modules/services/kinds/application/application.wire.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { AppError, validationFailed } from '#src/platform/http/errors.ts'
import { TerraformResourcesResponse, TerraformVersionResponseList } from './iac.schemas.ts'
import type { IacConfig } from './iac.types.ts'
import { IAC_VERSIONS } from './iac-engines.ts'
import { type IacResource, RESOURCES_OUTPUT } from './iac-resources.ts'

// The terraform service's own routes, besides those every kind has: the engines' versions, the
// repository's commits, and the resources of the last apply.

const TerraformParams = kindParams('terraformId')
/** How many commits `listTerraformCommit` answers: the reference's "last 100 commits". */
const COMMITS_LISTED = 100

/** listTerraformVersions: before the list, as the reference's document has it. */
export function iacBeforeRoutes(): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/terraform/availableVersion',
      {
        schema: {
          operationId: 'listTerraformVersions',
          summary: 'List available Terraform versions',
          description:
            'The engines and versions a terraform service may name (`engine`, `provider_version.explicit_version`); see docs/iac.md for the images they run.',
          tags: ['Terraform Main Calls'],
          response: { 200: TerraformVersionResponseList },
        },
      },
      async () => ({ results: IAC_VERSIONS.map(({ engine, version }) => ({ engine, version })) }),
    )
  }
}

/** A terraform's commits and resources: the routes after its delete. */
export function iacMemberRoutes({ core, commits, lastOutput }: KindRouteContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/terraform/:terraformId/commit',
      {
        schema: {
          operationId: 'listTerraformCommit',
          summary: 'List last commits',
          description:
            "The newest 100 commits of the terraform's branch (the default branch without one), or from `gitCommitId`, newest first, as its git provider lists them.",
          tags: ['Terraform Main Calls'],
          params: TerraformParams,
          querystring: CommitListQuery,
          response: { 200: CommitResponseList },
        },
      },
      async (req) => {
        const service = (await core.get(req.principal, 'IAC', req.params.terraformId)) as ServiceRecord<IacConfig>
        const { provider, owner, name, gitTokenId, branch } = service.configuration.git
        const gitCommitId = req.query.gitCommitId
        try {
          const listed = await commits.listCommits(
            { organizationId: service.organizationId, provider, owner, name, gitTokenId },
            gitCommitId ?? branch,
            COMMITS_LISTED,
          )
          return { results: listed.map(toCommitResponse) }
        } catch (error) {
          if (error instanceof AppError && error.code === 'validation_failed' && error.errors && gitCommitId !== undefined) {
            throw validationFailed(error.errors.map((fieldError) => ({ ...fieldError, path: '/gitCommitId', location: 'query' as const })))
          }
          throw error
        }
      },
    )

    app.get(
      '/terraform/:terraformId/terraformResources',
      {
        schema: {
          operationId: 'getTerraformResources',
          summary: 'Get terraform resources from latest deployment',
          description:
            'The resources of the state after the last successful apply (what `show -json` listed), each with the time it was read; empty before any apply and after a destroy.',
          tags: ['Terraform Resources'],
          params: TerraformParams,
          response: { 200: TerraformResourcesResponse },
        },
      },
      async (req) => {
        await core.get(req.principal, 'IAC', req.params.terraformId)
        const last = await lastOutput(req.params.terraformId)
        const resources = (last?.output[RESOURCES_OUTPUT] as IacResource[] | undefined) ?? []
        return { results: resources }
      },
    )
  }
}
