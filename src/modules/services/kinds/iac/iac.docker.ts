import type { KindWorkload, NextStep, Step, StepsWorkload, Workload } from '#src/modules/executors/workload.ts'
import { secretMask } from '#src/platform/secrets/secret-masking.ts'
import type { IacConfig } from './iac.types.ts'
import { engineCommands, lockIdOf } from './iac-commands.ts'
import { type IacDeployOverrides, type IacRun, iacRunOf } from './iac-deployments.ts'
import { engineProgram } from './iac-engines.ts'
import { RESOURCES_OUTPUT, resourcesOfShown, secretValuesMask } from './iac-resources.ts'
import { nothingToRun, runImage, runParts } from './iac-runs.ts'

// What an IAC run is on Docker (docs/iac.md, "Runs"): the engine's commands, each a container of
// the run's image sharing the service's volume as its data directory, the next chosen by how the
// last ended: init, then plan and apply (apply only when the plan changes something, then show for
// the resources), plan only, destroy, force-unlock, or init -migrate-state. A `kubernetes` backend
// keeps its state in Berth through the engine's http backend: the executor serves it to the run
// alone (iac-state-endpoint.ts); the run is given no Berth credential, on no command line.

const FAILED: NextStep = { failed: true }
const OK: NextStep = { done: { ok: true } }
const step = (name: string, args: string[], capture = false): NextStep => ({ run: { name, args, ...(capture ? { capture } : {}) } })

/** The commands of a run of `run`, each chosen by how the one before ended. */
function commandsOf(
  config: IacConfig,
  run: Exclude<IacRun, 'NONE'>,
  reconfigure: boolean,
  mask: (text: string) => string,
): Pick<StepsWorkload, 'first' | 'next'> {
  const commands = engineCommands(config)
  const show = step('show', commands.show(), true)
  const shown = (result: { code: number; stdout: string }): NextStep => {
    if (result.code !== 0) return FAILED
    try {
      const resources = resourcesOfShown(result.stdout, new Date().toISOString(), mask)
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
    first: step('init', commands.init({ reconfigure, migrateState: run === 'MIGRATE_STATE' })),
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

/** The values of the service's secret Terraform variables, opened. */
const secretTfVarValues = (config: IacConfig, openSecret: (sealed: string) => string) =>
  config.tfVars.flatMap((variable) => (variable.secret ? [openSecret(variable.sealed)] : []))

/** The Docker executor's IAC runs. */
export const iacDocker: KindWorkload<IacConfig> = {
  secretValues: (snapshot, openSecret) => secretTfVarValues(snapshot.configuration, openSecret),
  describe({ configuration: config, overrides }, { action, settings, openSecret }): Workload {
    const given = overrides as IacDeployOverrides
    // A dry run is a plan: what a deploy would change, changing nothing.
    const run = iacRunOf(action === 'DEPLOY_DRY_RUN' ? { ...given, action: 'PLAN' } : given, action)
    const kubernetesBackend = 'kubernetes' in config.backend
    const base = { ...runParts(config, openSecret, 'http'), masked: [], ...(kubernetesBackend ? { stateEndpoint: true } : {}) }
    if (run === 'NONE') {
      const done = { ok: true as const, ...(action === 'STOP' ? {} : { output: { [RESOURCES_OUTPUT]: [] } }) }
      return { ...base, image: null, first: { done, say: nothingToRun(action) }, next: () => OK }
    }
    const image = runImage(config, given, action, settings.iacImages)
    if ('refused' in image) return { type: 'refused', message: image.refused }
    // Berth owns this backend's configuration: an earlier one (the pg backend of older Berths, whose
    // state migration 0042 copied) is replaced, not migrated from.
    const reconfigure = kubernetesBackend && run !== 'MIGRATE_STATE'
    const secrets = secretTfVarValues(config, openSecret)
    return { ...base, image: image.image, ...commandsOf(config, run, reconfigure, secretValuesMask(secrets, secretMask(secrets))) }
  },
}
