import path from 'node:path'
import type { IacConfig } from './iac.types.ts'

// The engine's command lines of an IAC run (docs/iac.md, "Runs"), as the CLI documents them: each
// command with its `action_extra_arguments` right after its name, then Berth's own options.

/** Where the repository's files are in the run's image (its WORKDIR). */
export const WORKDIR = '/berth/iac'
/** Where the engine's data directory (TF_DATA_DIR) and the saved plan are kept: the service's volume. */
export const DATA_DIR = '/berth/data'
export const PLAN_FILE = `${DATA_DIR}/plan.tfplan`
/** The override file that gives a `kubernetes` backend the engine's `type` backend (a *_override.tf replaces the repository's backend block). */
export const backendOverride = (type: 'http' | 'kubernetes') => ({
  path: `${WORKDIR}/berth_backend_override.tf`,
  content: `terraform {\n  backend "${type}" {}\n}\n`,
})

const extra = (config: Pick<IacConfig, 'actionExtraArguments'>, command: string) => config.actionExtraArguments[command] ?? []

/** `-var-file=` for each of the service's tfvars files, relative to its root path (a leading / names the root path). */
export const varFileArguments = (config: Pick<IacConfig, 'tfVarFilePaths'>) =>
  config.tfVarFilePaths.map((file) => `-var-file=${path.posix.normalize(file.replace(/^\/+/, ''))}`)

export interface Commands {
  /** `reconfigure`: the backend's configuration is Berth's, an earlier one is replaced (-reconfigure). */
  init(options: { reconfigure: boolean; migrateState: boolean; backendConfig?: string[] }): string[]
  /** `detailedExitcode` false: exit 0 whatever the plan holds (a step of a Kubernetes Job, which any other code fails). */
  plan(options: { lockTimeout?: string; detailedExitcode?: boolean }): string[]
  apply(): string[]
  destroy(): string[]
  forceUnlock(lockId: string): string[]
  show(): string[]
}

/** The argument vectors of the service's commands. */
export function engineCommands(config: Pick<IacConfig, 'actionExtraArguments' | 'tfVarFilePaths'>): Commands {
  const common = ['-input=false', '-no-color']
  return {
    init: ({ reconfigure, migrateState, backendConfig = [] }) => [
      'init',
      ...extra(config, 'init'),
      ...common,
      ...(migrateState ? ['-migrate-state', '-force-copy'] : reconfigure ? ['-reconfigure'] : []),
      ...backendConfig.map((pair) => `-backend-config=${pair}`),
    ],
    plan: ({ lockTimeout, detailedExitcode = true }) => [
      'plan',
      ...extra(config, 'plan'),
      ...common,
      ...(detailedExitcode ? ['-detailed-exitcode'] : []),
      ...(lockTimeout ? [`-lock-timeout=${lockTimeout}`] : [`-out=${PLAN_FILE}`]),
      ...varFileArguments(config),
    ],
    apply: () => ['apply', ...extra(config, 'apply'), ...common, PLAN_FILE],
    destroy: () => ['destroy', ...extra(config, 'destroy'), ...common, '-auto-approve', ...varFileArguments(config)],
    forceUnlock: (lockId) => ['force-unlock', ...extra(config, 'force-unlock'), '-force', lockId],
    show: () => ['show', ...extra(config, 'show'), '-json'],
  }
}

/** The lock id an engine names when it cannot take the state's lock ("Lock Info: ID: …"); undefined when it names none. */
export function lockIdOf(lines: readonly string[]): string | undefined {
  for (const line of lines) {
    const match = /^\s*ID:\s+(\S+)\s*$/.exec(line)
    if (match) return match[1]
  }
  return undefined
}
