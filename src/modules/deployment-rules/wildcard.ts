// A rule's `wildcard`: `*` is any run of characters, `?` one character, everything else itself,
// compared case insensitively (environment names are). An empty pattern matches no name.

/** Whether `name` matches `pattern` as a whole. */
export function wildcardMatches(pattern: string, name: string): boolean {
  if (pattern === '') return false
  const p = [...pattern.toLowerCase()]
  const n = [...name.toLowerCase()]
  // Greedy matching with one backtrack point: linear in practice, never exponential.
  let pi = 0
  let ni = 0
  let star = -1
  let resume = 0
  while (ni < n.length) {
    if (pi < p.length && (p[pi] === '?' || p[pi] === n[ni])) {
      pi++
      ni++
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++
      resume = ni
    } else if (star !== -1) {
      pi = star + 1
      ni = ++resume
    } else return false
  }
  while (pi < p.length && p[pi] === '*') pi++
  return pi === p.length
}
