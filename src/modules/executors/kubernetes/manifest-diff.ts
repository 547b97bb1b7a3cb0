import { parse } from 'yaml'
import { unifiedDiff } from './line-diff.ts'

// What a dry run says would change: the objects a chart renders now against those of the release
// running, each added, changed or removed, with the unified diff of a changed one. A Secret's
// values are never shown: only the keys whose values would change.

/** One object of a manifest: who it is, and its text as rendered. */
interface ManifestObject {
  /** `Kind/name`, with ` (namespace ns)` when the object names a namespace other than the release's. */
  id: string
  kind: string
  text: string
}

export type ObjectChange =
  | { change: 'added' | 'removed' | 'unchanged'; id: string }
  | { change: 'changed'; id: string /** Its unified diff, or for a Secret a line naming the keys whose values change. */; diff: string[] }

/** The objects of a manifest (`helm template`, `helm get manifest`), by id; empty documents, hooks and helm's `# Source:` lines left out. */
function manifestObjects(manifest: string, releaseNamespace: string): Map<string, ManifestObject> {
  const objects = new Map<string, ManifestObject>()
  for (const document of manifest.split(/^---[ \t]*$/m)) {
    const text = document
      .split('\n')
      .filter((line) => !/^# Source: /.test(line))
      .join('\n')
      .trim()
    const value = parse(text) as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown; annotations?: Record<string, unknown> } } | null
    if (!value || typeof value !== 'object') continue
    // Hooks run around an install, and no release manifest holds them (`helm template` prints them).
    if (value.metadata?.annotations?.['helm.sh/hook'] !== undefined) continue
    const kind = String(value.kind ?? '')
    const named = value.metadata?.namespace
    const namespace = typeof named === 'string' && named !== releaseNamespace ? ` (namespace ${named})` : ''
    const id = `${kind}/${String(value.metadata?.name ?? '')}${namespace}`
    objects.set(id, { id, kind, text })
  }
  return objects
}

/** The keys of a Secret's data and stringData whose values differ between two of its texts (values never shown). */
function secretKeysChanged(before: string, after: string): string[] {
  const values = (text: string) => {
    const secret = parse(text) as { data?: Record<string, unknown>; stringData?: Record<string, unknown> } | null
    return new Map(
      (['data', 'stringData'] as const).flatMap((field) =>
        Object.entries(secret?.[field] ?? {}).map(([key, value]) => [`${field}.${key}`, String(value)]),
      ),
    )
  }
  const was = values(before)
  const now = values(after)
  return [...new Set([...was.keys(), ...now.keys()])].filter((key) => was.get(key) !== now.get(key)).sort()
}

/** A Secret's change, named without its values. */
function secretChange(before: string, after: string): string[] {
  const keys = secretKeysChanged(before, after)
  return [
    `a Secret: its values are not shown; ${keys.length === 0 ? 'its values are the same, other fields change' : `values change for ${keys.join(', ')}`}`,
  ]
}

/**
 * How the objects of `rendered` differ from those of `running` (a release's in `namespace`): each
 * object of either, in the order rendered then removed ones, added, changed (with its diff),
 * removed or unchanged.
 */
export function manifestChanges(running: string, rendered: string, namespace: string): ObjectChange[] {
  const was = manifestObjects(running, namespace)
  const now = manifestObjects(rendered, namespace)
  const changes: ObjectChange[] = []
  for (const object of now.values()) {
    const old = was.get(object.id)
    if (!old) changes.push({ change: 'added', id: object.id })
    else if (old.text === object.text) changes.push({ change: 'unchanged', id: object.id })
    else
      changes.push({
        change: 'changed',
        id: object.id,
        diff: object.kind === 'Secret' ? secretChange(old.text, object.text) : unifiedDiff(old.text, object.text, 'running', 'rendered'),
      })
  }
  for (const object of was.values()) if (!now.has(object.id)) changes.push({ change: 'removed', id: object.id })
  return changes
}
