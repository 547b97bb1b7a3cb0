import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { ChartSource } from '#src/modules/executors/kubernetes/chart-default-values.ts'
import { gitRepositoryRequest } from '#src/modules/services/git-repositories/git-repository.schemas.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { validationFailed } from '#src/platform/http/errors.ts'
import type { ChartRepository } from './chart-index.ts'

// createHelmDefaultValues: a chart's own values.yaml, read from its source as a deployment reads
// the chart (docs/kubernetes.md, "A chart's default values").

const HelmDefaultValuesRequest = Type.Object(
  {
    source: Type.Object(
      {
        git_repository: Type.Optional(gitRepositoryRequest('HelmGitRepositoryRequest')),
        helm_repository: Type.Optional(
          Type.Object(
            {
              repository: Type.Optional(Type.Union([Uuid, Type.Null()])),
              chart_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
              chart_version: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { title: 'HelmDefaultValuesRequest' },
)

export interface HelmDefaultValuesDeps {
  environments: Pick<EnvironmentsService, 'requireEnvironment'>
  requireChartRepository(principal: Principal, organizationId: string, helmRepositoryId: string): Promise<ChartRepository>
  defaultValues(organizationId: string, source: ChartSource): Promise<string>
}

const HOSTS: Record<string, string> = { 'github.com': 'GITHUB', 'gitlab.com': 'GITLAB', 'bitbucket.org': 'BITBUCKET' }

export function helmDefaultValuesRoutes(deps: HelmDefaultValuesDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/environment/:environmentId/helmDefaultValues',
      {
        schema: {
          operationId: 'createHelmDefaultValues',
          summary: 'Get helm default values',
          description:
            "Needs the WRITE role (a helm service's create reads it). The chart's own values.yaml, as `helm show values` prints it: the chart is fetched as a deployment fetches it, " +
            "from one of the organization's helm repositories (`helm pull`, its credentials, the address check) or from git at `root_path` " +
            "(a checkout through the address guard, with the repository's git token, at the branch's head). 400 when the source is incomplete or not readable; 502 when helm cannot read the chart.",
          tags: ['Helms'],
          params: Type.Object({ environmentId: Uuid }),
          body: HelmDefaultValuesRequest,
          response: { 201: Type.String({ description: 'helm values (sent as text/plain)' }) },
        },
      },
      async (req, reply) => {
        const { environment } = await deps.environments.requireEnvironment(req.principal, req.params.environmentId, 'WRITE')
        const { git_repository: git, helm_repository: helm } = req.body.source
        let source: ChartSource
        if (git) {
          const host = URL.canParse(git.url) ? new URL(git.url).hostname.toLowerCase() : ''
          source = {
            git: {
              url: git.url.trim(),
              branch: git.branch ?? null,
              rootPath: git.root_path || '/',
              gitTokenId: git.git_token_id ?? null,
              provider: git.provider ?? HOSTS[host] ?? 'GITHUB',
            },
          }
        } else if (helm?.repository && helm.chart_name && helm.chart_version) {
          const repository = await deps.requireChartRepository(req.principal, environment.organizationId, helm.repository)
          source = { repository, chartName: helm.chart_name, version: helm.chart_version }
        } else {
          throw validationFailed([
            { path: '/source', message: 'needs git_repository, or helm_repository with repository, chart_name and chart_version', location: 'body' },
          ])
        }
        const values = await deps.defaultValues(environment.organizationId, source)
        return reply.code(201).header('content-type', 'text/plain; charset=utf-8').send(values)
      },
    )
  }
}
