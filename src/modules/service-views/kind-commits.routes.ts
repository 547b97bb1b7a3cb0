import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { GitRepositoryRef } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { KindRouteContext } from '#src/modules/services/kind-route-context.ts'
import { CommitResponseList } from '#src/modules/services/kinds/application/application.schemas.ts'
import { toCommitResponse } from '#src/modules/services/kinds/application/application.wire.ts'
import type { HelmConfig } from '#src/modules/services/kinds/helm/helm.types.ts'
import type { JobConfig } from '#src/modules/services/kinds/job/job.types.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { validationFailed } from '#src/platform/http/errors.ts'

/** The reference's "last 100 commits". */
const COMMITS_LISTED = 100

const HelmCommitQuery = Type.Object({
  of: Type.Union([Type.Literal('chart'), Type.Literal('values')], {
    default: 'chart',
    description: 'the repository of the chart (`chart`) or of the values files (`values`)',
  }),
})

/** The newest commits of a helm's chart or values repository, and of a job's Dockerfile repository, through the service core and the git providers. */
export function kindCommitsRoutes({ core, commits }: KindRouteContext): FastifyPluginAsyncTypebox {
  async function newestCommits(service: ServiceRecord, repository: GitRepositoryRef | undefined, what: string, location: 'query' | 'path') {
    if (!repository) throw validationFailed([{ path: location === 'query' ? '/of' : '', message: `${what} is not in a git repository`, location }])
    const { provider, owner, name, gitTokenId, branch } = repository
    return (await commits.listCommits({ organizationId: service.organizationId, provider, owner, name, gitTokenId }, branch, COMMITS_LISTED)).map(
      toCommitResponse,
    )
  }

  async function helmCommits(principal: Principal, helmId: string, of: 'chart' | 'values') {
    const service = (await core.get(principal, 'HELM', helmId)) as ServiceRecord<HelmConfig>
    const { source, valuesOverride } = service.configuration
    const file = valuesOverride.file
    const repository = of === 'chart' ? ('git' in source ? source.git : undefined) : file && 'git' in file ? file.git.repository : undefined
    return newestCommits(service, repository, of === 'chart' ? "the helm's chart" : "the helm's values file", 'query')
  }

  async function jobCommits(principal: Principal, jobId: string) {
    const service = (await core.get(principal, 'JOB', jobId)) as ServiceRecord<JobConfig>
    const { source } = service.configuration
    return newestCommits(service, 'docker' in source ? source.docker.git : undefined, "the job's source (an image)", 'path')
  }

  return async (app) => {
    app.get(
      '/helm/:helmId/commit',
      {
        schema: {
          operationId: 'listHelmCommit',
          summary: 'List last helm commits',
          description:
            "The newest 100 commits of the branch of the helm's chart repository (`of=chart`) or of its values files' repository (`of=values`), newest first, " +
            'as its git provider lists them, read with the git token. A chart from a helm repository, or values not in git: 400.',
          tags: ['Helm Main Calls'],
          params: Type.Object({ helmId: Uuid }),
          querystring: HelmCommitQuery,
          response: { 200: CommitResponseList },
        },
      },
      async (req) => ({ results: await helmCommits(req.principal, req.params.helmId, req.query.of) }),
    )

    app.get(
      '/job/:jobId/commit',
      {
        schema: {
          operationId: 'listJobCommit',
          summary: 'List last job commits',
          description:
            "The newest 100 commits of the branch of the job's Dockerfile repository, newest first, as its git provider lists them. A job of an image: 400.",
          tags: ['Job Main Calls'],
          params: Type.Object({ jobId: Uuid }),
          response: { 200: CommitResponseList },
        },
      },
      async (req) => ({ results: await jobCommits(req.principal, req.params.jobId) }),
    )
  }
}
