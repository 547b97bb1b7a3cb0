const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Whether PostgreSQL can take the text as a parameter: no NUL (text and jsonb cannot hold one, and a
 * statement given one fails) and no unpaired UTF-16 surrogate (JSON can escape one; it has no UTF-8).
 * Input is checked with this where it enters (bodies, path and query values, JWT claims), so that
 * it is refused with a 4xx rather than failing a statement with a 500.
 */
export const isStorableText = (text: string): boolean => !text.includes('\0') && !LONE_SURROGATE.test(text)

/** A place in a parsed value: its parent's place and its own JSON pointer segment. */
interface Place {
  parent: Place | undefined
  segment: string
}

const pointerOf = (place: Place | undefined): string => {
  const segments: string[] = []
  for (let at = place; at; at = at.parent) segments.push(at.segment)
  return segments.reverse().join('')
}

/**
 * The JSON pointer of the first string of `root` PostgreSQL cannot take, if any; with `keys`,
 * object keys are looked at too (before their values). Walks the value with a stack of its own, in
 * document order: a body within the size limit can nest far deeper than the call stack would go.
 */
export function unstorablePointer(root: unknown, { keys }: { keys: boolean }): string | undefined {
  const stack: { value: unknown; place: Place | undefined }[] = [{ value: root, place: undefined }]
  while (stack.length > 0) {
    const { value, place } = stack.pop()!
    if (typeof value === 'string') {
      if (!isStorableText(value)) return pointerOf(place)
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) stack.push({ value: value[index], place: { parent: place, segment: `/${index}` } })
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value)
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!
        const child = { parent: place, segment: `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}` }
        // The key is looked at before its value: pushed last, popped first.
        stack.push({ value: item, place: child })
        if (keys) stack.push({ value: key, place: child })
      }
    }
  }
  return undefined
}
