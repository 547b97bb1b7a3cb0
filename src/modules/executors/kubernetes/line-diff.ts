// A unified diff of two texts, line by line, as `diff -u` prints it, for what a dry run shows of an
// object the chart would change. No diff library is among the dependencies; rendered objects are
// a few hundred lines at most, so a longest-common-subsequence table does, up to a bound.

/** The most cells (lines before × lines after) the table may have: past it, the whole text is shown replaced. */
const MAX_CELLS = 4_000_000

/** Lines of context around each change. */
const CONTEXT = 3

type Edit = { op: ' ' | '-' | '+'; line: string; before: number; after: number }

/** The edits turning `before` into `after`: kept, removed and added lines, in order. */
function edits(before: string[], after: string[]): Edit[] {
  const n = before.length
  const m = after.length
  if (n * m > MAX_CELLS) {
    return [
      ...before.map((line, i): Edit => ({ op: '-', line, before: i, after: 0 })),
      ...after.map((line, j): Edit => ({ op: '+', line, before: n, after: j })),
    ]
  }
  // common[i][j]: the length of the longest common subsequence of before[i..] and after[j..].
  const width = m + 1
  const common = new Uint32Array((n + 1) * width)
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      common[i * width + j] =
        before[i] === after[j] ? common[(i + 1) * width + j + 1]! + 1 : Math.max(common[(i + 1) * width + j]!, common[i * width + j + 1]!)
  const out: Edit[] = []
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) out.push({ op: ' ', line: before[i]!, before: i++, after: j++ })
    // Removals before additions, as `diff -u` prints them.
    else if (i < n && (j === m || common[(i + 1) * width + j]! >= common[i * width + j + 1]!))
      out.push({ op: '-', line: before[i]!, before: i++, after: j })
    else out.push({ op: '+', line: after[j]!, before: i, after: j++ })
  }
  return out
}

/** `@@ -a,b +c,d @@`: where a hunk starts (1-based) and how many lines it spans on each side (`,1` left out). */
function hunkHeader(hunk: Edit[]): string {
  const span = (side: 'before' | 'after', skipped: '+' | '-') => {
    const lines = hunk.filter((edit) => edit.op !== skipped)
    const start = lines.length === 0 ? hunk[0]![side] : lines[0]![side] + 1
    // As diff prints it: a span of one line is its number alone.
    return lines.length === 1 ? `${start}` : `${start},${lines.length}`
  }
  return `@@ -${span('before', '+')} +${span('after', '-')} @@`
}

/**
 * The unified diff of `before` and `after` (named `beforeName`, `afterName`), a line each: the two
 * names, then each hunk's header and lines; empty when the texts are the same.
 */
export function unifiedDiff(before: string, after: string, beforeName: string, afterName: string): string[] {
  const all = edits(before === '' ? [] : before.split('\n'), after === '' ? [] : after.split('\n'))
  const changed = all.flatMap((edit, index) => (edit.op === ' ' ? [] : [index]))
  if (changed.length === 0) return []
  const lines = [`--- ${beforeName}`, `+++ ${afterName}`]
  let at = 0
  while (at < changed.length) {
    const start = Math.max(0, changed[at]! - CONTEXT)
    let end = changed[at]!
    // A change at most twice the context after the last one joins its hunk (their contexts would touch).
    while (at + 1 < changed.length && changed[at + 1]! - end - 1 <= 2 * CONTEXT) end = changed[++at]!
    at++
    const hunk = all.slice(start, Math.min(all.length, end + CONTEXT + 1))
    lines.push(hunkHeader(hunk), ...hunk.map((edit) => `${edit.op}${edit.line}`))
  }
  return lines
}
