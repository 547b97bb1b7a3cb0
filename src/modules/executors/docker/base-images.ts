import type Docker from 'dockerode'
import { refusedHostAdvice, resolveHost } from '#src/modules/git-providers/address-guard.ts'
import { hasImage, pullHost } from './images.ts'

// The images a Dockerfile makes the engine pull (its FROM lines, COPY --from and RUN --mount
// from= naming an image rather than a stage), so that a build goes through the same address guard
// as a pull: otherwise `FROM 10.0.0.5:5000/x` or `FROM 169.254.169.254/x` would have the engine
// connect into the server's own network.

/** `${NAME}`, `${NAME:-default}`, `${NAME:+alt}` and `$NAME` replaced from `args`; unknown names become empty, as the engine does. */
function substitute(text: string, args: Map<string, string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, braced, op, word, bare) => {
    const value = args.get(braced ?? bare)
    if (op === '-') return value ? value : word
    if (op === '+') return value ? word : ''
    return value ?? ''
  })
}

/** The Dockerfile's instructions: continuation lines joined, comments and blank lines left out. */
function instructions(dockerfile: string): string[] {
  const joined: string[] = []
  let current = ''
  for (const raw of dockerfile.split(/\r?\n/)) {
    const line = raw.trim()
    if (current === '' && (line === '' || line.startsWith('#'))) continue
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `
      continue
    }
    joined.push((current + line).trim())
    current = ''
  }
  if (current.trim() !== '') joined.push(current.trim())
  return joined
}

/** `KEY=value` or `KEY` of an ARG instruction, quotes removed. */
function argDefault(rest: string): [string, string] | undefined {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$/.exec(rest.trim())
  if (!match) return undefined
  return [match[1]!, (match[2] ?? '').replace(/^(["'])(.*)\1$/, '$2')]
}

/** The images `dockerfile` makes the engine pull, each once, in order; stage names and `scratch` are not images. */
export function baseImages(dockerfile: string): string[] {
  const args = new Map<string, string>()
  const stages = new Set<string>()
  const images: string[] = []
  let seenFrom = false
  const image = (reference: string) => {
    const ref = reference.trim()
    if (ref === '' || ref.toLowerCase() === 'scratch' || stages.has(ref.toLowerCase()) || /^\d+$/.test(ref)) return
    if (!images.includes(ref)) images.push(ref)
  }
  for (const instruction of instructions(dockerfile)) {
    const [keyword = '', ...words] = instruction.split(/\s+/)
    const upper = keyword.toUpperCase()
    if (upper === 'ARG' && !seenFrom) {
      const pair = argDefault(words.join(' '))
      if (pair) args.set(pair[0], pair[1])
    } else if (upper === 'FROM') {
      seenFrom = true
      const operands = words.filter((word) => !word.startsWith('--'))
      image(substitute(operands[0] ?? '', args))
      if (operands[1]?.toUpperCase() === 'AS' && operands[2]) stages.add(operands[2].toLowerCase())
    } else if (upper === 'COPY' || upper === 'ADD') {
      for (const word of words) if (word.startsWith('--from=')) image(word.slice('--from='.length))
    } else if (upper === 'RUN') {
      for (const word of words) {
        if (!word.startsWith('--mount=')) continue
        const from = /(?:^|,)from=([^,]+)/.exec(word.slice('--mount='.length))
        if (from) image(from[1]!)
      }
    }
  }
  return images
}

/**
 * Why the engine must not build `dockerfile`: an image it would pull from a loopback, private,
 * link-local or metadata address, or whose name it cannot tell; undefined when every image is
 * present or comes from a public registry.
 */
export async function refusedBaseImage(docker: Docker, dockerfile: string): Promise<string | undefined> {
  for (const reference of baseImages(dockerfile)) {
    if (reference.includes('$')) return `the Dockerfile's image ${reference} names a variable Berth cannot resolve before the build`
    if (await hasImage(docker, reference)) continue
    const check = await resolveHost(pullHost(reference))
    if (!check.ok) {
      return `the Dockerfile's image ${reference} would be pulled from ${pullHost(reference)}: ${check.reason}; ${refusedHostAdvice(check, 'registries')}`
    }
  }
  return undefined
}
