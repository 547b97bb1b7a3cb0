import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createHistoryPageCache } from '#src/modules/deployments/api/history/history-page-cache.ts'
import { createHistoryVersionCache } from '#src/modules/deployments/api/history/history-versions.ts'

const page = (body: string) => ({ body: Buffer.from(body), tag: `tag-${body}` })

describe('history page cache', () => {
  it('serves a page only at the version it was read at', () => {
    const cache = createHistoryPageCache({ maxBytes: 100 })
    cache.set('k', '7', page('a'))
    assert.equal(cache.get('k', '7')?.body.toString(), 'a')
    assert.equal(cache.get('k', '8'), undefined, 'the history changed since')
  })

  it('keeps at most maxBytes of text, the least recently used leaving first', () => {
    const cache = createHistoryPageCache({ maxBytes: 10 })
    cache.set('a', '1', page('aaaa'))
    cache.set('b', '1', page('bbbb'))
    assert.ok(cache.get('a', '1'), 'a used last')
    cache.set('c', '1', page('cccc'))
    assert.deepEqual(
      ['a', 'b', 'c'].map((key) => cache.get(key, '1')?.body.toString()),
      ['aaaa', undefined, 'cccc'],
    )
    cache.set('huge', '1', page('x'.repeat(11)))
    assert.equal(cache.get('huge', '1'), undefined, 'a page larger than the whole cache is not kept')
    assert.equal(cache.get('c', '1')?.body.toString(), 'cccc')
  })
})

describe('history versions', () => {
  const version = (v: string) => ({ organizationId: 'org', projectId: 'project', version: v })

  it('are not remembered for an environment this process is changing, and are forgotten when its change ends', () => {
    const versions = createHistoryVersionCache({ ttlMs: 1_000, maxEntries: 10 })
    versions.setListening(true)
    versions.set('env', version('1'), versions.generation, 0)
    assert.equal(versions.get('env', 0)?.version, '1')

    const release = versions.hold('env')
    assert.equal(versions.get('env', 0), undefined, 'read through while the change is under way')
    versions.set('env', version('1'), versions.generation, 0)
    assert.equal(versions.get('env', 0), undefined, 'a read made meanwhile, before or after the commit, is not kept')
    const readBeforeTheEnd = versions.generation
    release()
    versions.set('env', version('1'), readBeforeTheEnd, 0)
    assert.equal(versions.get('env', 0), undefined, 'nor one that started before the change ended')
    versions.set('env', version('2'), versions.generation, 0)
    assert.equal(versions.get('env', 0)?.version, '2')
  })

  it('stay held while any of two overlapping changes is under way, and go with their project or organization', () => {
    const versions = createHistoryVersionCache({ ttlMs: 1_000, maxEntries: 10 })
    versions.setListening(true)
    const first = versions.hold('env')
    const second = versions.hold('env')
    first()
    first()
    versions.set('env', version('3'), versions.generation, 0)
    assert.equal(versions.get('env', 0), undefined)
    second()
    versions.set('env', version('3'), versions.generation, 0)
    versions.set('other', { ...version('1'), projectId: 'p2', organizationId: 'o2' }, versions.generation, 0)
    versions.forgetProject('project')
    assert.equal(versions.get('env', 0), undefined)
    assert.equal(versions.get('other', 0)?.version, '1')
    versions.forgetOrganization('o2')
    assert.equal(versions.get('other', 0), undefined)
  })

  it('are remembered for ttlMs at most, and never while changes are not announced', () => {
    const versions = createHistoryVersionCache({ ttlMs: 1_000, maxEntries: 10 })
    versions.set('env', version('1'), versions.generation, 0)
    assert.equal(versions.get('env', 0), undefined, 'not listening')
    versions.setListening(true)
    versions.set('env', version('1'), versions.generation, 0)
    assert.equal(versions.get('env', 999)?.version, '1')
    assert.equal(versions.get('env', 1_000), undefined)
  })
})
