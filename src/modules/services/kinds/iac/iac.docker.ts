import type { DockerAction, DockerKind } from '#src/modules/executors/docker/docker-executor.ts'
import { ensureNetwork } from '#src/modules/executors/docker/docker-objects.ts'
import { removeBuiltImages } from '#src/modules/executors/docker/image-builds.ts'
import type { Rollout } from '#src/modules/executors/docker/service-instances.ts'
import type { ServiceOutcome } from '#src/modules/executors/executor.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { IacConfig } from './iac.types.ts'
import { backendOverride, engineCommands, lockIdOf, stateSchema } from './iac-commands.ts'
import { type IacDeployOverrides, type IacRun, iacRunOf } from './iac-deployments.ts'
import { DEFAULT_IAC_IMAGES, engineEnvironment, engineImage, engineProgram } from './iac-engines.ts'
import { runDockerfile } from './iac-images.ts'
import { RESOURCES_OUTPUT, resourcesOfShown } from './iac-resources.ts'
import { type CommandResult, type EngineRunSpec, iacVolume, runEngineCommand } from './iac-runs.ts'

// What the Docker executor does to an IAC service (docs/iac.md, "Runs"): the repository at the
// deployment's commit (the same checkout and address guard as applications) built into an image
// FROM the engine's (BERTH_IAC_IMAGES), the service's dockerfile_fragment applied; then the engine's
// commands, each a container of that image sharing the service's volume as its data directory:
// init, then plan and apply, plan only, destroy, force-unlock, or init -migrate-state.

/** The variables' secret values, opened: the logs never show them. */
function secretVariables(config: IacConfig, secrets: SecretBox): string[] {
  return config.tfVars.flatMap((variable) => (variable.secret && variable.sealed ? [secrets.open(Buffer.from(variable.sealed, 'base64'))] : []))
}

/** The environment of every command: the service's variables, its Terraform variables as TF_VAR_…, and the engine's automation settings. */
function runEnvironment(config: IacConfig, act: DockerAction): string[] {
  const engine = engineEnvironment(config, (sealed) => act.secrets.open(Buffer.from(sealed, 'base64')))
  return [...act.delivered().env, ...Object.entries(engine).map(([key, value]) => `${key}=${value}`)]
}

/** Whether a PostgreSQL URL's host is this machine's loopback: a container reaches it only on the host's network. */
function onLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname
    return host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.')
  } catch {
    return false
  }
}

const STEP: Record<Exclude<IacRun, 'NONE'>, string> = {
  PLAN_AND_APPLY: 'apply',
  PLAN_ONLY: 'plan',
  DESTROY: 'destroy',
  FORCE_UNLOCK: 'force-unlock',
  MIGRATE_STATE: 'migrate-state',
}

async function perform(snapshot: ServiceSnapshot<IacConfig>, act: DockerAction): Promise<Rollout> {
  const { docker, action, owner, signal } = act
  const config = snapshot.configuration
  const overrides = snapshot.overrides as IacDeployOverrides
  const run = iacRunOf(overrides, action)
  // An uninstall or delete leaves no volume and no image of the service.
  const removes = action === 'DELETE' || action === 'UNINSTALL'
  if (run === 'NONE') {
    act.say('run', action === 'STOP' ? 'a stop changes no infrastructure: nothing to run' : 'SKIP_DESTROY: the resources are left as they are')
    if (removes) await forget(act)
    return { ok: true, ...(action === 'STOP' ? {} : { output: { [RESOURCES_OUTPUT]: [] } }) }
  }
  const program = engineProgram(config.engine)
  const base = engineImage(act.iac.images || DEFAULT_IAC_IMAGES, config.engine, config.engineVersion)
  if (!base) return { ok: false, message: `BERTH_IAC_IMAGES names no image for ${config.engine}` }
  if (config.dockerfileFragment?.type === 'file') {
    return { ok: false, message: 'a dockerfile_fragment of type file is not applied by the Docker executor yet: give it inline (docs/iac.md)' }
  }
  const kubernetesBackend = 'kubernetes' in config.backend
  if ('blueprint' in config.backend) return { ok: false, message: 'a blueprint backend is not supported by Berth (docs/iac.md)' }
  if (kubernetesBackend && !act.iac.stateUrl) {
    return { ok: false, message: "the kubernetes backend keeps state in Berth's PostgreSQL: set BERTH_IAC_STATE_URL (or DATABASE_URL)" }
  }
  // The state store's password is no secret variable, but the logs must not show it either.
  const password = kubernetesBackend ? decodeURIComponent(new URL(act.iac.stateUrl).password) : ''
  const say: DockerAction['say'] = (step, message, level, at) => act.say(step, password ? message.replaceAll(password, '****') : message, level, at)

  const built = await act.builtImage({
    repository: config.git,
    ref: overrides.gitCommitId ? { commit: overrides.gitCommitId } : { branch: config.git.branch },
    dockerfilePath: null,
    dockerfileRaw: runDockerfile(base, config.dockerfileFragment?.type === 'inline' ? config.dockerfileFragment.content : null),
    target: null,
    // A deploy builds the commit afresh (the engine's version or the fragment may have changed); an uninstall runs what was built.
    reuse: action !== 'DEPLOY' && action !== 'RESTART',
  })
  if (!built.ok) return built

  const spec: EngineRunSpec = {
    owner,
    labels: snapshot.labels,
    serviceName: snapshot.name,
    image: built.image,
    program,
    network: kubernetesBackend && onLoopback(act.iac.stateUrl) ? 'host' : await ensureNetwork(docker, owner.environmentId),
    env: runEnvironment(config, act),
    files: [...act.delivered().files, ...(kubernetesBackend ? [backendOverride('pg')] : [])],
    cpuMilli: config.jobResources.cpuMilli,
    memoryMb: config.jobResources.ramMib,
    confinement: act.confinement,
    volume: iacVolume(owner.serviceId),
  }
  await docker.createVolume({ Name: spec.volume, Labels: { 'berth.service': owner.serviceId } })
  const deadline = config.timeoutSec > 0 ? Date.now() + config.timeoutSec * 1000 : undefined
  let number = 0
  const command = async (step: string, args: string[], capture = false): Promise<CommandResult> => {
    number++
    say(step, `${program} ${args.join(' ')}`)
    return runEngineCommand(docker, spec, args, { step, number, say, signal, deadline, capture })
  }
  const killed = (): ServiceOutcome => ({ ok: false, message: `the run was killed after timeout_sec (${config.timeoutSec} s)` })
  const failed = (args: string[], result: { code: number; lines: string[] }): ServiceOutcome => ({
    ok: false,
    message: `${program} ${args[0]} exited with code ${result.code}: ${result.lines.slice(-5).join(' | ')}`,
  })

  const commands = engineCommands(config)
  const backendConfig = kubernetesBackend ? [`conn_str=${act.iac.stateUrl}`, `schema_name=${stateSchema(owner.serviceId)}`] : []
  const initArgs = commands.init({ backendConfig, migrateState: run === 'MIGRATE_STATE' })
  const init = await command('init', initArgs)
  if ('timedOut' in init) return killed()
  if (init.code !== 0) return failed(initArgs, init)
  if (run === 'MIGRATE_STATE') return { ok: true }

  if (run === 'FORCE_UNLOCK') {
    // The engine names the lock it cannot take: a plan that waits for none finds it.
    const probeArgs = commands.plan({ lockTimeout: '0s' })
    const probe = await command('force-unlock', probeArgs)
    if ('timedOut' in probe) return killed()
    const lockId = probe.code === 1 ? lockIdOf(probe.lines) : undefined
    if (!lockId) {
      say('force-unlock', probe.code === 1 ? 'the plan failed, naming no lock: nothing to unlock' : 'the state is not locked: nothing to unlock')
      return probe.code === 1 ? failed(probeArgs, probe) : { ok: true }
    }
    const unlockArgs = commands.forceUnlock(lockId)
    const unlocked = await command('force-unlock', unlockArgs)
    if ('timedOut' in unlocked) return killed()
    return unlocked.code === 0 ? { ok: true } : failed(unlockArgs, unlocked)
  }

  if (run === 'DESTROY') {
    const destroyArgs = commands.destroy()
    const destroyed = await command('destroy', destroyArgs)
    if ('timedOut' in destroyed) return killed()
    if (destroyed.code !== 0) return failed(destroyArgs, destroyed)
    if (removes) await forget(act)
    return { ok: true, details: { resource_count: 0 }, output: { [RESOURCES_OUTPUT]: [] } }
  }

  const planArgs = commands.plan({})
  const plan = await command('plan', planArgs)
  if ('timedOut' in plan) return killed()
  if (plan.code !== 0 && plan.code !== 2) return failed(planArgs, plan)
  if (run === 'PLAN_ONLY') {
    say('plan', plan.code === 2 ? 'plan only: the changes above are not applied' : 'plan only: no changes')
    return { ok: true }
  }
  if (plan.code === 2) {
    const applyArgs = commands.apply()
    const applied = await command(STEP[run], applyArgs)
    if ('timedOut' in applied) return killed()
    if (applied.code !== 0) return failed(applyArgs, applied)
  } else say('apply', 'no changes: nothing to apply')
  const showArgs = commands.show()
  const shown = await command('show', showArgs, true)
  if ('timedOut' in shown) return killed()
  if (shown.code !== 0) return failed(showArgs, shown)
  try {
    const resources = resourcesOfShown(shown.stdout, new Date().toISOString())
    say('show', `the state holds ${resources.length} resource(s)`)
    return { ok: true, details: { resource_count: resources.length }, output: { [RESOURCES_OUTPUT]: resources } }
  } catch (error) {
    return { ok: false, message: `${program} show -json printed no state: ${(error as Error).message}` }
  }
}

/** An uninstalled or deleted service leaves no volume and no image (its state stays where its backend keeps it). */
async function forget(act: DockerAction): Promise<void> {
  await act.docker
    .getVolume(iacVolume(act.owner.serviceId))
    .remove()
    .catch(() => undefined)
  await removeBuiltImages(act.docker, act.owner.serviceId)
}

/** The Docker executor's entry for an IAC service. */
export const iacDocker: DockerKind<IacConfig> = {
  perform,
  // A dry run is a plan: what a deploy would change, changing nothing.
  dryRun: (snapshot, act) => perform({ ...snapshot, overrides: { ...snapshot.overrides, action: 'PLAN' } }, act),
  secretValues: (snapshot, secrets) => secretVariables(snapshot.configuration, secrets),
}
