import type { KindWorkload, NextStep, Step, StepsWorkload, Workload } from '#src/modules/executors/workload.ts'
import type { IacConfig } from './iac.types.ts'
import { engineCommands, lockIdOf, stateSchema } from './iac-commands.ts'
import { type IacDeployOverrides, type IacRun, iacRunOf } from './iac-deployments.ts'
import { engineProgram } from './iac-engines.ts'
import { RESOURCES_OUTPUT, resourcesOfShown } from './iac-resources.ts'
import { nothingToRun, runImage, runParts } from './iac-runs.ts'

// What an IAC run is on Docker (docs/iac.md, "Runs"): the engine's commands, each a container of
// the run's image sharing the service's volume as its data directory, the next chosen by how the
// last ended: init, then plan and apply (apply only when the plan changes something, then show for
// the resources), plan only, destroy, force-unlock, or init -migrate-state.

/** Whether a PostgreSQL URL's host is this machine's loopback: a container reaches it only on the host's network. */
function onLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname
    return host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.')
  } catch {
    return false
  }
}

const FAILED: NextStep = { failed: true }
const OK: NextStep = { done: { ok: true } }
const step = (name: string, args: string[], capture = false): NextStep => ({ run: { name, args, ...(capture ? { capture } : {}) } })

/** The commands of a run of `run`, each chosen by how the one before ended. */
function commandsOf(config: IacConfig, run: Exclude<IacRun, 'NONE'>, backendConfig: string[]): Pick<StepsWorkload, 'first' | 'next'> {
  const commands = engineCommands(config)
  const show = step('show', commands.show(), true)
  const shown = (result: { code: number; stdout: string }): NextStep => {
    if (result.code !== 0) return FAILED
    try {
      const resources = resourcesOfShown(result.stdout, new Date().toISOString())
      return {
        done: { ok: true, details: { resource_count: resources.length }, output: { [RESOURCES_OUTPUT]: resources } },
        say: { step: 'show', message: `the state holds ${resources.length} resource(s)` },
      }
    } catch (error) {
      return { done: { ok: false, message: `${engineProgram(config.engine)} show -json printed no state: ${(error as Error).message}` } }
    }
  }
  /** The plan that forced unlocking starts with: the engine names the lock it cannot take. */
  const lockProbe = (result: { code: number; lines: string[] }): NextStep => {
    const lockId = result.code === 1 ? lockIdOf(result.lines) : undefined
    if (lockId) return step('force-unlock', commands.forceUnlock(lockId))
    return result.code === 1
      ? { ...FAILED, say: { step: 'force-unlock', message: 'the plan failed, naming no lock: nothing to unlock' } }
      : { ...OK, say: { step: 'force-unlock', message: 'the state is not locked: nothing to unlock' } }
  }
  const planned = (result: { code: number }): NextStep => {
    if (result.code !== 0 && result.code !== 2) return FAILED
    if (run === 'PLAN_ONLY')
      return { ...OK, say: { step: 'plan', message: result.code === 2 ? 'plan only: the changes above are not applied' : 'plan only: no changes' } }
    return result.code === 2 ? step('apply', commands.apply()) : { ...show, say: { step: 'apply', message: 'no changes: nothing to apply' } }
  }
  return {
    first: step('init', commands.init({ backendConfig, migrateState: run === 'MIGRATE_STATE' })),
    next({ name, args }: Step, result) {
      if (args[0] === 'init') {
        if (result.code !== 0) return FAILED
        if (run === 'MIGRATE_STATE') return OK
        if (run === 'FORCE_UNLOCK') return step('force-unlock', commands.plan({ lockTimeout: '0s' }))
        if (run === 'DESTROY') return step('destroy', commands.destroy())
        return step('plan', commands.plan({}))
      }
      if (name === 'force-unlock') return args[0] === 'plan' ? lockProbe(result) : result.code === 0 ? OK : FAILED
      if (args[0] === 'destroy')
        return result.code === 0 ? { done: { ok: true, details: { resource_count: 0 }, output: { [RESOURCES_OUTPUT]: [] } } } : FAILED
      if (args[0] === 'plan') return planned(result)
      if (args[0] === 'apply') return result.code === 0 ? show : FAILED
      return shown(result)
    },
  }
}

/** The Docker executor's IAC runs. */
export const iacDocker: KindWorkload<IacConfig> = {
  secretValues: (snapshot, openSecret) => snapshot.configuration.tfVars.flatMap((variable) => (variable.secret ? [openSecret(variable.sealed)] : [])),
  describe({ serviceId, configuration: config, overrides }, { action, settings, openSecret }): Workload {
    const given = overrides as IacDeployOverrides
    // A dry run is a plan: what a deploy would change, changing nothing.
    const run = iacRunOf(action === 'DEPLOY_DRY_RUN' ? { ...given, action: 'PLAN' } : given, action)
    const kubernetesBackend = 'kubernetes' in config.backend
    const base = {
      ...runParts(config, openSecret, 'pg'),
      // The state store's password is no secret variable, but the logs must not show it either.
      masked: kubernetesBackend && settings.iacStateUrl ? [decodeURIComponent(new URL(settings.iacStateUrl).password)].filter(Boolean) : [],
      hostNetwork: kubernetesBackend && onLoopback(settings.iacStateUrl),
    }
    if (run === 'NONE') {
      const done = { ok: true as const, ...(action === 'STOP' ? {} : { output: { [RESOURCES_OUTPUT]: [] } }) }
      return { ...base, image: null, first: { done, say: nothingToRun(action) }, next: () => OK }
    }
    const image = runImage(config, given, action, settings.iacImages)
    if ('refused' in image) return { type: 'refused', message: image.refused }
    if (kubernetesBackend && !settings.iacStateUrl)
      return { type: 'refused', message: "the kubernetes backend keeps state in Berth's PostgreSQL: set BERTH_IAC_STATE_URL (or DATABASE_URL)" }
    const backendConfig = kubernetesBackend ? [`conn_str=${settings.iacStateUrl}`, `schema_name=${stateSchema(serviceId)}`] : []
    return { ...base, image: image.image, ...commandsOf(config, run, backendConfig) }
  },
}
