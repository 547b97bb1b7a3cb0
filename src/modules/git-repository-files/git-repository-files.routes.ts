import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { gitRepositoryRequest } from '#src/modules/services/git-repositories/git-repository.schemas.ts'
import { Nullable, OrganizationParams } from '#src/platform/http/common-schemas.ts'
import type { GitRepositoryFilesService } from './git-repository-files.service.ts'

const GitRepository = gitRepositoryRequest('ApplicationGitRepositoryRequest')
const CLONED =
  "Read from a shallow clone of the branch (the default branch without one), fetched with the repository's git token (the organization's only token " +
  'of its provider when none is named) behind the address guard, and removed afterwards. An unreachable repository or branch is a 400 at `url`. Needs the WRITE role, as creating the service does.'

const TerraformVariableDefinition = Type.Object(
  {
    key: Type.String(),
    sensitive: Type.Boolean(),
    nullable: Type.Boolean({ description: 'false when the block says `nullable = false`' }),
    default: Nullable(Type.String({ description: 'a string default unquoted; any other default as written' })),
    source: Type.String({ description: 'the file that defines it, from the repository root' }),
    description: Nullable(Type.String()),
  },
  { title: 'TerraformVariableDefinition' },
)

const TfVarsMode = Type.Union(
  [
    Type.Object({ type: Type.Literal('AutoDiscover') }, { title: 'TfVarsDiscoveryModeAutoDiscover' }),
    Type.Object(
      { type: Type.Literal('SpecificPaths'), paths: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { minItems: 1, maxItems: 100 }) },
      { title: 'TfVarsDiscoveryModeSpecificPaths' },
    ),
  ],
  { title: 'TfVarsDiscoveryMode' },
)

export function gitRepositoryFilesRoutes(files: GitRepositoryFilesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Git repositories']

    app.post(
      '/organization/:organizationId/listDirectoriesFromGitRepository',
      {
        schema: {
          operationId: 'listDirectoriesFromGitRepository',
          summary: 'List directories from a git repository',
          description: `The immediate subdirectories of \`root_path\`, by name (.git left out). ${CLONED}`,
          tags,
          params: OrganizationParams,
          body: GitRepository,
          response: { 200: Type.Object({ results: Type.Array(Type.String()) }, { title: 'GitRepositoryDirectoryList' }) },
        },
      },
      async (req) => ({ results: await files.listDirectories(req.principal, req.params.organizationId, req.body) }),
    )

    app.post(
      '/organization/:organizationId/parseTerraformVariablesFromGitRepo',
      {
        schema: {
          operationId: 'parseTerraformVariablesFromGitRepo',
          summary: 'Parse Terraform variables from Git repository',
          description: `The \`variable\` blocks of the .tf files at \`root_path\` (the module Terraform runs there), by file then position; nothing is evaluated. A file that is not valid HCL is a 400. ${CLONED}`,
          tags: ['Organization Main Calls'],
          params: OrganizationParams,
          body: Type.Object({ git_repository: GitRepository }, { title: 'TerraformVariableParsingRequest' }),
          response: { 200: Type.Object({ results: Type.Array(TerraformVariableDefinition) }, { title: 'TerraformVariableDefinitionResponseList' }) },
        },
      },
      async (req) => ({ results: await files.parseVariables(req.principal, req.params.organizationId, req.body.git_repository) }),
    )

    app.post(
      '/organization/:organizationId/listTfVarsFilesFromGitRepo',
      {
        schema: {
          operationId: 'listTfVarsFilesFromGitRepo',
          summary: 'List Terraform tfvars files from Git repository',
          description:
            'The .tfvars and .tfvars.json files under `root_path` (AutoDiscover, at most 1,000) or those `paths` names from the repository root ' +
            `(SpecificPaths), each with its assignments: a string unquoted, any other value as written. ${CLONED}`,
          tags: ['Organization Main Calls'],
          params: OrganizationParams,
          body: Type.Object({ git_repository: GitRepository, mode: TfVarsMode }, { title: 'TfVarsListRequest' }),
          response: {
            200: Type.Object(
              {
                results: Type.Array(
                  Type.Object({ source: Type.String(), variables: Type.Record(Type.String(), Type.String()) }, { title: 'TfVarsFileResponse' }),
                ),
              },
              { title: 'TfVarsFileResponseList' },
            ),
          },
        },
      },
      async (req) => ({ results: await files.listTfVars(req.principal, req.params.organizationId, req.body.git_repository, req.body.mode) }),
    )
  }
}
