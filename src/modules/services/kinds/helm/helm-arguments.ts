// Extra helm arguments reach helm as argv items, never through a shell. Only flags known to act on
// the release itself are let through: any other flag could leave the service's sandbox (another
// cluster or identity, a program run on the runner, files of the runner read into the release or
// written by helm, another namespace).

/** helm upgrade --install flags that only shape the release; values are checked separately. */
const ALLOWED_FLAGS = new Set([
  '--atomic',
  '--cleanup-on-fail',
  '--debug',
  '--dependency-update',
  '--description',
  '--devel',
  '--disable-openapi-validation',
  '--enable-dns',
  '--force',
  '--force-replace',
  '--history-max',
  '--labels',
  '--no-hooks',
  '--render-subchart-notes',
  '--reset-then-reuse-values',
  '--reset-values',
  '--reuse-values',
  '--rollback-on-failure',
  '--set',
  '--set-json',
  '--set-literal',
  '--set-string',
  '--skip-crds',
  '--skip-schema-validation',
  '--take-ownership',
  '--timeout',
  '--wait',
  '--wait-for-jobs',
])

const NAMESPACE_FLAGS = new Set(['--namespace', '-n'])

/** Why some refused flags are refused, for the message; the rest are simply not on the list. */
const REASONS: [RegExp, string][] = [
  [/^--kubeconfig$/, 'it would point helm at another cluster'],
  [/^--kube-/, 'it would change the cluster, identity or credentials helm uses'],
  [/^--post-renderer/, 'it would run a program on the deployment runner'],
  [/^(--values|-f|--set-file)$/, 'it would read a file of the deployment runner; use values_override instead'],
  [/^(--log-|--repository-|--registry-)/, 'it would read or write files of the deployment runner'],
]

// helm's shorthands that take a value: in `-nfoo` the rest of the word is the value.
const VALUE_SHORTHANDS = new Set(['n', 'f', 'o'])

/** The flags one argument word names: `--kube-context=x` → `--kube-context`; `-in` → `-i`, `-n`. */
function flagsOf(word: string): string[] {
  if (word.startsWith('--')) return [word.split('=', 1)[0]!]
  if (!/^-[^-]/.test(word)) return []
  const flags: string[] = []
  for (const letter of word.slice(1)) {
    flags.push(`-${letter}`)
    if (VALUE_SHORTHANDS.has(letter)) break
  }
  return flags
}

function refusal(flag: string, allowClusterWideResources: boolean): string | undefined {
  if (NAMESPACE_FLAGS.has(flag)) {
    return allowClusterWideResources
      ? undefined
      : `"${flag}" is not allowed unless allow_cluster_wide_resources is true: the chart is installed in the environment's namespace`
  }
  if (ALLOWED_FLAGS.has(flag)) return undefined
  const reason = REASONS.find(([pattern]) => pattern.test(flag))?.[1]
  return reason ? `"${flag}" is not allowed: ${reason}` : `"${flag}" is not among the helm flags Berth passes on (${[...ALLOWED_FLAGS].join(', ')})`
}

/**
 * Why an argument may not be passed to helm, or undefined when it may. An argument holding several
 * words (`"--timeout 10m"`, as some clients send a flag and its value) is checked word by word.
 * A word that does not start with `-` is a value (of `--set`, say) and may be anything.
 */
export function refusedHelmArgument(argument: string, allowClusterWideResources: boolean): string | undefined {
  for (const word of argument.trim().split(/\s+/)) {
    for (const flag of flagsOf(word)) {
      const refused = refusal(flag, allowClusterWideResources)
      if (refused) return refused
    }
  }
  return undefined
}
