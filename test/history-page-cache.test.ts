import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createHistoryPageCache } from '#src/modules/deployments/history/history-page-cache.ts'

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
