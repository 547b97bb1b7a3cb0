// What checkDockerfile reads of a Dockerfile: the ARGs it declares and the image repositories its
// FROM lines name. Line continuations are joined, comments and parser directives skipped; a FROM of
// an earlier stage (`FROM build`) or of `scratch` names no repository; `--platform=…` is skipped.

export interface DockerfileFacts {
  args: string[]
  repositories: string[]
}

/** The image reference without its tag or digest: `docker.io/library/node:20@sha256:…` → `docker.io/library/node`. */
export function repositoryOf(image: string): string {
  const withoutDigest = image.split('@')[0]!
  const lastSlash = withoutDigest.lastIndexOf('/')
  const colon = withoutDigest.lastIndexOf(':')
  return colon > lastSlash ? withoutDigest.slice(0, colon) : withoutDigest
}

export function dockerfileFacts(text: string): DockerfileFacts {
  const instructions = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
  const args: string[] = []
  const repositories: string[] = []
  const stages = new Set<string>()
  for (const line of instructions) {
    const [keyword = '', ...words] = line.split(/\s+/)
    const upper = keyword.toUpperCase()
    if (upper === 'ARG') {
      for (const word of words) {
        const name = word.split('=')[0]!
        if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !args.includes(name)) args.push(name)
      }
    } else if (upper === 'FROM') {
      const operands = words.filter((word) => !word.startsWith('--'))
      const image = operands[0]
      const fromStage = image !== undefined && stages.has(image.toLowerCase())
      if (operands[1]?.toUpperCase() === 'AS' && operands[2]) stages.add(operands[2].toLowerCase())
      if (!image || fromStage || image.toLowerCase() === 'scratch') continue
      const repository = repositoryOf(image)
      if (!repositories.includes(repository)) repositories.push(repository)
    }
  }
  return { args, repositories }
}
