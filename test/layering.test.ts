import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'

// The layering docs/architecture.md describes, read from the source's own imports: platform/ takes
// nothing of the app, the runner names no kind, the two sides of deployments meet only at the
// queue's tables, and no files import each other in a circle.

// The repository's root: the tests run from it (npm test), and this file may run from a bundle elsewhere.
const root = process.cwd()

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(file)
    return /\.tsx?$/.test(entry.name) ? [file] : []
  })
}

/** What each file under `dirs` imports of them (type-only imports too), as paths from the root. */
function importGraph(...dirs: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of dirs.flatMap(sourceFiles)) {
    const text = readFileSync(path.join(root, file), 'utf8')
    const targets = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]/g)]
      .map((match) => match[1] ?? match[2]!)
      .flatMap((specifier) => {
        if (specifier.startsWith('#src/')) return [`src/${specifier.slice('#src/'.length)}`]
        if (specifier.startsWith('.')) return [path.posix.join(path.posix.dirname(file), specifier)]
        return []
      })
    graph.set(file, targets)
  }
  return graph
}

const graph = importGraph('src')
/** The console's own graph: it imports nothing of src/ but what is generated for it. */
const consoleGraph = importGraph('console/src')

/** The imports from files under `from` of files under `to`, as "file -> target". */
function arrows(from: string, to: (target: string) => boolean): string[] {
  return [...graph].flatMap(([file, targets]) => (file.startsWith(from) ? targets.filter(to).map((target) => `${file} -> ${target}`) : []))
}

const under =
  (...folders: string[]) =>
  (target: string) =>
    folders.some((folder) => target.startsWith(folder))

describe('layering', () => {
  it('reads the imports it judges', () => {
    assert.ok(graph.size > 100)
    assert.ok(graph.get('src/app.ts')!.includes('src/config.ts'), 'the scan sees the imports of src/app.ts')
  })

  it('platform/ imports nothing of the app: not its config, not a module', () => {
    assert.deepEqual(arrows('src/platform/', under('src/config.ts', 'src/modules/', 'src/app.ts', 'src/services.ts', 'src/cli/')), [])
  })

  it('the runner, cron and executors do not import the kinds registry: kinds are handed to them', () => {
    const registry = under('src/modules/services/kinds/registry.ts')
    assert.deepEqual([...arrows('src/modules/deployments/', registry), ...arrows('src/modules/executors/', registry)], [])
  })

  it('the runner, cron and the queue import no kind: what cron needs of one is its schedule hook', () => {
    const kinds = under('src/modules/services/kinds/')
    assert.deepEqual([...arrows('src/modules/deployments/runner/', kinds), ...arrows('src/modules/deployments/queue/', kinds)], [])
  })

  it('the API side and the runner side of deployments meet only at the queue', () => {
    assert.deepEqual(arrows('src/modules/deployments/api/', under('src/modules/deployments/runner/')), [])
    assert.deepEqual(arrows('src/modules/deployments/runner/', under('src/modules/deployments/api/')), [])
    assert.deepEqual(arrows('src/modules/deployments/queue/', under('src/modules/deployments/api/', 'src/modules/deployments/runner/')), [])
  })

  it("the executors' tables are filled by the kinds: the executors take them at wiring and import no kind's entry", () => {
    const kinds = under('src/modules/services/kinds/')
    assert.deepEqual(
      [
        ...arrows('src/modules/executors/docker/docker-executor.ts', kinds),
        ...arrows('src/modules/executors/kubernetes/builtin-deployments.ts', kinds),
        ...arrows('src/modules/executors/', (target) => /\.(docker|kubernetes)\.ts$/.test(target)),
      ],
      [],
    )
  })

  it('executors import no other module (but the address guard): the kinds describe workloads to them, the wiring hands them the rest', () => {
    const elsewhere = (target: string) =>
      target.startsWith('src/modules/') && !target.startsWith('src/modules/executors/') && target !== 'src/modules/git-providers/address-guard.ts'
    assert.deepEqual(arrows('src/modules/executors/', elsewhere), [])
  })

  it('executors and kinds do not import the runner', () => {
    const runner = under('src/modules/deployments/runner/')
    assert.deepEqual([...arrows('src/modules/executors/', runner), ...arrows('src/modules/services/', runner)], [])
  })

  it('kinds and the service core do not import the API side of deployments: the route context hands them what they need', () => {
    assert.deepEqual(arrows('src/modules/services/', under('src/modules/deployments/api/')), [])
  })

  it('no two folders of modules/ import each other: services import nothing of deployments, which take the kinds from them', () => {
    const folderOf = (file: string) => (file.startsWith('src/modules/') ? file.split('/')[2] : undefined)
    const edges = new Set<string>()
    for (const [file, targets] of graph) {
      const from = folderOf(file)
      for (const target of targets) {
        const to = folderOf(target)
        if (from && to && from !== to) edges.add(`${from} -> ${to}`)
      }
    }
    const mutual = [...edges].filter((edge) => {
      const [from, to] = edge.split(' -> ')
      return from! < to! && edges.has(`${to} -> ${from}`)
    })
    assert.deepEqual(mutual, [])
  })

  it('no files import each other in a circle, in src/ or in the console', () => {
    assert.ok(consoleGraph.size > 10, 'the console is read')
    const both = new Map([...graph, ...consoleGraph])
    const circles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const trail: string[] = []
    const visit = (file: string) => {
      state.set(file, 'open')
      trail.push(file)
      for (const target of both.get(file) ?? []) {
        if (state.get(target) === 'open') circles.push([...trail.slice(trail.indexOf(target)), target].join(' -> '))
        else if (!state.has(target) && both.has(target)) visit(target)
      }
      trail.pop()
      state.set(file, 'done')
    }
    for (const file of both.keys()) if (!state.has(file)) visit(file)
    assert.deepEqual(circles, [])
  })
})

// Kind tables come from the registry (docs/adding-a-kind.md): outside the kinds' folders, only these
// files spell three or more kinds (old migrations are history and are left as they are).
const KIND_WORDS = ['APPLICATION', 'CONTAINER', 'DATABASE', 'JOB', 'HELM', 'IAC', 'GITOPS_APP']
const KIND_LISTS = ['console/src/create/kind-forms.tsx', 'console/src/service-tabs.tsx', 'src/platform/service-types.ts']

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name)
    if (entry.isDirectory()) return filesUnder(file)
    return /\.tsx?$/.test(entry.name) ? [file] : []
  })
}

describe('kind names', () => {
  it("only the kinds' folders and three files outside them name three kinds or more", () => {
    const skipped = ['src/modules/services/kinds/', 'src/platform/db/migrations/', 'console/src/generated/']
    const files = [...filesUnder('src'), ...filesUnder('console/src')].filter((file) => !skipped.some((folder) => file.startsWith(folder)))
    const naming = files.filter((file) => {
      const text = readFileSync(path.join(root, file), 'utf8')
      const words = (word: string) => [word, word.toLowerCase(), ...(word === 'IAC' ? ['TERRAFORM', 'terraform'] : [])]
      const named = KIND_WORDS.filter((kind) => words(kind).some((word) => new RegExp(`['"\`]${word}['"\`]`).test(text)))
      return named.length >= 3
    })
    assert.deepEqual(naming.sort(), KIND_LISTS)
  })
})
