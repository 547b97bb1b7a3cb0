import { atLeast, type ProgramVersion } from './program-versions.ts'

// The flags each helm version takes for what Berth asks of it (docs/kubernetes-helm-versions.md).
// helm 4 removed `repo update --fail-on-repo-update-fail` (it fails on a failed repository by
// itself), renamed `--atomic` to `--rollback-on-failure` and `--force` to `--force-replace`, and
// applies server-side by default; helm 3 lacks the flags added after 3.12.

export interface HelmDialect {
  version: ProgramVersion
  /** What `helm repo update` takes so that a repository it cannot read fails the command. */
  repoUpdateFlags: string[]
  /** Whether `helm uninstall --ignore-not-found` exists (3.13); without it, "not found" is caught. */
  uninstallIgnoresNotFound: boolean
  /** Whether `helm upgrade --dry-run=server` exists (3.13); without it, a dry run compares what `helm template` renders. */
  serverDryRun: boolean
  /** Why an OCI registry over plain HTTP cannot be pulled from (`--plain-http`, 3.13), or undefined. */
  plainHttpRefused: string | undefined
  /**
   * The arguments `helm upgrade --install` gets beyond Berth's own: the service's extra arguments
   * (and the built-in chart's waits) in this version's words, then how objects are applied; or
   * why one of them cannot be passed to this helm.
   */
  installArguments(extra: string[]): { ok: true; args: string[] } | { ok: false; message: string }
}

/** User flags (helm-arguments.ts lets them through) some supported helm lacks: the first helm 3 that has each. */
const SINCE_HELM_3: Record<string, [number, number]> = {
  '--labels': [3, 13],
  '--reset-then-reuse-values': [3, 14],
  '--skip-schema-validation': [3, 16],
  '--take-ownership': [3, 17],
}

/** Flags helm 4 renamed: the helm 3 name, and helm 4's. */
const RENAMED: [helm3: string, helm4: string][] = [
  ['--atomic', '--rollback-on-failure'],
  ['--force', '--force-replace'],
]

/** `--flag` or `--flag=value` → its flag and its `=value` part (empty when none). */
function splitFlag(word: string): [string, string] {
  const at = word.indexOf('=')
  return at < 0 ? [word, ''] : [word.slice(0, at), word.slice(at)]
}

export function helmDialect(version: ProgramVersion): HelmDialect {
  const helm4 = version.major >= 4
  const since313 = atLeast(version, 3, 13)
  return {
    version,
    repoUpdateFlags: helm4 ? [] : ['--fail-on-repo-update-fail'],
    uninstallIgnoresNotFound: since313,
    serverDryRun: since313,
    plainHttpRefused: since313
      ? undefined
      : `an OCI registry over plain HTTP needs helm 3.13 or newer (--plain-http); this runner has helm ${version.text}`,
    installArguments(extra) {
      const args: string[] = []
      let replaces = false
      for (const word of extra) {
        const [flag, value] = splitFlag(word)
        const renamed = RENAMED.find(([helm3, helm4name]) => flag === helm3 || flag === helm4name)
        if (renamed) {
          args.push(`${helm4 ? renamed[1] : renamed[0]}${value}`)
          if (renamed[0] === '--force' && value !== '=false') replaces = true
          continue
        }
        const since = SINCE_HELM_3[flag]
        if (since && !helm4 && !atLeast(version, since[0], since[1])) {
          return { ok: false, message: `${flag} needs helm ${since.join('.')} or newer; this runner has helm ${version.text}` }
        }
        if (flag === '--wait' && value !== '' && !helm4 && !['=true', '=false'].includes(value)) {
          return { ok: false, message: `${word} (a wait strategy) needs helm 4; this runner has helm ${version.text}` }
        }
        args.push(word)
      }
      // helm 4 applies server-side, and a field another manager changed since (`kubectl scale` of a
      // stopped release) would fail the upgrade: the chart's values win, as with helm 3. A release
      // replaced (--force-replace) is applied client-side, which helm 4 requires for a replacement.
      if (helm4) args.push(...(replaces ? ['--server-side=false'] : ['--server-side=true', '--force-conflicts']))
      return { ok: true, args }
    },
  }
}
