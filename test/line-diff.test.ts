import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { unifiedDiff } from '#src/modules/executors/kubernetes/line-diff.ts'
import { manifestChanges } from '#src/modules/executors/kubernetes/manifest-diff.ts'

// The line diff a dry run shows of a changed object (docs/rollbacks.md, "Dry runs"), against the
// real `diff -u` (GNU diffutils), and the object-by-object comparison of two manifests.

const work = mkdtempSync(path.join(os.tmpdir(), 'berth-line-diff-'))
after(() => rmSync(work, { recursive: true, force: true }))

/** What `diff -u` prints of the two texts, without its two file-name lines. */
function gnuDiff(before: string[], after: string[]): string[] {
  writeFileSync(path.join(work, 'a'), before.map((line) => `${line}\n`).join(''))
  writeFileSync(path.join(work, 'b'), after.map((line) => `${line}\n`).join(''))
  try {
    execFileSync('diff', ['-u', path.join(work, 'a'), path.join(work, 'b')], { encoding: 'utf8' })
    return []
  } catch (error) {
    return (error as { stdout: string }).stdout.split('\n').slice(2, -1)
  }
}

describe('the line diff of a dry run', () => {
  it('prints what diff -u prints: hunks, their headers and three lines of context, nearby changes joined', () => {
    const base = Array.from({ length: 60 }, (_, i) => `line ${i}`)
    const cases: [string[], string[]][] = [
      [base, base.map((line, i) => (i === 5 ? 'changed' : line))],
      [base, base.map((line, i) => (i === 5 || i === 12 ? 'changed' : line))],
      [base, base.map((line, i) => (i === 5 || i === 13 ? 'changed' : line))],
      [base, [...base.slice(0, 20), 'added', ...base.slice(20)]],
      [base, [...base.slice(0, 20), ...base.slice(23)]],
      [base, ['first', ...base, 'last']],
      [base, base.slice(0, 1)],
    ]
    for (const [before, after] of cases) {
      const ours = unifiedDiff(before.join('\n'), after.join('\n'), 'running', 'rendered')
      assert.deepEqual(ours.slice(0, 2), ['--- running', '+++ rendered'])
      assert.deepEqual(ours.slice(2), gnuDiff(before, after))
    }
    assert.deepEqual(unifiedDiff('same\ntext', 'same\ntext', 'a', 'b'), [], 'no change, no diff')
  })

  it('compares manifests object by object: added, changed, removed, unchanged; a Secret by the keys whose values change', () => {
    const running = [
      'kind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "1"',
      'kind: Secret\nmetadata:\n  name: s\nstringData:\n  password: old-value\n  user: shop',
      'kind: ConfigMap\nmetadata:\n  name: gone',
      'kind: Service\nmetadata:\n  name: web\n  namespace: ns',
    ].join('\n---\n')
    const rendered = [
      '# Source: chart/templates/a.yaml\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "2"',
      'kind: Secret\nmetadata:\n  name: s\nstringData:\n  password: new-value\n  user: shop',
      'kind: Service\nmetadata:\n  name: web\n  namespace: ns',
      'kind: ConfigMap\nmetadata:\n  name: new\n  namespace: elsewhere',
      'kind: Job\nmetadata:\n  name: hook\n  annotations:\n    helm.sh/hook: pre-install',
    ].join('\n---\n')
    assert.deepEqual(manifestChanges(running, rendered, 'ns'), [
      {
        change: 'changed',
        id: 'ConfigMap/a',
        diff: ['--- running', '+++ rendered', '@@ -2,4 +2,4 @@', ' metadata:', '   name: a', ' data:', '-  x: "1"', '+  x: "2"'],
      },
      { change: 'changed', id: 'Secret/s', diff: ['a Secret: its values are not shown; values change for stringData.password'] },
      { change: 'unchanged', id: 'Service/web' },
      { change: 'added', id: 'ConfigMap/new (namespace elsewhere)' },
      { change: 'removed', id: 'ConfigMap/gone' },
    ])
  })
})
