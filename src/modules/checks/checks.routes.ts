import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Static } from 'typebox'
import {
  ContainerImageCheckRequest,
  ContainerImageCheckResponse,
  DockerfileCheckRequest,
  DockerfileCheckResponse,
  EnvironmentParams,
  GitFileCheckRequest,
  GitFileCheckResponse,
  HelmCheckRequest,
  HelmCheckResponse,
} from './checks.schemas.ts'
import type { ChecksService, GitRepositoryInput } from './checks.service.ts'

const tags = ['Environment']
const WHAT =
  'Needs the WRITE role (it fetches with the organization’s credentials). Answers 200 with `found` (Berth extension) true or false; a look that cannot be made (unreachable, refused, too slow) is a 400 or 502 saying why.'

const gitInput = (repository: Static<typeof DockerfileCheckRequest>['git_repository']): GitRepositoryInput => ({
  url: repository.url,
  branch: repository.branch ?? null,
  rootPath: repository.root_path ?? '/',
  gitTokenId: repository.git_token_id?.toLowerCase() ?? null,
  provider: repository.provider ?? null,
})

/** `value` without its undefined fields (the answer leaves them out). */
const present = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T

export function checksRoutes(checks: ChecksService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/environment/:environmentId/checkDockerfile',
      {
        schema: {
          operationId: 'checkDockerfile',
          summary: 'Check dockerfile configuration is correct',
          description: `Fetches the repository (shallow, with its git token) and reads the Dockerfile at root_path/dockerfile_path: its ARGs and the image repositories of its FROM lines. ${WHAT}`,
          tags,
          params: EnvironmentParams,
          body: DockerfileCheckRequest,
          response: { 200: DockerfileCheckResponse },
        },
      },
      async (req, reply) => {
        const found = await checks.dockerfile(req.principal, req.params.environmentId, gitInput(req.body.git_repository), req.body.dockerfile_path)
        return reply.code(200).send(
          present({
            dockerfile_path: found.dockerfilePath,
            arg: found.args,
            repositories: found.repositories,
            found: found.found,
            commit: found.commit,
            message: found.message,
          }),
        )
      },
    )

    app.post(
      '/environment/:environmentId/checkGitFile',
      {
        schema: {
          operationId: 'checkGitFile',
          summary: 'Check git file configuration is correct',
          description: `Fetches the repository (shallow, with its git token) and looks for each of \`files\` under root_path. ${WHAT}`,
          tags,
          params: EnvironmentParams,
          body: GitFileCheckRequest,
          response: { 200: GitFileCheckResponse },
        },
      },
      async (req, reply) => {
        const found = await checks.gitFiles(req.principal, req.params.environmentId, gitInput(req.body.git_repository), req.body.files)
        return reply.code(200).send(present(found))
      },
    )

    app.post(
      '/environment/:environmentId/checkHelmRepository',
      {
        schema: {
          operationId: 'checkHelmRepository',
          summary: 'Check helm repository configuration is correct',
          description: `With \`git_repository\`: fetches it and reads the Chart.yaml at root_path. With \`helm_repository\` (Berth extension): reads the organization's helm repository (an HTTPS repository's index.yaml, an OCI repository's tags) for the chart and version. ${WHAT}`,
          tags,
          params: EnvironmentParams,
          body: HelmCheckRequest,
          response: { 200: HelmCheckResponse },
        },
      },
      async (req, reply) => {
        const { git_repository: git, helm_repository: chart } = req.body
        const source = {
          ...(git ? { git: gitInput(git) } : {}),
          ...(chart
            ? { chart: { repositoryId: chart.repository.toLowerCase(), chartName: chart.chart_name, chartVersion: chart.chart_version } }
            : {}),
        }
        const found = await checks.helmChart(req.principal, req.params.environmentId, source)
        return reply.code(200).send(
          present({
            found: found.found,
            chart_name: found.chartName,
            chart_versions: found.chartVersions,
            commit: found.commit,
            message: found.message,
          }),
        )
      },
    )

    app.post(
      '/environment/:environmentId/checkContainerImage',
      {
        schema: {
          operationId: 'checkContainerImage',
          summary: 'Check container image configuration is correct',
          description: `Asks the organization's container registry (its Docker Registry HTTP API v2, with its credentials) for the image's tags. ${WHAT}`,
          tags,
          params: EnvironmentParams,
          body: ContainerImageCheckRequest,
          response: { 200: ContainerImageCheckResponse },
        },
      },
      async (req, reply) => {
        const { registry_id: registryId, image_name: imageName, tag } = req.body
        const found = await checks.containerImage(req.principal, req.params.environmentId, registryId.toLowerCase(), imageName, tag)
        return reply.code(200).send(present({ found: found.found, image_name: found.imageName, tag: found.tag, message: found.message }))
      },
    )
  }
}
