// The spec Prism mocks, made loadable: the upstream subset keeps a few `$ref`s into paths it leaves
// out, and Prism refuses a document with a dangling reference. Those references alone are dropped,
// in a copy; the routes the benchmark calls are untouched.
import { readFileSync, writeFileSync } from 'node:fs'

const PATH_REF = /^\s*- \$ref: '#\/paths\/([^/']+)\/[^']*'\s*$/

/** Writes the loadable copy of `specFile` to `copyFile`; returns the references it dropped. */
export function writeLoadableSpec(specFile: string, copyFile: string): string[] {
  const text = readFileSync(specFile, 'utf8')
  const dropped: string[] = []
  const lines = text.split('\n').filter((line) => {
    const match = PATH_REF.exec(line)
    if (!match) return true
    const target = decodeURIComponent(match[1]!.replaceAll('~1', '/').replaceAll('~0', '~'))
    if (text.includes(`\n  ${target}:\n`)) return true
    dropped.push(line.trim())
    return false
  })
  writeFileSync(copyFile, lines.join('\n'))
  return dropped
}
