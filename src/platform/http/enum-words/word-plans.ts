// Where a schema's enums are, and what to do with their words: copies of JSON schemas with other
// enum values, and plans that change the words of a value at the places its schema declares an
// enum, never elsewhere (a name or a message that happens to read "IAC" is left as it is).

type SchemaNode = Record<string, unknown>

const isNode = (value: unknown): value is SchemaNode => typeof value === 'object' && value !== null && !Array.isArray(value)
const areWords = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string')

/** The values an enum (or a string `const`) should list instead of `values`; undefined: as they are. */
export type EnumValuesRewrite = (values: readonly string[]) => readonly string[] | undefined

/**
 * A copy of `schema` whose enums and string consts list what `rewrite` says; the parts it leaves
 * alone are shared with `schema`, never changed in place (schemas are shared between routes).
 * A const given more than one value becomes an enum.
 */
export function rewriteEnums<T>(schema: T, rewrite: EnumValuesRewrite): T {
  return rewritten(schema, rewrite, 0) as T
}

function rewritten(node: unknown, rewrite: EnumValuesRewrite, depth: number): unknown {
  if (depth > 64) return node
  if (Array.isArray(node)) {
    let copy: unknown[] | undefined
    node.forEach((item, index) => {
      const next = rewritten(item, rewrite, depth + 1)
      if (next !== item) {
        copy ??= [...node]
        copy[index] = next
      }
    })
    return copy ?? node
  }
  if (!isNode(node)) return node
  let copy: SchemaNode | undefined
  const set = (key: string, value: unknown) => {
    copy ??= { ...node }
    copy[key] = value
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === 'enum' && areWords(value)) {
      const values = rewrite(value)
      if (values) set('enum', [...values])
    } else if (key === 'const' && typeof value === 'string') {
      const values = rewrite([value])
      if (values && values.length === 1) set('const', values[0])
      else if (values) {
        set('enum', [...values])
        delete copy?.const
      }
    } else if (typeof value === 'object' && value !== null) {
      const next = rewritten(value, rewrite, depth + 1)
      if (next !== value) set(key, next)
    }
  }
  return copy ?? node
}

/** What to do with the words of a value of one schema: where its enums are and which word becomes which. */
export interface WordPlan {
  /** At this place: each word that changes, to what it becomes. */
  words?: ReadonlyMap<string, string>
  properties?: ReadonlyMap<string, WordPlan>
  items?: WordPlan
  /** Properties the schema does not name (additionalProperties, patternProperties). */
  others?: WordPlan
  /** With `others`: the properties the schema names, which `others` does not cover. */
  named?: ReadonlySet<string>
}

/** The word changes of one enum, from its declared values; undefined or empty: none. */
export type EnumWordChanges = (values: readonly string[]) => ReadonlyMap<string, string> | undefined

/** The plan of `schema`'s enums under `changes`; undefined when no enum of it has a word to change. */
export function wordPlan(schema: unknown, changes: EnumWordChanges): WordPlan | undefined {
  return planOf(schema, changes, 0)
}

function planOf(node: unknown, changes: EnumWordChanges, depth: number): WordPlan | undefined {
  if (!isNode(node) || depth > 64) return undefined
  const parts: (WordPlan | undefined)[] = []
  const declared = areWords(node.enum) ? node.enum : typeof node.const === 'string' ? [node.const] : undefined
  const words = declared && changes(declared)
  if (words && words.size > 0) parts.push({ words })
  if (isNode(node.properties)) {
    const properties = new Map<string, WordPlan>()
    for (const [name, property] of Object.entries(node.properties)) {
      const plan = planOf(property, changes, depth + 1)
      if (plan) properties.set(name, plan)
    }
    if (properties.size > 0) parts.push({ properties })
  }
  for (const items of [node.items, node.prefixItems].flat()) {
    const plan = planOf(items, changes, depth + 1)
    if (plan) parts.push({ items: plan })
  }
  const others = [node.additionalProperties, ...(isNode(node.patternProperties) ? Object.values(node.patternProperties) : [])]
  const named = new Set(isNode(node.properties) ? Object.keys(node.properties) : [])
  for (const other of others) {
    const plan = planOf(other, changes, depth + 1)
    if (plan) parts.push({ others: plan, named })
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = node[keyword]
    if (Array.isArray(branches)) for (const branch of branches) parts.push(planOf(branch, changes, depth + 1))
  }
  return parts.reduce<WordPlan | undefined>(merged, undefined)
}

function merged(a: WordPlan | undefined, b: WordPlan | undefined): WordPlan | undefined {
  if (!a || !b) return a ?? b
  const properties = new Map(a.properties)
  for (const [name, plan] of b.properties ?? []) properties.set(name, merged(properties.get(name), plan) as WordPlan)
  return {
    ...(a.words || b.words ? { words: new Map([...(a.words ?? []), ...(b.words ?? [])]) } : {}),
    ...(properties.size > 0 ? { properties } : {}),
    ...(a.items || b.items ? { items: merged(a.items, b.items) } : {}),
    ...(a.others || b.others ? { others: merged(a.others, b.others), named: new Set([...(a.named ?? []), ...(b.named ?? [])]) } : {}),
  }
}

/**
 * `value` with the words its plan changes changed: a new object or array along the paths that
 * change, the rest shared (a value may be held elsewhere, in a cache: it is never changed in
 * place). A list of words where the plan expects one word (a query value given twice) has each
 * word changed.
 */
export function inWords<T>(plan: WordPlan, value: T): T {
  return changedValue(plan, value) as T
}

function changedValue(plan: WordPlan, value: unknown): unknown {
  if (typeof value === 'string') return plan.words?.get(value) ?? value
  if (Array.isArray(value)) {
    const itemPlan = plan.items ?? (plan.words ? { words: plan.words } : undefined)
    if (!itemPlan) return value
    let copy: unknown[] | undefined
    value.forEach((item, index) => {
      const next = changedValue(itemPlan, item)
      if (next !== item) {
        copy ??= [...value]
        copy[index] = next
      }
    })
    return copy ?? value
  }
  if (!isNode(value) || (!plan.properties && !plan.others)) return value
  let copy: SchemaNode | undefined
  for (const key of Object.keys(value)) {
    const keyPlan = plan.properties?.get(key) ?? (plan.named?.has(key) ? undefined : plan.others)
    if (!keyPlan) continue
    const item = value[key]
    const next = changedValue(keyPlan, item)
    if (next !== item) {
      copy ??= { ...value }
      copy[key] = next
    }
  }
  return copy ?? value
}
