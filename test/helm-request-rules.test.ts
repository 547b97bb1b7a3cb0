import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseGitUrl } from '#src/modules/helm-services/git-repository-url.ts'
import { refusedHelmArgument } from '#src/modules/helm-services/helm-arguments.ts'
import { entityTag, ifMatchVersions, ifNoneMatchHits } from '#src/platform/http/entity-tags.ts'

describe('helm arguments', () => {
  const refused = (argument: string, clusterWide = false) => refusedHelmArgument(argument, clusterWide)

  it('lets ordinary helm flags through', () => {
    for (const argument of ['--atomic', '--wait', '--timeout=10m', '--set', 'image.tag=1.2', '-f', '--debug', '--version 1.2.3', '--set=a=-n']) {
      assert.equal(refused(argument), undefined, argument)
    }
  })

  it('refuses flags that point helm at another cluster or identity, in every spelling', () => {
    for (const argument of [
      '--kubeconfig',
      '--kubeconfig=/root/.kube/config',
      '--kube-context=prod',
      '--kube-token',
      '--kube-apiserver=https://x',
      '--kube-as-user=admin',
      '  --kube-ca-file x ',
    ]) {
      const reason = refused(argument)
      assert.ok(reason, argument)
      assert.match(reason, /^"--kube(config|-[a-z-]+)" is not allowed/)
    }
  })

  it('refuses post-renderers, which would run a program on the runner', () => {
    assert.match(refused('--post-renderer=/bin/sh') ?? '', /"--post-renderer" is not allowed: it would run an arbitrary program/)
    assert.match(refused('--post-renderer-args=x') ?? '', /"--post-renderer-args" is not allowed/)
  })

  it('refuses a namespace unless cluster-wide resources are allowed, short forms included', () => {
    for (const argument of ['--namespace', '--namespace=kube-system', '-n', '-nkube-system', '-n kube-system', '-in', '--wait --namespace other']) {
      assert.match(refused(argument) ?? '', /"(--namespace|-n)" is not allowed unless allow_cluster_wide_resources is true/, argument)
      assert.equal(refused(argument, true), undefined, argument)
    }
    assert.equal(refused('-fvalues-n.yaml'), undefined, 'a value after -f is not a flag')
  })

  it('refuses --kubeconfig even when cluster-wide resources are allowed', () => {
    assert.ok(refused('--kubeconfig=x', true))
  })
})

describe('git repository URLs', () => {
  it('reads owner and name, dropping .git, for public and self-hosted hosts', () => {
    assert.deepEqual(parseGitUrl('https://github.com/acme/api.git'), { hostProvider: 'GITHUB', owner: 'acme', name: 'api' })
    assert.deepEqual(parseGitUrl('https://gitlab.com/group/sub/app'), { hostProvider: 'GITLAB', owner: 'group/sub', name: 'app' })
    assert.deepEqual(parseGitUrl('https://bitbucket.org/team/repo/'), { hostProvider: 'BITBUCKET', owner: 'team', name: 'repo' })
    assert.deepEqual(parseGitUrl('https://git.example.com/a/b'), { hostProvider: undefined, owner: 'a', name: 'b' })
  })

  it('rejects what is not an http(s) repository URL', () => {
    for (const url of [
      'git@github.com:a/b.git',
      'ftp://github.com/a/b',
      'https://github.com/only-owner',
      'not a url',
      'https://u:p@github.com/a/b',
      'https://github.com/a/../b',
      'https://github.com/a/b?x=1',
    ]) {
      assert.equal(parseGitUrl(url), undefined, url)
    }
  })
})

describe('entity tags', () => {
  it('writes strong tags and reads If-Match lists', () => {
    assert.equal(entityTag(3), '"3"')
    assert.deepEqual(ifMatchVersions('"3"'), [3])
    assert.deepEqual(ifMatchVersions('"3", "4"'), [3, 4])
    assert.equal(ifMatchVersions(undefined), undefined)
    assert.equal(ifMatchVersions('*'), undefined)
    assert.deepEqual(ifMatchVersions('W/"3"'), [], 'If-Match compares strongly')
    assert.deepEqual(ifMatchVersions('"abc"'), [])
    assert.deepEqual(ifMatchVersions('garbage'), [])
  })

  it('matches If-None-Match weakly', () => {
    assert.equal(ifNoneMatchHits('"3"', 3), true)
    assert.equal(ifNoneMatchHits('W/"3"', 3), true)
    assert.equal(ifNoneMatchHits('"2", "3"', 3), true)
    assert.equal(ifNoneMatchHits('*', 3), true)
    assert.equal(ifNoneMatchHits('"2"', 3), false)
    assert.equal(ifNoneMatchHits(undefined, 3), false)
  })
})
