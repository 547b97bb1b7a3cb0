import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseGitUrl } from '#src/modules/services/git-repositories/git-repository-url.ts'
import { refusedHelmArgument } from '#src/modules/services/kinds/helm/helm-arguments.ts'
import { entityTag, ifMatchTags, ifNoneMatchHits } from '#src/platform/http/entity-tags.ts'

describe('helm arguments', () => {
  const refused = (argument: string, clusterWide = false) => refusedHelmArgument(argument, clusterWide)

  it('lets flags that shape the release through, with their values', () => {
    for (const argument of [
      '--atomic',
      '--wait',
      '--timeout=10m',
      '--timeout 10m',
      '--set',
      'image.tag=1.2',
      '--set=a=-n',
      '--debug',
      '--force',
      '--force-replace',
      'kube-system',
    ]) {
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
      assert.match(refused(argument) ?? '', /^"--kube(config|-[a-z-]+)" is not allowed: it would/, argument)
    }
  })

  it('refuses post-renderers, which would run a program on the runner', () => {
    assert.match(refused('--post-renderer=/bin/sh') ?? '', /"--post-renderer" is not allowed: it would run a program/)
    assert.match(refused('--post-renderer-args=x') ?? '', /"--post-renderer-args" is not allowed/)
  })

  it("refuses flags that read or write the runner's files", () => {
    for (const [argument, flag] of <[string, string][]>[
      ['--set-file=a=/root/.kube/config', '--set-file'],
      ['-f/etc/passwd', '-f'],
      ['--values=/var/run/secrets/token', '--values'],
      ['--log-file=/tmp/x', '--log-file'],
      ['--log-dir=/', '--log-dir'],
      ['--repository-config=/x', '--repository-config'],
      ['--registry-config=/x', '--registry-config'],
    ]) {
      assert.match(refused(argument) ?? '', new RegExp(`^"${flag}" is not allowed: it would (read|write)`), argument)
    }
  })

  it('refuses any flag it does not know, listing those it allows', () => {
    assert.match(refused('--some-new-flag=1') ?? '', /^"--some-new-flag" is not among the helm flags Berth passes on \(--atomic, /)
    assert.match(refused('-x') ?? '', /^"-x" is not among/)
  })

  it('refuses a namespace unless cluster-wide resources are allowed, short forms included', () => {
    for (const argument of ['--namespace', '--namespace=kube-system', '-n', '-nkube-system', '-n kube-system', '--wait --namespace other']) {
      assert.match(refused(argument) ?? '', /"(--namespace|-n)" is not allowed unless allow_cluster_wide_resources is true/, argument)
      assert.equal(refused(argument, true), undefined, argument)
    }
    assert.ok(refused('-in'), 'a namespace in a cluster of short flags')
  })

  it('refuses --kubeconfig even when cluster-wide resources are allowed', () => {
    assert.ok(refused('--kubeconfig=x', true))
  })
})

describe('git repository URLs', () => {
  it('reads owner and name, dropping .git, for public and self-hosted hosts', () => {
    assert.deepEqual(parseGitUrl('https://github.com/acme/api.git'), { hostProvider: 'GITHUB', owner: 'acme', name: 'api', secure: true })
    assert.deepEqual(parseGitUrl('https://gitlab.com/group/sub/app'), { hostProvider: 'GITLAB', owner: 'group/sub', name: 'app', secure: true })
    assert.deepEqual(parseGitUrl('https://bitbucket.org/team/repo/'), { hostProvider: 'BITBUCKET', owner: 'team', name: 'repo', secure: true })
    assert.deepEqual(parseGitUrl('http://git.example.com/a/b.c'), { hostProvider: undefined, owner: 'a', name: 'b.c', secure: false })
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
    assert.equal(entityTag('3.abc'), '"3.abc"')
    assert.deepEqual(ifMatchTags('"3.abc"'), ['3.abc'])
    assert.deepEqual(ifMatchTags('"3.a", "4.b"'), ['3.a', '4.b'])
    assert.equal(ifMatchTags(undefined), undefined)
    assert.equal(ifMatchTags('*'), undefined)
    assert.deepEqual(ifMatchTags('W/"3.a"'), [], 'If-Match compares strongly')
    assert.deepEqual(ifMatchTags('garbage'), [])
  })

  it('matches If-None-Match weakly', () => {
    assert.equal(ifNoneMatchHits('"3.a"', '3.a'), true)
    assert.equal(ifNoneMatchHits('W/"3.a"', '3.a'), true)
    assert.equal(ifNoneMatchHits('"2.a", "3.a"', '3.a'), true)
    assert.equal(ifNoneMatchHits('*', '3.a'), true)
    assert.equal(ifNoneMatchHits('"2.a"', '3.a'), false)
    assert.equal(ifNoneMatchHits(undefined, '3.a'), false)
  })
})
