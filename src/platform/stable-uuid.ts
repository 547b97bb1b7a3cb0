import { createHash } from 'node:crypto'

/** A UUID (version 5's layout, SHA-256 of `seed`) that names the same thing every time: for what Berth does not store but the wire gives an id. */
export function stableUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((Number.parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}
