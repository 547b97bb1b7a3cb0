import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'

// The console's own layering, read from its imports: no files import each other in a circle, and
// its lists of kinds come from the one table generated from the server's registry (kinds.ts).

const root = process.cwd()
const sources = path.join('console', 'src')

function files(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : files(file)
    return /\.tsx?$/.test(entry.name) ? [file] : []
  })
}

const texts = new Map(files(sources).map((file) => [file, readFileSync(path.join(root, file), 'utf8')]))

/** What each console file imports of the console (type-only imports too). */
const graph = new Map(
  [...texts].map(([file, text]) => [
    file,
    [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s+['"]([^'"]+)['"]/g)]
      .map((match) => match[1]!)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => path.posix.join(path.posix.dirname(file), specifier)),
  ]),
)

describe('console layering', () => {
  it('reads the imports it judges', () => {
    assert.ok(graph.size > 40)
    assert.ok(graph.get('console/src/main.tsx')!.includes('console/src/routes.tsx'))
  })

  it('no console files import each other in a circle', () => {
    const circles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const trail: string[] = []
    const visit = (file: string) => {
      state.set(file, 'open')
      trail.push(file)
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === 'open') circles.push([...trail.slice(trail.indexOf(target)), target].join(' -> '))
        else if (!state.has(target) && graph.has(target)) visit(target)
      }
      trail.pop()
      state.set(file, 'done')
    }
    for (const file of graph.keys()) if (!state.has(file)) visit(file)
    assert.deepEqual(circles, [])
  })

  it('names three or more kinds in two files only: the kinds table and the create forms table', () => {
    const kinds = ['APPLICATION', 'CONTAINER', 'DATABASE', 'JOB', 'HELM', 'IAC', 'TERRAFORM']
    const naming = [...texts]
      .filter(([, text]) => kinds.filter((kind) => new RegExp(`['"\`]${kind}['"\`]|\\b${kind}:`).test(text)).length >= 3)
      .map(([file]) => file)
    assert.deepEqual(naming.sort(), ['console/src/create/kind-forms.tsx', 'console/src/kinds.ts'])
  })
})
