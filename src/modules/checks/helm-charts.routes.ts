import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { HELM_REPOSITORY_KINDS, HelmRepositoryParams } from '#src/modules/organization-credentials/helm-repositories/helm-repositories.schemas.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { ChartRepository } from './chart-index.ts'

// What helm repositories offer: the charts an organization's repository really holds (getHelmCharts,
// read from it), and the kinds of repository Berth takes with the config each needs.

const tags = ['Helm Repositories']

const HelmVersionResponseList = Type.Object(
  { results: Type.Array(Type.Object({ chart_name: Type.String(), versions: Type.Array(Type.String()) }, { title: 'HelmVersionResponse' })) },
  { title: 'HelmVersionResponseList' },
)

const AvailableHelmRepositoryResponseList = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          kind: Type.Unsafe<string>({ type: 'string', enum: [...HELM_REPOSITORY_KINDS] }),
          required_config: Type.Record(Type.String(), Type.String(), { description: 'each config field a create needs, with its type' }),
          is_mandatory: Type.Boolean({ description: 'whether the kind needs any config' }),
        },
        { title: 'AvailableHelmRepositoryResponse' },
      ),
    ),
  },
  { title: 'AvailableHelmRepositoryResponseList' },
)

/** The config fields a create of each kind must give (helm-repositories.rules.ts says why). */
const REQUIRED_CONFIG: Record<(typeof HELM_REPOSITORY_KINDS)[number], string[]> = {
  HTTPS: [],
  OCI_ECR: ['region', 'access_key_id', 'secret_access_key'],
  OCI_SCALEWAY_CR: ['region', 'scaleway_access_key', 'scaleway_secret_key', 'scaleway_project_id'],
  OCI_DOCKER_HUB: [],
  OCI_PUBLIC_ECR: [],
  OCI_GENERIC_CR: [],
  OCI_GITHUB_CR: [],
  OCI_GITLAB_CR: [],
}

export interface HelmChartsDeps {
  /** READ in the organization, and the repository as it is reached; 404 when it is not the organization's. */
  requireChartRepository(principal: Principal, organizationId: string, helmRepositoryId: string): Promise<ChartRepository>
  charts(repository: ChartRepository, chartName?: string): Promise<Map<string, string[]>>
}

export function helmChartsRoutes(deps: HelmChartsDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/organization/:organizationId/helmRepository/:helmRepositoryId/charts',
      {
        schema: {
          operationId: 'getHelmCharts',
          summary: 'List helm charts contained inside the repository',
          description:
            "Read from the repository now: an HTTPS repository's index.yaml (every chart, or `chartName`'s), an OCI repository's tags of `chartName` (an OCI repository cannot list its charts: 400 without it). Through the address guard, with the repository's credentials and a timeout.",
          tags,
          params: HelmRepositoryParams,
          querystring: Type.Object({
            chartName: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Helm chart name to filter the result on' })),
          }),
          response: { 200: HelmVersionResponseList },
        },
      },
      async (req) => {
        const { organizationId, helmRepositoryId } = req.params
        const repository = await deps.requireChartRepository(req.principal, organizationId, helmRepositoryId)
        const charts = await deps.charts(repository, req.query.chartName)
        return {
          results: [...charts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([chartName, versions]) => ({ chart_name: chartName, versions })),
        }
      },
    )

    app.get(
      '/availableHelmRepository',
      {
        schema: {
          operationId: 'listAvailableHelmRepository',
          summary: 'List supported helm repository',
          description: 'The kinds of helm repository a create takes, each with the config fields it needs (the others are optional).',
          tags,
          response: { 200: AvailableHelmRepositoryResponseList },
        },
      },
      async () => ({
        results: HELM_REPOSITORY_KINDS.map((kind) => ({
          kind,
          required_config: Object.fromEntries(REQUIRED_CONFIG[kind].map((field) => [field, 'string'])),
          is_mandatory: REQUIRED_CONFIG[kind].length > 0,
        })),
      }),
    )
  }
}
