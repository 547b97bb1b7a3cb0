import { setTimeout as sleep } from 'node:timers/promises'
import type { Backdating } from './backdate-history.ts'
import type { DemoApi } from './demo-api.ts'
import {
  DEMO_ACTORS,
  DEMO_HELM_REPOSITORIES,
  DEMO_HISTORY_DAYS,
  DEMO_PROJECTS,
  DEMO_ROUNDS,
  type DemoAction,
  type DemoActor,
  type DemoEnvironment,
  type DemoVariable,
} from './demo-plan.ts'
import { type DemoReferences, kindOf } from './service-kinds.ts'

/** How long the simulated executor takes per service while the demo's history runs: seconds of seeding, not minutes. */
const STEP_MS = 200
/** The step of a round with a cancel of a running deployment: long enough for the cancel to find it running. */
const RUNNING_CANCEL_STEP_MS = 1_500
/** The newest deployment of the history ends this long before the seeding. */
const NEWEST_AGO_MS = 30 * 60_000
const WAIT_MS = 60_000
const POLL_MS = 25
const HISTORY_PAGE = 100

export interface DemoSeedDeps {
  /** The API, as an ADMIN of the demo organization. */
  api: DemoApi
  organizationId: string
  /** Starts running queued deployments, each service taking `stepMs`; `stop` hands back what is unfinished. */
  startRunner(stepMs: number): { stop(): Promise<void> }
  /** Moves finished deployments into the past (backdate-history.ts). */
  backdate(backdatings: readonly Backdating[]): Promise<void>
  now?: () => number
}

export interface Counts {
  helmRepositories: number
  projects: number
  environments: number
  services: number
  variables: number
}

export interface DemoHistory {
  environments: number
  deployments: number
  failed: number
  canceled: number
  stops: number
  restarts: number
  /** Cancels that found their deployment finished already (another server's runner on the database was quicker). */
  lateCancels: number
  oldest: string
  newest: string
}

export interface DemoReport {
  created: Counts
  existing: Counts
  /** The history written this time; undefined when every environment had one already. */
  history: DemoHistory | undefined
  /** Environments whose history was there before and was left as it was. */
  historiesKept: number
}

interface Named {
  id: string
  name: string
}

interface Variable {
  id: string
  key: string
  scope: string
}

interface HistoryEntry {
  identifier: { execution_id: string }
  auditing_data: { created_at: string }
  status: string
  trigger_action: string
  action_status: string
}

interface SeededEnvironment {
  plan: DemoEnvironment
  id: string
  services: Map<string, string>
}

const FINISHED = ['SUCCESS', 'ERROR', 'CANCELED']
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** Reads until `done` holds; fails after WAIT_MS saying what it waited for. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`the demo waited ${WAIT_MS / 1000} s for ${what}`)
    await sleep(POLL_MS)
  }
}

/** Small numbers that look random but are the same every run (mulberry32), for the times of the history. */
function pseudoRandom(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/**
 * Makes the demo organization's content through the API: helm repositories, projects,
 * environments and services, each found by name or created, then, for every environment that has
 * no deployment yet, days of history (deploys, failures, cancels, stops and restarts) run by the
 * runner and moved into the past. Seeding again adds only what is missing.
 */
export async function seedDemo(deps: DemoSeedDeps): Promise<DemoReport> {
  const { api, organizationId } = deps
  const now = deps.now ?? Date.now
  const created: Counts = { helmRepositories: 0, projects: 0, environments: 0, services: 0, variables: 0 }
  const existing: Counts = { helmRepositories: 0, projects: 0, environments: 0, services: 0, variables: 0 }

  /** The scope's variables, each found by key or created: a value, an override of a parent's, or an alias. */
  async function ensureVariables(scope: string, parentId: string, variables: DemoVariable[]): Promise<void> {
    const seen = (await api.get<{ results: Variable[] }>(`/variable?scope=${scope}&parent_id=${parentId}`)).results
    for (const variable of variables) {
      if (seen.some((v) => v.scope === scope && v.key === variable.key)) {
        existing.variables++
        continue
      }
      created.variables++
      const target = (key: string) => {
        const found = seen.find((v) => v.key === key)
        if (!found) throw new Error(`the demo's ${scope} variable ${variable.key} points at ${key}, which it does not see`)
        return found.id
      }
      if ('overrides' in variable) {
        await api.call('POST', `/variable/${target(variable.key)}/override`, {
          body: { value: variable.overrides, override_scope: scope, override_parent_id: parentId },
        })
      } else if ('aliases' in variable) {
        await api.call('POST', `/variable/${target(variable.aliases)}/alias`, {
          body: { key: variable.key, alias_scope: scope, alias_parent_id: parentId },
        })
      } else {
        const { key, value, secret = false, file } = variable
        await api.call('POST', '/variable', {
          body: { key, value, is_secret: secret, mount_path: file ?? null, variable_scope: scope, variable_parent_id: parentId },
        })
      }
    }
  }

  /** The one of that name in `collection`, or a new one made with `body`. */
  async function ensure(what: keyof Counts, collection: string, name: string, body: object): Promise<string> {
    const { results } = await api.get<{ results: Named[] }>(collection)
    const found = results.find((item) => sameName(item.name, name))
    if (found) {
      existing[what]++
      return found.id
    }
    created[what]++
    return (await api.call<Named>('POST', collection, { body })).body.id
  }

  const helmRepositories = new Map<string, string>()
  for (const repository of DEMO_HELM_REPOSITORIES) {
    const body = {
      name: repository.name,
      kind: 'HTTPS',
      description: repository.description,
      url: repository.url,
      skip_tls_verification: false,
      config: {},
    }
    helmRepositories.set(repository.name, await ensure('helmRepositories', `/organization/${organizationId}/helmRepository`, repository.name, body))
  }
  const references: DemoReferences = { helmRepositories }

  const environments: SeededEnvironment[] = []
  for (const project of DEMO_PROJECTS) {
    const projectId = await ensure('projects', `/organization/${organizationId}/project`, project.name, {
      name: project.name,
      description: project.description,
    })
    await ensureVariables('PROJECT', projectId, project.variables)
    for (const plan of project.environments) {
      const id = await ensure('environments', `/project/${projectId}/environment`, plan.name, { name: plan.name, mode: plan.mode })
      await ensureVariables('ENVIRONMENT', id, plan.variables)
      const services = new Map<string, string>()
      for (const service of plan.services) {
        const kind = kindOf(service)
        const serviceId = await ensure('services', kind.collection(id), service.name, kind.body(service, references, { failing: false }))
        services.set(service.name, serviceId)
        await ensureVariables(kind.variableScope, serviceId, plan.serviceVariables[service.name] ?? [])
      }
      environments.push({ plan, id, services })
    }
  }

  const history = (environmentId: string) =>
    api.get<{ results: HistoryEntry[]; has_more: boolean }>(`/environment/${environmentId}/deploymentHistoryV2?pageSize=${HISTORY_PAGE}`)
  const fresh: SeededEnvironment[] = []
  for (const environment of environments) {
    if ((await history(environment.id)).results.length === 0) fresh.push(environment)
  }
  const report = { created, existing, historiesKept: environments.length - fresh.length }
  if (fresh.length === 0) return { ...report, history: undefined }
  return { ...report, history: await seedHistory(deps, references, fresh, history, now) }
}

async function seedHistory(
  deps: DemoSeedDeps,
  references: DemoReferences,
  environments: SeededEnvironment[],
  history: (environmentId: string) => Promise<{ results: HistoryEntry[]; has_more: boolean }>,
  now: () => number,
): Promise<DemoHistory> {
  const { api, organizationId } = deps
  const tokens = `/organization/${organizationId}/apiToken`
  // The history's people are API tokens of their own (entries say who triggered them: `API token alice`),
  // made for the seeding and revoked after it: nobody holds their secrets.
  const dropActors = async () => {
    const { results } = await api.get<{ results: Named[] }>(tokens)
    for (const token of results.filter((t) => DEMO_ACTORS.some((actor) => sameName(actor, t.name)))) {
      await api.call('DELETE', `${tokens}/${token.id}`)
    }
  }
  await dropActors()
  const actors = new Map<DemoActor, DemoApi>()
  for (const actor of DEMO_ACTORS) {
    const body = { name: actor, description: 'a person of the demo history; revoked once it is written', role: 'DEPLOY' }
    const { body: minted } = await api.call<{ token: string }>('POST', tokens, { body })
    actors.set(actor, api.as(`Token ${minted.token}`))
  }

  let lateCancels = 0
  const cancel = async (as: DemoApi, environment: SeededEnvironment) => {
    const { status } = await as.call('POST', `/environment/${environment.id}/cancelDeployment`, { body: {}, expect: [202, 409] })
    if (status === 409) lateCancels++
  }
  const serviceOf = (environment: SeededEnvironment, name: string) => {
    const service = environment.plan.services.find((s) => s.name === name)
    const id = environment.services.get(name)
    if (!service || !id) throw new Error(`the demo's environment "${environment.plan.name}" has no service "${name}"`)
    return { service, id, kind: kindOf(service) }
  }
  /** Triggers the action; returns true when it waits for its deployment to run, to cancel it then. */
  async function perform(environment: SeededEnvironment, action: DemoAction): Promise<boolean> {
    const as = actors.get(action.by)!
    const at = `/environment/${environment.id}`
    switch (action.do) {
      case 'deploy': {
        if (action.service === undefined) await as.call('POST', `${at}/deploy`)
        else {
          const { id, kind } = serviceOf(environment, action.service)
          await as.call('POST', `${kind.resource(id)}/deploy`, { body: kind.deployBody(action.version) })
        }
        return false
      }
      case 'fail': {
        // The outcome is fixed when the deployment is queued: the switch is on for this deploy only.
        const { service, id, kind } = serviceOf(environment, action.service)
        await api.call('PUT', kind.resource(id), { body: kind.body(service, references, { failing: true }) })
        await as.call('POST', `${at}/deploy`)
        await api.call('PUT', kind.resource(id), { body: kind.body(service, references, { failing: false }) })
        return false
      }
      case 'restart':
      case 'stop': {
        const verb = action.do === 'restart' ? 'redeploy' : 'stop'
        if (action.service === undefined) await as.call('POST', `${at}/${verb}`)
        else {
          const { id, kind } = serviceOf(environment, action.service)
          await as.call('POST', `${kind.resource(id)}/${verb}`)
        }
        return false
      }
      case 'cancel': {
        await as.call('POST', `${at}/deploy`)
        if (action.while === 'running') return true
        await cancel(as, environment)
        return false
      }
    }
  }

  const idle = async (environment: SeededEnvironment) =>
    (await history(environment.id)).results.every((entry) => FINISHED.includes(entry.action_status))
  const roundOf = new Map<string, number>()
  for (let round = 0; round < DEMO_ROUNDS; round++) {
    // Everything of a round is queued before a runner starts, so a cancel finds its deployment where the plan says.
    const cancelWhenRunning: { environment: SeededEnvironment; as: DemoApi }[] = []
    for (const environment of environments) {
      const action = environment.plan.history[round]
      if (action && (await perform(environment, action))) cancelWhenRunning.push({ environment, as: actors.get(action.by)! })
    }
    const runner = deps.startRunner(cancelWhenRunning.length > 0 ? RUNNING_CANCEL_STEP_MS : STEP_MS)
    try {
      for (const { environment, as } of cancelWhenRunning) {
        await until(
          () => history(environment.id),
          (page) => page.results[0]?.action_status !== 'QUEUED',
          `the deployment of "${environment.plan.name}" to start`,
        )
        await cancel(as, environment)
      }
      for (const environment of environments) {
        await until(() => idle(environment), Boolean, `the deployments of "${environment.plan.name}" to end`)
      }
    } finally {
      await runner.stop()
    }
    for (const environment of environments) {
      for (const entry of (await history(environment.id)).results) {
        if (!roundOf.has(entry.identifier.execution_id)) roundOf.set(entry.identifier.execution_id, round)
      }
    }
  }
  await dropActors()

  // Round r happens in the r-th slot of the last DEMO_HISTORY_DAYS, at a time of its own in each
  // environment; a round's deployments of one environment a few minutes apart. Every time moves
  // back, and each environment's deployments keep their order.
  const newest = now() - NEWEST_AGO_MS
  const oldest = newest - DEMO_HISTORY_DAYS * 86_400_000
  const slotMs = (newest - oldest) / DEMO_ROUNDS
  const random = pseudoRandom(24)
  const backdatings: Backdating[] = []
  const entries: HistoryEntry[] = []
  for (const environment of environments) {
    const page = await history(environment.id)
    if (page.has_more) throw new Error(`the demo's history of "${environment.plan.name}" is longer than ${HISTORY_PAGE} deployments`)
    const oldestFirst = [...page.results].reverse()
    entries.push(...oldestFirst)
    const offsets = Array.from({ length: DEMO_ROUNDS }, () => (0.1 + 0.6 * random()) * slotMs)
    const inRound = new Map<number, number>()
    for (const entry of oldestFirst) {
      const round = roundOf.get(entry.identifier.execution_id)!
      const index = inRound.get(round) ?? 0
      inRound.set(round, index + 1)
      const target = oldest + round * slotMs + offsets[round]! + index * 7 * 60_000
      backdatings.push({ executionId: entry.identifier.execution_id, byMs: Date.parse(entry.auditing_data.created_at) - Math.round(target) })
    }
  }
  await deps.backdate(backdatings)

  const times = backdatings.map(({ executionId, byMs }) => {
    const entry = entries.find((e) => e.identifier.execution_id === executionId)!
    return Date.parse(entry.auditing_data.created_at) - byMs
  })
  return {
    environments: environments.length,
    deployments: entries.length,
    failed: entries.filter((entry) => entry.action_status === 'ERROR').length,
    canceled: entries.filter((entry) => entry.action_status === 'CANCELED').length,
    stops: entries.filter((entry) => entry.trigger_action === 'STOP').length,
    restarts: entries.filter((entry) => entry.trigger_action === 'RESTART').length,
    lateCancels,
    oldest: new Date(Math.min(...times)).toISOString(),
    newest: new Date(Math.max(...times)).toISOString(),
  }
}
