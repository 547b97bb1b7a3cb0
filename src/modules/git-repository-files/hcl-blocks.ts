// Just enough of HCL's native syntax to read Terraform's `variable` blocks and a tfvars file's
// assignments: comments, quoted strings with escapes and `${…}`, heredocs, and bracket nesting, so
// that an attribute's expression is taken whole, as its source text. Nothing is evaluated.

export interface HclAttribute {
  name: string
  /** The expression as written, trimmed. */
  expression: string
}

export interface HclBlock {
  type: string
  labels: string[]
  attributes: HclAttribute[]
}

export interface HclBody {
  attributes: HclAttribute[]
  blocks: HclBlock[]
}

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_-]*/y

/** Reads a body (a file, or a block's inside up to its closing brace). Throws on what it cannot read. */
export function parseHclBody(text: string): HclBody {
  return new Reader(text).body(false)
}

class Reader {
  private at = 0
  constructor(private readonly text: string) {}

  body(inBlock: boolean): HclBody {
    const attributes: HclAttribute[] = []
    const blocks: HclBlock[] = []
    for (;;) {
      this.skipSpaceAndComments(true)
      if (this.at >= this.text.length) {
        if (inBlock) throw new Error('a block is not closed')
        return { attributes, blocks }
      }
      if (this.text[this.at] === '}') {
        if (!inBlock) throw new Error(`an unexpected } at offset ${this.at}`)
        this.at++
        return { attributes, blocks }
      }
      const name = this.identifier()
      this.skipSpaceAndComments(false)
      if (this.text[this.at] === '=') {
        this.at++
        attributes.push({ name, expression: this.expression() })
        continue
      }
      const labels: string[] = []
      for (;;) {
        this.skipSpaceAndComments(false)
        const char = this.text[this.at]
        if (char === '"') labels.push(JSON.parse(this.quoted()) as string)
        else if (char === '{') break
        else labels.push(this.identifier())
      }
      this.at++
      const inner = this.body(true)
      blocks.push({ type: name, labels, attributes: inner.attributes })
    }
  }

  private identifier(): string {
    IDENTIFIER.lastIndex = this.at
    const match = IDENTIFIER.exec(this.text)
    if (!match) throw new Error(`a name was expected at offset ${this.at}`)
    this.at += match[0].length
    return match[0]
  }

  /** An attribute's expression: up to the end of its line outside brackets, strings and heredocs. */
  private expression(): string {
    const start = this.at
    let depth = 0
    while (this.at < this.text.length) {
      const char = this.text[this.at]!
      if (char === '"') this.quoted()
      else if (char === '<' && this.text.startsWith('<<', this.at)) this.heredoc()
      else if (char === '#' || (char === '/' && this.text[this.at + 1] === '/')) {
        // A line comment ends the expression; inside brackets it is skipped.
        if (depth === 0) break
        while (this.at < this.text.length && this.text[this.at] !== '\n') this.at++
      } else if (char === '/' && this.text[this.at + 1] === '*') {
        const end = this.text.indexOf('*/', this.at + 2)
        if (end < 0) throw new Error('a comment is not closed')
        this.at = end + 2
      } else if (char === '(' || char === '[' || char === '{') {
        depth++
        this.at++
      } else if (char === ')' || char === ']' || char === '}') {
        if (depth === 0) break
        depth--
        this.at++
      } else if (char === '\n' && depth === 0) break
      else this.at++
    }
    return this.text.slice(start, this.at).trim()
  }

  /** A quoted string, escapes and `${…}` included; returns its source text. */
  private quoted(): string {
    const start = this.at
    this.at++
    while (this.at < this.text.length) {
      const char = this.text[this.at]!
      if (char === '\\') this.at += 2
      else if (char === '"') {
        this.at++
        return this.text.slice(start, this.at)
      } else if (char === '\n') throw new Error(`a string is not closed on its line at offset ${start}`)
      else this.at++
    }
    throw new Error('a string is not closed')
  }

  private heredoc(): void {
    const match = /<<-?([A-Za-z_][A-Za-z0-9_]*)\r?\n/y
    match.lastIndex = this.at
    const found = match.exec(this.text)
    if (!found) {
      this.at += 2
      return
    }
    const end = new RegExp(`^[ \\t]*${found[1]}[ \\t]*$`, 'm')
    const rest = this.text.slice(this.at + found[0].length)
    const closing = end.exec(rest)
    if (!closing) throw new Error(`the heredoc ${found[1]} is not closed`)
    this.at += found[0].length + closing.index + closing[0].length
  }

  private skipSpaceAndComments(newlines: boolean): void {
    while (this.at < this.text.length) {
      const char = this.text[this.at]!
      if (char === ' ' || char === '\t' || char === '\r' || (newlines && char === '\n')) this.at++
      else if (char === '#' || (char === '/' && this.text[this.at + 1] === '/')) {
        while (this.at < this.text.length && this.text[this.at] !== '\n') this.at++
      } else if (char === '/' && this.text[this.at + 1] === '*') {
        const end = this.text.indexOf('*/', this.at + 2)
        if (end < 0) throw new Error('a comment is not closed')
        this.at = end + 2
      } else return
    }
  }
}

/** The value of an expression as text: a quoted string's contents unescaped, a heredoc's text, else the expression as written. */
export function expressionText(expression: string): string {
  if (/^"(?:[^"\\]|\\.)*"$/s.test(expression) && !expression.includes('${')) {
    try {
      return JSON.parse(expression) as string
    } catch {
      return expression.slice(1, -1)
    }
  }
  const heredoc = /^<<(-?)([A-Za-z_][A-Za-z0-9_]*)\r?\n([\s\S]*?)\r?\n[ \t]*\2[ \t]*$/.exec(expression)
  if (heredoc) {
    const lines = heredoc[3]!.split('\n')
    if (heredoc[1] !== '-') return heredoc[3]!
    const indent = Math.min(...lines.filter((line) => line.trim()).map((line) => /^[ \t]*/.exec(line)![0].length))
    return lines.map((line) => line.slice(indent)).join('\n')
  }
  return expression
}
