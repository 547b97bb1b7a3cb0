import { AppError } from '../http/errors.ts'

// The policies of policy API tokens (docs/authentication.md, "Policy API tokens"): Open Policy Agent
// rego rule definitions, of which Berth evaluates a subset, on every request the token makes, before
// the route runs. A policy outside the subset is refused when the token is created, so a token never
// carries rules Berth would read differently from OPA.
//
//   import rego.v1                       (and `import future.keywords…`: ignored)
//   default allow := false               (or true; `=` too)
//   allow := true                        (or `allow = true`, `allow if true`)
//   allow if { <expr>; <expr> … }        (or `allow { … }`, one expression per line or `;`)
//   allow if <expr>
//
// An expression is `[not] <term> == <term>`, `!=`, `<term> in {"a", "b"}` (or `[…]`), or
// `startswith(<term>, <term>)`, `endswith`, `contains`; a term is a JSON string, `true`, `false`,
// or `input.method`, `input.path`, `input.route`, `input.operation_id`, `input.params.<name>`.
// `allow` holds when any rule's expressions all hold (an input field that is absent makes an
// expression fail, and `not` of it hold, as in rego).

export interface PolicyInput {
  method: string
  path: string
  route: string
  operation_id: string | undefined
  params: Record<string, string>
}

type Term = { literal: string | boolean } | { input: string[] }
type Expr =
  | { op: '==' | '!='; left: Term; right: Term; negated: boolean }
  | { op: 'in'; left: Term; set: (string | boolean)[]; negated: boolean }
  | { op: 'startswith' | 'endswith' | 'contains'; left: Term; right: Term; negated: boolean }

export interface Policy {
  defaultAllow: boolean
  rules: Expr[][]
}

const INPUT_FIELDS = new Set(['method', 'path', 'route', 'operation_id'])

class PolicyError extends Error {}

function parseTerm(text: string, line: number): Term {
  const t = text.trim()
  if (t === 'true' || t === 'false') return { literal: t === 'true' }
  if (t.startsWith('"')) {
    try {
      const value = JSON.parse(t) as unknown
      if (typeof value === 'string') return { literal: value }
    } catch {}
    throw new PolicyError(`line ${line}: ${t} is not a string`)
  }
  const path = t.split('.')
  if (path[0] === 'input' && path.length === 2 && INPUT_FIELDS.has(path[1] ?? '')) return { input: [path[1] as string] }
  if (path[0] === 'input' && path[1] === 'params' && path.length === 3 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(path[2] ?? ''))
    return { input: ['params', path[2] as string] }
  throw new PolicyError(
    `line ${line}: "${t}" is not a term Berth reads (input.method, input.path, input.route, input.operation_id, input.params.<name>, a string, true or false)`,
  )
}

/** Splits `a, b` at top-level commas (outside strings). */
function splitArgs(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let inString = false
  let current = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string
    if (inString) {
      current += c
      if (c === '\\') current += text[++i] ?? ''
      else if (c === '"') inString = false
      continue
    }
    if (c === '"') inString = true
    if (c === '(' || c === '[' || c === '{') depth++
    if (c === ')' || c === ']' || c === '}') depth--
    if (c === ',' && depth === 0) {
      parts.push(current)
      current = ''
    } else current += c
  }
  if (current.trim() !== '') parts.push(current)
  return parts
}

function parseExpr(source: string, line: number): Expr {
  let text = source.trim()
  let negated = false
  if (/^not\s/.test(text)) {
    negated = true
    text = text.slice(3).trim()
  }
  const call = /^(startswith|endswith|contains)\((.*)\)$/.exec(text)
  if (call) {
    const args = splitArgs(call[2] ?? '')
    if (args.length !== 2) throw new PolicyError(`line ${line}: ${call[1]} takes two arguments`)
    return { op: call[1] as 'startswith', left: parseTerm(args[0] as string, line), right: parseTerm(args[1] as string, line), negated }
  }
  const membership = /^(.+?)\s+in\s+([[{])(.*)([\]}])$/.exec(text)
  if (membership) {
    const set = splitArgs(membership[3] ?? '').map((item) => {
      const term = parseTerm(item, line)
      if (!('literal' in term)) throw new PolicyError(`line ${line}: a set holds strings, true or false`)
      return term.literal
    })
    return { op: 'in', left: parseTerm(membership[1] as string, line), set, negated }
  }
  const comparison = /^(.+?)\s*(==|!=)\s*(.+)$/.exec(text)
  if (comparison) {
    return { op: comparison[2] as '==', left: parseTerm(comparison[1] as string, line), right: parseTerm(comparison[3] as string, line), negated }
  }
  if (text === 'true') return { op: '==', left: { literal: true }, right: { literal: true }, negated }
  throw new PolicyError(`line ${line}: "${source.trim()}" is not an expression Berth evaluates (==, !=, in, startswith, endswith, contains, not)`)
}

/** Parses a policy, or throws a 400 naming the first line Berth does not read. */
export function parsePolicy(text: string): Policy {
  try {
    return parse(text)
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error
    const message = `${error.message}; see docs/authentication.md, "Policy API tokens", for the rego Berth evaluates`
    throw new AppError('validation_failed', `opa_policy ${message}`, { errors: [{ path: '/opa_policy', message, location: 'body' }] })
  }
}

/** `{` less `}` outside strings: a rule's body line that closes it has one more `}` than `{`. */
function braceBalance(line: string): number {
  let balance = 0
  let inString = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{') balance++
    else if (c === '}') balance--
  }
  return balance
}

const closes = (line: string) => line.endsWith('}') && braceBalance(line) < 0

/** The longest line read: the expression patterns backtrack in the square of a line's length. */
const MAX_LINE = 1000

function parse(text: string): Policy {
  const long = text.split('\n').findIndex((raw) => raw.length > MAX_LINE)
  if (long >= 0) throw new PolicyError(`line ${long + 1}: longer than ${MAX_LINE} characters`)
  const lines = text.split('\n').map((raw) => raw.replace(/(^|\s)#.*$/, '').trim())
  const policy: Policy = { defaultAllow: false, rules: [] }
  let body: { exprs: Expr[]; start: number } | undefined
  let sawAllow = false
  lines.forEach((line, index) => {
    const number = index + 1
    if (line === '') return
    if (body) {
      const closing = closes(line)
      const content = closing ? line.slice(0, -1) : line
      for (const part of content.split(';')) if (part.trim() !== '') body.exprs.push(parseExpr(part, number))
      if (closing) {
        if (body.exprs.length === 0) throw new PolicyError(`line ${body.start}: a rule needs at least one expression`)
        policy.rules.push(body.exprs)
        body = undefined
      }
      return
    }
    if (/^package\s/.test(line)) throw new PolicyError(`line ${number}: no package declaration: each token's policy gets its own`)
    if (/^import\s+(rego\.v1|future\.keywords(\.\w+)?)$/.test(line)) return
    const byDefault = /^default\s+allow\s*(:=|=)\s*(true|false)$/.exec(line)
    if (byDefault) {
      policy.defaultAllow = byDefault[2] === 'true'
      return
    }
    if (/^allow\s*(:=|=)\s*true$/.test(line) || /^allow\s+if\s+true$/.test(line)) {
      sawAllow = true
      policy.rules.push([])
      return
    }
    const opened = /^allow\s*(?:if\s*)?\{(.*)$/.exec(line)
    if (opened) {
      sawAllow = true
      const rest = (opened[1] ?? '').trim()
      body = { exprs: [], start: number }
      if (rest !== '') {
        const closing = closes(rest)
        const content = closing ? rest.slice(0, -1) : rest
        for (const part of content.split(';')) if (part.trim() !== '') body.exprs.push(parseExpr(part, number))
        if (closing) {
          if (body.exprs.length === 0) throw new PolicyError(`line ${number}: a rule needs at least one expression`)
          policy.rules.push(body.exprs)
          body = undefined
        }
      }
      return
    }
    const single = /^allow\s+if\s+(.+)$/.exec(line)
    if (single) {
      sawAllow = true
      policy.rules.push([parseExpr(single[1] as string, number)])
      return
    }
    throw new PolicyError(
      `line ${number}: "${line}" is not a rule Berth evaluates (default allow, allow := true, allow if { … }, allow if <expression>)`,
    )
  })
  if (body) throw new PolicyError(`line ${body.start}: the rule is not closed with }`)
  if (!sawAllow && !policy.defaultAllow) throw new PolicyError('line 1: the policy must define an `allow` rule')
  return policy
}

function termValue(term: Term, input: PolicyInput): string | boolean | undefined {
  if ('literal' in term) return term.literal
  const [first, second] = term.input
  if (first === 'params') return second === undefined ? undefined : input.params[second]
  return input[first as 'method' | 'path' | 'route' | 'operation_id']
}

function holds(expr: Expr, input: PolicyInput): boolean {
  const left = termValue(expr.left, input)
  let result: boolean
  if (left === undefined) result = false
  else if (expr.op === 'in') result = expr.set.includes(left)
  else {
    const right = termValue(expr.right, input)
    if (right === undefined) result = false
    else if (expr.op === '==') result = left === right
    else if (expr.op === '!=') result = left !== right
    else if (typeof left !== 'string' || typeof right !== 'string') result = false
    else if (expr.op === 'startswith') result = left.startsWith(right)
    else if (expr.op === 'endswith') result = left.endsWith(right)
    else result = left.includes(right)
  }
  return expr.negated ? !result : result
}

/** Whether the policy allows the request. */
export function policyAllows(policy: Policy, input: PolicyInput): boolean {
  return policy.defaultAllow || policy.rules.some((rule) => rule.every((expr) => holds(expr, input)))
}

const parsed = new Map<string, Policy>()

/** `policyAllows` of a stored policy text, parsed once per process (at most 1,000 kept). */
export function storedPolicyAllows(text: string, input: PolicyInput): boolean {
  let policy = parsed.get(text)
  if (!policy) {
    policy = parsePolicy(text)
    if (parsed.size >= 1000) parsed.clear()
    parsed.set(text, policy)
  }
  return policyAllows(policy, input)
}
