/**
 * Issue 48: checks before a deploy really look. A repository served on loopback by git's smart
 * HTTP behind HTTPS, asking for the git token; a chart repository serving its index.yaml over HTTPS
 * on loopback; Debian's docker-registry on loopback with an image pushed to it. Each check finds
 * what is there, says what is not, and answers 403 below WRITE.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { deploymentCalls } from './helpers/deployments.ts'
import { busyboxImage, type LoopbackRegistry, startRegistry } from './helpers/docker.ts'
import { factories } from './helpers/factories.ts'
import { type LoopbackGitServer, startGitServer } from './helpers/git-server.ts'

const DOCKERFILE = `# syntax=docker/dockerfile:1
ARG NODE_VERSION=20
FROM docker.io/library/node:\${NODE_VERSION} AS build
ARG BUILD_ENV \\
    EXTRA=1
RUN echo build
FROM build AS test
FROM gcr.io/distroless/nodejs20-debian12:nonroot@sha256:${'a'.repeat(64)}
COPY --from=build /app /app
`
const CHART = 'apiVersion: v2\nname: site\nversion: 0.3.1\n'
const INDEX = `apiVersion: v1
entries:
  app:
    - name: app
      version: 1.1.0
    - name: app
      version: 1.0.0
  other:
    - name: other
      version: 0.1.0
`

let t: TestApp
let git: LoopbackGitServer
let registry: LoopbackRegistry
let charts: Server
let chartsUrl: string
let chartsDir: string
const token = `ghp_${Math.random().toString(36).slice(2)}`

before(async () => {
  git = await startGitServer('x-access-token', token)
  process.env.GIT_SSL_CAINFO = git.certificateFile
  registry = await startRegistry()
  await registry.push(await busyboxImage(), 'web', '1')
  // The chart repository: index.yaml over HTTPS with a certificate of its own.
  chartsDir = mkdtempSync(path.join(os.tmpdir(), 'berth-charts-'))
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${chartsDir}/key.pem`,
      '-out',
      `${chartsDir}/cert.pem`,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
    ],
    {
      stdio: 'ignore',
    },
  )
  charts = createServer({ key: readFileSync(`${chartsDir}/key.pem`), cert: readFileSync(`${chartsDir}/cert.pem`) }, (req, res) => {
    if (req.url === '/stable/index.yaml') res.writeHead(200, { 'content-type': 'application/x-yaml' }).end(INDEX)
    else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => charts.listen(0, '127.0.0.1', resolve))
  chartsUrl = `https://127.0.0.1:${(charts.address() as AddressInfo).port}/stable`
  t = await createTestApp({ BERTH_GIT_ALLOW_PRIVATE_URLS: 'true', BERTH_RATE_LIMIT_PER_CREDENTIAL: '0', BERTH_RATE_LIMIT_PER_ADDRESS: '0' })
})

after(async () => {
  await t?.close()
  await git?.close()
  await registry?.close()
  charts?.close()
  rmSync(chartsDir, { recursive: true, force: true })
})

describe('checks before a deploy', () => {
  it('look into the repository with the git token: the Dockerfile, files, a chart', async () => {
    const f = factories(t.db)
    const w = await f.environmentWithTokens()
    const calls = deploymentCalls(t.app)
    const gitToken = await f.gitToken(w.organization.id, { type: 'GITHUB', token, gitApiUrl: git.url })
    const repository = await git.repository('acme/site')
    const commit = await repository.commit(
      { Dockerfile: DOCKERFILE, 'README.md': 'hello\n', 'charts/site/Chart.yaml': CHART, 'charts/site/values.yaml': 'a: 1\n' },
      'One',
    )
    const gitRepository = (extra: object = {}) => ({
      url: `${git.url}/acme/site.git`,
      branch: 'main',
      root_path: '/',
      git_token_id: gitToken.id,
      provider: 'GITHUB',
      owner: 'acme',
      name: 'site',
      ...extra,
    })
    const post = (check: string, body: object, authorization = w.tokens.write.authorization) =>
      calls.inject('POST', `/environment/${w.environment.id}/${check}`, authorization, body)

    const dockerfile = await post('checkDockerfile', { git_repository: gitRepository(), dockerfile_path: 'Dockerfile' })
    assert.equal(dockerfile.statusCode, 200, dockerfile.body)
    assert.deepEqual(dockerfile.json(), {
      dockerfile_path: 'Dockerfile',
      arg: ['NODE_VERSION', 'BUILD_ENV', 'EXTRA'],
      repositories: ['docker.io/library/node', 'gcr.io/distroless/nodejs20-debian12'],
      found: true,
      commit,
    })
    assert.ok(git.authorizations.includes(`Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`), 'fetched with the git token')
    const noDockerfile = (
      await post('checkDockerfile', { git_repository: gitRepository({ root_path: '/charts' }), dockerfile_path: 'Dockerfile' })
    ).json()
    assert.equal(noDockerfile.found, false)
    assert.match(noDockerfile.message, /Dockerfile is not a file/)

    const files = (
      await post('checkGitFile', { git_repository: gitRepository(), files: ['README.md', 'charts/site/values.yaml', 'missing.txt'] })
    ).json()
    assert.equal(files.found, false)
    assert.deepEqual(files.files, [
      { path: 'README.md', found: true },
      { path: 'charts/site/values.yaml', found: true },
      { path: 'missing.txt', found: false },
    ])
    assert.equal((await post('checkGitFile', { git_repository: gitRepository(), files: ['README.md'] })).json().found, true)
    // Out of the checkout is nowhere.
    assert.equal((await post('checkGitFile', { git_repository: gitRepository(), files: ['../../etc/passwd'] })).json().found, false)

    const chart = (await post('checkHelmRepository', { git_repository: gitRepository({ root_path: '/charts/site' }) })).json()
    assert.deepEqual(chart, { found: true, chart_name: 'site', chart_versions: ['0.3.1'], commit })
    assert.equal((await post('checkHelmRepository', { git_repository: gitRepository() })).json().found, false)

    // A branch that does not exist, a token the server refuses: the fetch fails, saying so.
    const noBranch = await post('checkGitFile', { git_repository: gitRepository({ branch: 'nope' }), files: ['README.md'] })
    assert.equal(noBranch.statusCode, 400)
    assert.equal(noBranch.json().errors[0].path, '/git_repository/url')
    assert.match(noBranch.json().errors[0].message, /could not be fetched/)
    const wrong = await f.gitToken(w.organization.id, { type: 'GITHUB', token: 'ghp_wrong', gitApiUrl: git.url })
    assert.equal((await post('checkGitFile', { git_repository: gitRepository({ git_token_id: wrong.id }), files: ['README.md'] })).statusCode, 400)
    const other = await f.organizationWithTokens()
    const foreign = await f.gitToken(other.organization.id, { type: 'GITHUB', token, gitApiUrl: git.url })
    const refused = await post('checkGitFile', { git_repository: gitRepository({ git_token_id: foreign.id }), files: ['README.md'] })
    assert.equal(refused.json().errors[0].path, '/git_repository/git_token_id')

    assert.equal(
      (await post('checkDockerfile', { git_repository: gitRepository(), dockerfile_path: 'Dockerfile' }, w.tokens.read.authorization)).statusCode,
      403,
    )
  })

  it("read a chart repository's index and a registry's tags", async () => {
    const f = factories(t.db)
    const w = await f.environmentWithTokens()
    const calls = deploymentCalls(t.app)
    const post = (check: string, body: object) =>
      calls.inject('POST', `/environment/${w.environment.id}/${check}`, w.tokens.write.authorization, body)

    const repo = await f.helmRepository(w.organization.id, { url: chartsUrl, skipTlsVerification: true })
    const chart = (version?: string, name = 'app') => ({
      helm_repository: { repository: repo.id, chart_name: name, ...(version ? { chart_version: version } : {}) },
    })
    assert.deepEqual((await post('checkHelmRepository', chart('1.1.0'))).json(), {
      found: true,
      chart_name: 'app',
      chart_versions: ['1.1.0', '1.0.0'],
    })
    const noVersion = (await post('checkHelmRepository', chart('9.9.9'))).json()
    assert.equal(noVersion.found, false)
    assert.match(noVersion.message, /no version 9\.9\.9/)
    assert.equal((await post('checkHelmRepository', chart(undefined, 'nothing'))).json().found, false)
    // getHelmCharts reads the same index: every chart, or the one named.
    const listed = await calls.inject('GET', `/organization/${w.organization.id}/helmRepository/${repo.id}/charts`, w.tokens.read.authorization)
    assert.deepEqual(listed.json().results, [
      { chart_name: 'app', versions: ['1.1.0', '1.0.0'] },
      { chart_name: 'other', versions: ['0.1.0'] },
    ])
    const one = await calls.inject(
      'GET',
      `/organization/${w.organization.id}/helmRepository/${repo.id}/charts?chartName=other`,
      w.tokens.read.authorization,
    )
    assert.deepEqual(one.json().results, [{ chart_name: 'other', versions: ['0.1.0'] }])
    const kinds = (await calls.inject('GET', '/availableHelmRepository', w.tokens.read.authorization)).json().results
    assert.deepEqual(
      kinds.find((kind: { kind: string }) => kind.kind === 'HTTPS'),
      { kind: 'HTTPS', required_config: {}, is_mandatory: false },
    )
    assert.equal(kinds.find((kind: { kind: string }) => kind.kind === 'OCI_ECR').is_mandatory, true)
    // Its certificate is checked unless the repository says to skip it.
    const strict = await f.helmRepository(w.organization.id, { url: chartsUrl })
    const untrusted = await post('checkHelmRepository', { helm_repository: { repository: strict.id, chart_name: 'app' } })
    assert.equal(untrusted.statusCode, 502, untrusted.body)
    assert.equal((await post('checkHelmRepository', {})).statusCode, 400)

    const created = await calls.inject('POST', `/organization/${w.organization.id}/containerRegistry`, w.tokens.admin.authorization, {
      name: 'loopback',
      kind: 'GENERIC_CR',
      url: `http://${registry.host}`,
      config: { username: registry.username, password: registry.password },
    })
    assert.equal(created.statusCode, 201, created.body)
    const registryId = created.json().id as string
    assert.deepEqual((await post('checkContainerImage', { registry_id: registryId, image_name: 'web', tag: '1' })).json(), {
      found: true,
      image_name: 'web',
      tag: '1',
    })
    const noTag = (await post('checkContainerImage', { registry_id: registryId, image_name: 'web', tag: '2' })).json()
    assert.equal(noTag.found, false)
    assert.match(noTag.message, /no web:2/)
    assert.equal((await post('checkContainerImage', { registry_id: registryId, image_name: 'nothing', tag: '1' })).json().found, false)
  })
})
