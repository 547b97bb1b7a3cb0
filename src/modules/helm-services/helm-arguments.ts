// Extra helm arguments are passed verbatim, so those that would leave the service's sandbox are
// refused: another cluster or identity, an arbitrary program run on the runner, another namespace.
const ALWAYS_FORBIDDEN: { flag: RegExp; reason: string }[] = [
  { flag: /^--kubeconfig$/, reason: 'it would point helm at another cluster' },
  { flag: /^--kube-[a-z-]+$/, reason: 'it would change the cluster, identity or credentials helm uses' },
  { flag: /^--post-renderer(-args)?$/, reason: 'it would run an arbitrary program on the deployment runner' },
]

const NAMESPACE_FLAGS = new Set(['--namespace', '-n'])
// helm's boolean shorthands (generate-name, install, help): pflag lets them prefix another one.
const BOOLEAN_SHORTHANDS = new Set(['g', 'i', 'h'])

/**
 * The flags one argument word sets: `--kube-context=x` → `--kube-context`; `-in` → `-i`, `-n`
 * (boolean shorthands combine with the next one); `-fvalues.yaml` → `-f` and its value.
 */
function flagsOf(word: string): string[] {
  if (word.startsWith('--')) return [word.split('=', 1)[0]!]
  if (!/^-[A-Za-z]/.test(word)) return []
  const flags: string[] = []
  for (const letter of word.slice(1)) {
    if (!/[A-Za-z]/.test(letter)) break
    flags.push(`-${letter}`)
    if (!BOOLEAN_SHORTHANDS.has(letter)) break
  }
  return flags
}

/**
 * Why an argument may not be passed to helm, or undefined when it may. An argument holding
 * several words (`"--namespace other"`) is checked word by word, as a shell would split it.
 */
export function refusedHelmArgument(argument: string, allowClusterWideResources: boolean): string | undefined {
  for (const word of argument.trim().split(/\s+/)) {
    for (const flag of flagsOf(word)) {
      const forbidden = ALWAYS_FORBIDDEN.find(({ flag: pattern }) => pattern.test(flag))
      if (forbidden) return `"${flag}" is not allowed: ${forbidden.reason}`
      if (!allowClusterWideResources && NAMESPACE_FLAGS.has(flag)) {
        return `"${flag}" is not allowed unless allow_cluster_wide_resources is true: the chart is installed in the environment's namespace`
      }
    }
  }
  return undefined
}
