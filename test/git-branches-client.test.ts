import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Configuration, OrganizationAccountGitRepositoriesApi } from 'qovery-typescript-axios'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'
import { type FakeKind, type FakeProvider, manyBranches, startFakeProvider } from './helpers/fake-git-providers.ts'

describe('branch listing through the official TypeScript client', () => {
  let t: TestApp
  let basePath: string
  const fakes = {} as Record<FakeKind, FakeProvider>

  before(async () => {
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
    basePath = await t.listen()
    for (const kind of ['github', 'gitlab', 'bitbucket'] as const) fakes[kind] = await startFakeProvider(kind)
  })
  after(async () => {
    await t.close()
    for (const fake of Object.values(fakes)) await fake.close()
  })

  it('lists the branches of a repository at each provider with the three operations', async () => {
    const f = factories(t.db)
    const { organization, tokens } = await f.organizationWithTokens()
    const token = async (kind: FakeKind, type: 'GITHUB' | 'GITLAB' | 'BITBUCKET', repository: string) => {
      const secret = `${kind}-${randomUUID()}`
      fakes[kind].tokens.add(secret)
      fakes[kind].repositories.set(repository, manyBranches(120))
      return f.gitToken(organization.id, { type, token: secret, gitApiUrl: fakes[kind].url, workspace: type === 'BITBUCKET' ? 'team' : null })
    }
    const githubToken = await token('github', 'GITHUB', 'acme/api')
    await token('gitlab', 'GITLAB', 'acme/platform/api')
    await token('bitbucket', 'BITBUCKET', 'team/api')
    const api = new OrganizationAccountGitRepositoriesApi(new Configuration({ basePath, apiKey: tokens.read.authorization }))

    const answers = [
      await api.getOrganizationGithubRepositoryBranches(organization.id, 'acme/api', githubToken.id),
      await api.getOrganizationGitlabRepositoryBranches(organization.id, 'acme/platform/api'),
      await api.getOrganizationBitbucketRepositoryBranches(organization.id, 'api'),
    ]
    for (const { status, data } of answers) {
      assert.equal(status, 200)
      assert.equal(data.results?.length, 120)
      assert.ok(data.results?.some((branch) => branch.name === 'fix/日本語/ブランチ-2'))
      assert.ok(data.results?.every((branch) => typeof branch.name === 'string'))
    }
  })
})
