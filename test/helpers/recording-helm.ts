import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'

// No Kubernetes API server can run here: the executor's BERTH_HELM_PATH points at a wrapper that
// records each call and answers `upgrade` and `uninstall` with success, running the real helm for
// everything else (template, show, pull, …).

/**
 * Writes `<work>/helm-wrapper.sh` around the real `helm` and makes `<work>/calls`: a directory a
 * call, holding its argv (a line an argument) and what `captures` copies there. `captures` is sh
 * run for each argument, `$prev` the one before it, `$a` it and `$call` the call's directory;
 * `answers` are the arms of a `case "$1"` that answer instead of helm.
 */
export function writeRecordingHelm(
  work: string,
  helm: string,
  captures: string,
  answers = '  upgrade|uninstall) echo "Release \\"$3\\" done."; exit 0;;',
): { wrapper: string; callsDir: string } {
  const callsDir = path.join(work, 'calls')
  mkdirSync(callsDir)
  const wrapper = path.join(work, 'helm-wrapper.sh')
  writeFileSync(
    wrapper,
    `#!/bin/sh
# The version the executor asks first is no call of the deployment.
if [ "$1" = "version" ]; then exec "${helm}" "$@"; fi
call="${callsDir}/$(date +%s%N)-$$"
mkdir "$call"
for a in "$@"; do printf '%s\\n' "$a" >> "$call/argv"; done
prev=""
for a in "$@"; do
${captures}
  prev="$a"
done
case "$1" in
${answers}
esac
exec "${helm}" "$@"
`,
  )
  chmodSync(wrapper, 0o755)
  return { wrapper, callsDir }
}
