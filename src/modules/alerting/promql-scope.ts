// Limits a PromQL expression to one organization's series: every vector selector gets the matcher
// organization_id="<id>" added (ANDed with the caller's own matchers, so a caller's matcher on
// another organization selects nothing). A small scanner, not a full parser: it tells selectors
// from function names, aggregations, keywords and label lists; what it gets wrong makes an
// expression Prometheus then refuses (the result is checked again), never one that escapes.

const AGGREGATIONS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
])
const LABEL_LIST_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right'])
const KEYWORDS = new Set(['and', 'or', 'unless', 'offset', 'bool', 'atan2', 'inf', 'nan', ...LABEL_LIST_KEYWORDS])

type Token = { kind: 'ident' | 'braces' | 'other'; start: number; end: number }

function skipString(text: string, at: number): number {
  const quote = text[at]
  let i = at + 1
  while (i < text.length && text[i] !== quote) i += text[i] === '\\' && quote !== '`' ? 2 : 1
  return i + 1
}

/** The end of a bracketed span starting at `at` (strings inside skipped). */
function skipBracketed(text: string, at: number, open: string, close: string): number {
  let depth = 0
  let i = at
  while (i < text.length) {
    const c = text[i]!
    if (c === '"' || c === "'" || c === '`') {
      i = skipString(text, i)
      continue
    }
    if (c === open) depth++
    else if (c === close && --depth === 0) return i + 1
    i++
  }
  return text.length
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (/\s/.test(c)) {
      i++
    } else if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++
    } else if (c === '"' || c === "'" || c === '`') {
      const end = skipString(text, i)
      tokens.push({ kind: 'other', start: i, end })
      i = end
    } else if (/[A-Za-z_:]/.test(c)) {
      let end = i + 1
      while (end < text.length && /[A-Za-z0-9_:]/.test(text[end]!)) end++
      tokens.push({ kind: 'ident', start: i, end })
      i = end
    } else if (/[0-9.]/.test(c)) {
      let end = i + 1
      while (end < text.length && (/[0-9A-Za-z_.]/.test(text[end]!) || (/[+-]/.test(text[end]!) && /[eE]/.test(text[end - 1]!)))) end++
      tokens.push({ kind: 'other', start: i, end })
      i = end
    } else if (c === '{') {
      const end = skipBracketed(text, i, '{', '}')
      tokens.push({ kind: 'braces', start: i, end })
      i = end
    } else if (c === '[') {
      const end = skipBracketed(text, i, '[', ']')
      tokens.push({ kind: 'other', start: i, end })
      i = end
    } else {
      tokens.push({ kind: 'other', start: i, end: i + 1 })
      i++
    }
  }
  return tokens
}

/** The expression with `label="value"` required of every selector. */
export function scopePromql(expression: string, label: string, value: string): string {
  const matcher = `${label}=${JSON.stringify(value)}`
  const tokens = tokenize(expression)
  const inserts: { at: number; text: string }[] = []
  const textOf = (t: Token | undefined) => (t ? expression.slice(t.start, t.end) : '')
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k]!
    const next = tokens[k + 1]
    if (token.kind === 'braces') {
      // A selector without a metric name (one with a name is handled with its name, below).
      const inner = expression.slice(token.start + 1, token.end - 1)
      inserts.push({ at: token.start + 1, text: inner.trim() === '' ? matcher : `${matcher},` })
      continue
    }
    if (token.kind !== 'ident') continue
    const word = textOf(token)
    const lower = word.toLowerCase()
    if (LABEL_LIST_KEYWORDS.has(lower) && textOf(next) === '(') {
      // A list of label names: skip to its closing parenthesis.
      let depth = 0
      while (++k < tokens.length) {
        const t = textOf(tokens[k])
        if (t === '(') depth++
        else if (t === ')' && --depth === 0) break
      }
      continue
    }
    if (KEYWORDS.has(lower)) continue
    if (textOf(next) === '(') continue
    if (AGGREGATIONS.has(lower) && (textOf(next) === 'by' || textOf(next) === 'without')) continue
    if (next?.kind === 'braces') {
      const inner = expression.slice(next.start + 1, next.end - 1)
      inserts.push({ at: next.start + 1, text: inner.trim() === '' ? matcher : `${matcher},` })
      k++
    } else {
      inserts.push({ at: token.end, text: `{${matcher}}` })
    }
  }
  let scoped = expression
  for (const insert of inserts.sort((a, b) => b.at - a.at)) scoped = scoped.slice(0, insert.at) + insert.text + scoped.slice(insert.at)
  return scoped
}
