import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertError } from './helpers/assertions.ts'
import { factories } from './helpers/factories.ts'
import { type LoopbackGitServer, startGitServer } from './helpers/git-server.ts'
import { helmBinary } from './helpers/helm-binary.ts'

// createHelmDefaultValues with the real helm: a chart packaged and served by a loopback helm
// repository (with credentials), and the same chart in a loopback git repository behind its token.

const MARKER = 'berthDefault: "from the chart"\n'
const GIT_MARKER = 'gitDefault: 42\n'

describe("a chart's default values", () => {
  let t: TestApp
  let work: string
  let server: Server
  let repositoryUrl: string
  let git: LoopbackGitServer
  const token = 'chart-token'

  before(async () => {
    const helm = helmBinary(3)
    work = mkdtempSync(path.join(os.tmpdir(), 'berth-default-values-test-'))
    const home = path.join(work, 'home')
    mkdirSync(home)
    const run = (args: string[]) => execFileSync(helm, args, { cwd: work, env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8' })
    run(['create', 'webapp'])
    writeFileSync(path.join(work, 'webapp', 'values.yaml'), `${readFileSync(path.join(work, 'webapp', 'values.yaml'), 'utf8')}\n${MARKER}`)
    const repo = path.join(work, 'repo')
    mkdirSync(repo)
    run(['package', 'webapp', '--version', '1.2.3', '--destination', repo])
    run(['repo', 'index', repo])
    const basic = `Basic ${Buffer.from('charts:s3cret').toString('base64')}`
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-days',
        '1',
        '-keyout',
        path.join(work, 'key.pem'),
        '-out',
        path.join(work, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    )
    const tls = { key: readFileSync(path.join(work, 'key.pem')), cert: readFileSync(path.join(work, 'cert.pem')) }
    server = createServer(tls, (req, res) => {
      if (req.headers.authorization !== basic) return res.writeHead(401, { 'www-authenticate': 'Basic realm="charts"' }).end()
      const file = path.join(repo, path.basename(new URL(req.url ?? '/', 'http://x').pathname))
      if (!readdirSync(repo).includes(path.basename(file))) return res.writeHead(404).end()
      res.writeHead(200).end(readFileSync(file))
    }) as unknown as Server
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    repositoryUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`

    git = await startGitServer('x-access-token', token)
    process.env.GIT_SSL_CAINFO = git.certificateFile
    const files: Record<string, string> = {}
    for (const name of ['Chart.yaml', 'values.yaml']) files[`charts/webapp/${name}`] = readFileSync(path.join(work, 'webapp', name), 'utf8')
    files['charts/webapp/values.yaml'] += GIT_MARKER
    await (await git.repository('acme/charts')).commit(files, 'the chart')

    t = await createTestApp({ BERTH_ALLOW_PRIVATE_URLS: 'true', BERTH_HELM_PATH: helm })
  })
  after(async () => {
    await t?.close()
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    await git?.close()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  const post = (environmentId: string, authorization: string, source: object) =>
    t.app.inject({ method: 'POST', url: `/environment/${environmentId}/helmDefaultValues`, headers: { authorization }, payload: { source } })

  it("answers the values.yaml of a chart of the organization's helm repository, pulled with its credentials", async () => {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const repository = await f.helmRepository(organization.id, {
      url: repositoryUrl,
      skipTlsVerification: true,
      config: { username: 'charts' },
      secrets: { password: 's3cret' },
    })
    const answer = await post(environment.id, tokens.write.authorization, {
      helm_repository: { repository: repository.id, chart_name: 'webapp', chart_version: '1.2.3' },
    })
    assert.equal(answer.statusCode, 201, answer.body)
    assert.match(answer.headers['content-type'] as string, /^text\/plain/)
    assert.match(answer.body, /berthDefault: "from the chart"/)
    assert.match(answer.body, /replicaCount: 1/)
    // A version the repository does not have: helm says so.
    const missing = await post(environment.id, tokens.write.authorization, {
      helm_repository: { repository: repository.id, chart_name: 'webapp', chart_version: '9.9.9' },
    })
    assert.ok(missing.statusCode >= 400, missing.body)
    assertError(await post(environment.id, tokens.read.authorization, { helm_repository: { repository: repository.id } }), 403, 'forbidden')
    assertError(await post(environment.id, tokens.write.authorization, { helm_repository: { repository: repository.id } }), 400, 'validation_failed')
  })

  it('answers the values.yaml of a chart in git at its root_path, fetched with the git token', async () => {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token, gitApiUrl: git.url })
    const answer = await post(environment.id, tokens.write.authorization, {
      git_repository: { url: `${git.url}/acme/charts.git`, branch: 'main', root_path: '/charts/webapp', git_token_id: gitToken.id },
    })
    assert.equal(answer.statusCode, 201, answer.body)
    assert.match(answer.body, /gitDefault: 42/)
    const elsewhere = await post(environment.id, tokens.write.authorization, {
      git_repository: { url: `${git.url}/acme/charts.git`, branch: 'main', root_path: '/nowhere', git_token_id: gitToken.id },
    })
    assertError(elsewhere, 400, 'validation_failed')
  })
})
