// Terraform's native syntax (HCL) for the values an export writes: strings escaped so that nothing
// in them is read as an interpolation (`${` and `%{` doubled), numbers, booleans, lists, objects,
// and expressions given as such (`qovery_environment.main.id`, `var.secret_x`).

/** An expression written as it is, not quoted. */
export class HclExpression {
  constructor(readonly text: string) {}
}

export const expression = (text: string) => new HclExpression(text)

export type HclValue = string | number | boolean | null | HclExpression | HclValue[] | { [key: string]: HclValue | undefined }

export function hclString(text: string): string {
  const escaped = text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(/\$\{/g, () => '$${')
    .replace(/%\{/g, () => '%%{')
  return `"${escaped}"`
}

/** An attribute name or object key: bare when an identifier, quoted otherwise. */
const key = (name: string) => (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name) ? name : hclString(name))

export function hclValue(value: HclValue, indent = ''): string {
  if (value === null) return 'null'
  if (value instanceof HclExpression) return value.text
  if (typeof value === 'string') return hclString(value)
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  const inner = `${indent}  `
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    return `[\n${value.map((item) => `${inner}${hclValue(item, inner)},`).join('\n')}\n${indent}]`
  }
  const entries = Object.entries(value).filter((entry): entry is [string, HclValue] => entry[1] !== undefined)
  if (entries.length === 0) return '{}'
  return `{\n${entries.map(([name, item]) => `${inner}${key(name)} = ${hclValue(item, inner)}`).join('\n')}\n${indent}}`
}

/** A block: `type "label" "label" { attributes }`; undefined attributes are left out. */
export function hclBlock(type: string, labels: string[], attributes: Record<string, HclValue | undefined>): string {
  const lines = Object.entries(attributes)
    .filter((entry): entry is [string, HclValue] => entry[1] !== undefined)
    .map(([name, value]) => `  ${name} = ${hclValue(value, '  ')}`)
  return `${type} ${labels.map(hclString).join(' ')} {\n${lines.join('\n')}\n}\n`
}

/** A resource or variable name Terraform takes: letters, digits, `_` and `-`, not starting with a digit. */
export function hclName(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
  return /^[a-z_]/.test(name) ? name : `_${name}`
}
