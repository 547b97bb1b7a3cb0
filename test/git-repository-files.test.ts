import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'
import { type LoopbackGitServer, startGitServer } from './helpers/git-server.ts'

// The forms that create terraform services read a repository's directories, variables and tfvars
// files from a real clone: a loopback git server (git's smart HTTP behind HTTPS, asking for the
// token as GitHub does), through the organization's git token.

const TOKEN = 'ghp_repositoryfiles'

const FILES = {
  'infra/main.tf': 'resource "null_resource" "x" {}\n',
  'infra/variables.tf': [
    '# The region to deploy to',
    'variable "region" {',
    '  type        = string',
    '  default     = "eu-west-3" # Paris',
    '  description = "Where it runs"',
    '}',
    '',
    'variable "password" {',
    '  type      = string',
    '  sensitive = true',
    '  nullable  = false',
    '}',
    '',
    'variable "tags" {',
    '  type = map(string)',
    '  default = {',
    '    team = "core" // the owners',
    '  }',
    '  validation {',
    '    condition     = length(var.tags) > 0',
    '    error_message = "Needs a tag."',
    '  }',
    '}',
    '',
    'variable "motd" {',
    '  default = <<-EOT',
    '    hello',
    '    world',
    '  EOT',
    '}',
    '',
  ].join('\n'),
  'infra/modules/network/main.tf': 'variable "cidr" {}\n',
  'infra/envs/prod.tfvars': 'region = "eu-west-1"\nreplicas = 3\n/* block\ncomment */\nnames = ["a", "b"]\n',
  'infra/envs/staging.tfvars.json': '{"region": "eu-central-1", "replicas": 1}',
  'docs/README.md': '# docs\n',
}

describe('directories, variables and tfvars of a git repository', () => {
  let t: TestApp
  let git: LoopbackGitServer
  let repositoryUrl: string

  before(async () => {
    git = await startGitServer('x-access-token', TOKEN)
    // The clone's git trusts the loopback server's certificate as an operator's would (docs/docker.md).
    process.env.GIT_SSL_CAINFO = git.certificateFile
    const repository = await git.repository('acme/infra')
    await repository.commit(FILES, 'infrastructure')
    await repository.commit({ 'other/main.tf': 'variable "only_on_branch" {}\n' }, 'a branch', 'feature')
    repositoryUrl = `${git.url}/acme/infra.git`
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
  })
  after(async () => {
    await t.close()
    await git.close()
    delete process.env.GIT_SSL_CAINFO
  })

  async function world() {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const gitToken = await f.gitToken(organization.id, { token: TOKEN, gitApiUrl: git.url })
    return { organization, tokens, gitToken }
  }

  const post = (organizationId: string, operation: string, authorization: string, payload: object) =>
    t.app.inject({ method: 'POST', url: `/organization/${organizationId}/${operation}`, headers: { authorization }, payload })

  it('lists the subdirectories at the root path, on the branch asked for', async () => {
    const { organization, tokens, gitToken } = await world()
    const root = await post(organization.id, 'listDirectoriesFromGitRepository', tokens.write.authorization, {
      url: repositoryUrl,
      branch: 'main',
      git_token_id: gitToken.id,
    })
    assert.equal(root.statusCode, 200, root.body)
    assert.deepEqual(root.json().results, ['docs', 'infra'])
    const infra = await post(organization.id, 'listDirectoriesFromGitRepository', tokens.write.authorization, {
      url: repositoryUrl,
      branch: 'main',
      root_path: '/infra',
      git_token_id: gitToken.id,
    })
    assert.deepEqual(infra.json().results, ['envs', 'modules'])
    const branch = await post(organization.id, 'listDirectoriesFromGitRepository', tokens.write.authorization, {
      url: repositoryUrl,
      branch: 'feature',
      git_token_id: gitToken.id,
    })
    assert.deepEqual(branch.json().results, ['docs', 'infra', 'other'])
    assert.ok(git.authorizations.some((header) => header === `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`))

    const missing = await post(organization.id, 'listDirectoriesFromGitRepository', tokens.write.authorization, {
      url: repositoryUrl,
      branch: 'main',
      root_path: '/nowhere',
      git_token_id: gitToken.id,
    })
    assertError(missing, 400, 'validation_failed')
    const outside = await post(organization.id, 'listDirectoriesFromGitRepository', tokens.write.authorization, {
      url: repositoryUrl,
      branch: 'main',
      root_path: '/../..',
      git_token_id: gitToken.id,
    })
    assertError(outside, 400, 'validation_failed')
    // Without a token named, the organization's only token of the provider is used; with two, none is, and the server refuses the clone.
    await factories(t.db).gitToken(organization.id, { token: 'ghp_another', gitApiUrl: git.url })
    assertError(
      await post(organization.id, 'listDirectoriesFromGitRepository', tokens.write.authorization, { url: repositoryUrl, branch: 'main' }),
      400,
      'validation_failed',
    )
    assertError(
      await post(organization.id, 'listDirectoriesFromGitRepository', tokens.read.authorization, {
        url: repositoryUrl,
        branch: 'main',
        git_token_id: gitToken.id,
      }),
      403,
      'forbidden',
    )
  })

  it("reads the variable blocks of the root path's .tf files, evaluating nothing", async () => {
    const { organization, tokens, gitToken } = await world()
    const res = await post(organization.id, 'parseTerraformVariablesFromGitRepo', tokens.write.authorization, {
      git_repository: { url: repositoryUrl, branch: 'main', root_path: '/infra', git_token_id: gitToken.id },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().results, [
      { key: 'region', sensitive: false, nullable: true, default: 'eu-west-3', source: 'infra/variables.tf', description: 'Where it runs' },
      { key: 'password', sensitive: true, nullable: false, default: null, source: 'infra/variables.tf', description: null },
      {
        key: 'tags',
        sensitive: false,
        nullable: true,
        default: '{\n    team = "core" // the owners\n  }',
        source: 'infra/variables.tf',
        description: null,
      },
      { key: 'motd', sensitive: false, nullable: true, default: 'hello\nworld', source: 'infra/variables.tf', description: null },
    ])
  })

  it('lists the tfvars files under the root path, or those named, with their assignments', async () => {
    const { organization, tokens, gitToken } = await world()
    const discovered = await post(organization.id, 'listTfVarsFilesFromGitRepo', tokens.write.authorization, {
      git_repository: { url: repositoryUrl, branch: 'main', root_path: '/infra', git_token_id: gitToken.id },
      mode: { type: 'AutoDiscover' },
    })
    assert.equal(discovered.statusCode, 200, discovered.body)
    assert.deepEqual(discovered.json().results, [
      { source: 'infra/envs/prod.tfvars', variables: { region: 'eu-west-1', replicas: '3', names: '["a", "b"]' } },
      { source: 'infra/envs/staging.tfvars.json', variables: { region: 'eu-central-1', replicas: '1' } },
    ])
    const named = await post(organization.id, 'listTfVarsFilesFromGitRepo', tokens.write.authorization, {
      git_repository: { url: repositoryUrl, branch: 'main', git_token_id: gitToken.id },
      mode: { type: 'SpecificPaths', paths: ['/infra/envs/prod.tfvars'] },
    })
    assert.deepEqual(
      named.json().results.map((file: { source: string }) => file.source),
      ['infra/envs/prod.tfvars'],
    )
    const absent = await post(organization.id, 'listTfVarsFilesFromGitRepo', tokens.write.authorization, {
      git_repository: { url: repositoryUrl, branch: 'main', git_token_id: gitToken.id },
      mode: { type: 'SpecificPaths', paths: ['/infra/envs/dev.tfvars'] },
    })
    assertError(absent, 400, 'validation_failed')
  })

  it("refuses another organization's git token, and a private address without the opt-in", async () => {
    const { organization, tokens } = await world()
    const stranger = await world()
    const res = await post(organization.id, 'listDirectoriesFromGitRepository', tokens.write.authorization, {
      url: repositoryUrl,
      branch: 'main',
      git_token_id: stranger.gitToken.id,
    })
    assertError(res, 400, 'validation_failed')
    const guarded = await createTestApp()
    try {
      const f = factories(guarded.db)
      const { organization: other, tokens: otherTokens } = await f.organizationWithTokens()
      const refused = await guarded.app.inject({
        method: 'POST',
        url: `/organization/${other.id}/listDirectoriesFromGitRepository`,
        headers: { authorization: otherTokens.write.authorization },
        payload: { url: repositoryUrl, branch: 'main' },
      })
      assertError(refused, 400, 'validation_failed')
    } finally {
      await guarded.close()
    }
  })
})
