import { builtImageRepository } from '#src/modules/executors/docker/image-builds.ts'
import { type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './deployments.ts'
import { docker, removeEnvironments } from './docker.ts'
import { createDockerDeploymentsApp } from './docker-world.ts'
import { type FakeProvider, type FakeRepository, startFakeProvider } from './fake-git-providers.ts'
import { type LoopbackGitServer, startGitServer } from './git-server.ts'

// What the tests of services built from git on the real Docker engine set up alike: a repository
// served on loopback by git's own smart HTTP behind HTTPS (trusted through GIT_SSL_CAINFO, as an
// operator's would be, docs/docker.md), asking for the git token as GitHub does; a fake GitHub that
// the token's git_api_url names, answering with the repository's commits; the app deploying into
// the Docker engine.

/** A site served by busybox's httpd on 8080, stopping at once on SIGTERM. */
export const SITE_SERVE = "#!/bin/sh\ntrap 'exit 0' TERM\nhttpd -f -p 8080 -h /www &\nwait\n"
/** The Dockerfile of that site: its `serve.sh` and `www/` on the test busybox. */
export const SITE_DOCKERFILE = 'FROM berth-test/busybox:1\nCOPY serve.sh /serve.sh\nCOPY www /www\nENTRYPOINT ["/bin/sh", "/serve.sh"]\n'

export interface GitBuildWorld {
  t: DeploymentsTestApp
  calls: DeploymentCalls
  git: LoopbackGitServer
  github: FakeProvider
  /** The git token the loopback server and the fake GitHub take. */
  token: string
  /** Commits `files` to `repository` on `branch` (main) and tells the fake GitHub: the branch's new head. */
  commit(
    repository: { commit(files: Record<string, string>, message: string, branch?: string): Promise<string> },
    files: Record<string, string>,
    message: string,
    branch?: string,
  ): Promise<string>
  /** Removes the environments and the built images of the services the test listed, then stops everything. */
  close(): Promise<void>
}

/**
 * Starts the world for `name` (`acme/site`): `fakeRepository` is what the fake GitHub answers for
 * it; `environments` and `services` are the test's lists of what it made, removed at close;
 * `env` adds to the Docker app's settings.
 */
export async function startGitBuildWorld(options: {
  name: string
  fakeRepository: FakeRepository
  environments: string[]
  services: string[]
  env?: Record<string, string>
}): Promise<GitBuildWorld> {
  const token = `ghp_${Math.random().toString(36).slice(2)}`
  const git = await startGitServer('x-access-token', token)
  process.env.GIT_SSL_CAINFO = git.certificateFile
  const github = await startFakeProvider('github')
  github.tokens.add(token)
  github.repositories.set(options.name, options.fakeRepository)
  const t = await createDockerDeploymentsApp(options.env)
  return {
    t,
    calls: deploymentCalls(t.app),
    git,
    github,
    token,
    async commit(repository, files, message, branch = 'main') {
      const sha = await repository.commit(files, message, branch)
      const known = options.fakeRepository
      known.commits!.unshift({ sha, message, authorName: 'Ada', date: new Date().toISOString() })
      known.branches = [...(known.branches ?? []).filter((head) => head.name !== branch), { name: branch, sha }]
      return sha
    },
    async close() {
      await removeEnvironments(options.environments).catch(() => undefined)
      for (const id of options.services) {
        for (const image of await docker.listImages({ filters: { reference: [builtImageRepository(id)] } }))
          await docker
            .getImage(image.Id)
            .remove({ force: true })
            .catch(() => undefined)
      }
      await t.close()
      await github.close()
      await git.close()
    },
  }
}
