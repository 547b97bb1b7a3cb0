import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'
import { type FakeProvider, startFakeProvider } from './helpers/fake-git-providers.ts'

// listHelmCommit and listJobCommit read the newest commits of the service's own repositories at
// the git provider (a loopback stand-in of GitHub's API), through the organization's git token.

const sha = (seed: string) => seed.repeat(40).slice(0, 40)

describe('helm and job commits at the git provider', () => {
  let t: TestApp
  let github: FakeProvider

  before(async () => {
    t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true' })
    github = await startFakeProvider('github')
    github.tokens.add('token-github')
    github.repositories.set('acme/charts', {
      defaultBranch: 'main',
      branches: [{ name: 'main', sha: sha('c1') }],
      commits: [{ sha: sha('c1'), message: 'Chart 2.0', authorName: 'Ada Lovelace', date: '2024-03-03T10:00:00Z' }],
      tags: [],
    })
    github.repositories.set('acme/values', {
      defaultBranch: 'main',
      branches: [{ name: 'prod', sha: sha('d2') }],
      commits: [
        { sha: sha('d2'), message: 'Scale up', authorName: 'Grace Hopper', date: '2024-02-02T09:00:00Z' },
        { sha: sha('d1'), message: 'First values', authorName: 'Grace Hopper', date: '2024-02-01T09:00:00Z' },
      ],
      tags: [],
    })
  })
  after(async () => {
    await t.close()
    await github.close()
  })

  const list = (url: string, authorization: string) => t.app.inject({ method: 'GET', url, headers: { authorization } })

  it("lists the commits of a helm's chart and of its values files, each from its own repository", async () => {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const token = await f.gitToken(organization.id, { type: 'GITHUB', token: 'token-github', gitApiUrl: github.url })
    const helm = await f.helmService(environment.id, {
      source: { git_repository: { url: 'https://github.com/acme/charts', branch: 'main', root_path: '/chart', git_token_id: token.id } },
      values_override: {
        file: { git: { git_repository: { url: 'https://github.com/acme/values', branch: 'prod', git_token_id: token.id }, paths: ['/values.yaml'] } },
      },
    })
    const chart = await list(`/helm/${helm.id}/commit`, tokens.read.authorization)
    assert.equal(chart.statusCode, 200, chart.body)
    assert.deepEqual(
      chart.json().results.map((commit: { git_commit_id: string; message: string }) => [commit.git_commit_id, commit.message]),
      [[sha('c1'), 'Chart 2.0']],
    )
    const values = await list(`/helm/${helm.id}/commit?of=values`, tokens.read.authorization)
    assert.equal(values.statusCode, 200, values.body)
    assert.deepEqual(
      values.json().results.map((commit: { git_commit_id: string }) => commit.git_commit_id),
      [sha('d2'), sha('d1')],
    )
    // A chart of a helm repository has no commits.
    const fromRepository = await f.helmService(environment.id)
    assertError(await list(`/helm/${fromRepository.id}/commit`, tokens.read.authorization), 400, 'validation_failed')
    assertError(await list(`/helm/${helm.id}/commit?of=everything`, tokens.read.authorization), 400, 'validation_failed')
  })

  it("lists the commits of a job's Dockerfile repository, and refuses a job of an image", async () => {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const token = await f.gitToken(organization.id, { type: 'GITHUB', token: 'token-github', gitApiUrl: github.url })
    const job = await f.job(environment.id, {
      source: {
        docker: { git_repository: { url: 'https://github.com/acme/values', branch: 'prod', git_token_id: token.id }, dockerfile_path: 'Dockerfile' },
      },
    })
    const listed = await list(`/job/${job.id}/commit`, tokens.read.authorization)
    assert.equal(listed.statusCode, 200, listed.body)
    assert.deepEqual(
      listed.json().results.map((commit: { git_commit_id: string; author_name: string }) => [commit.git_commit_id, commit.author_name]),
      [
        [sha('d2'), 'Grace Hopper'],
        [sha('d1'), 'Grace Hopper'],
      ],
    )
    const ofImage = await f.job(environment.id)
    assertError(await list(`/job/${ofImage.id}/commit`, tokens.read.authorization), 400, 'validation_failed')
    assertError(await list(`/helm/${job.id}/commit`, tokens.read.authorization), 404, 'not_found')
  })
})
