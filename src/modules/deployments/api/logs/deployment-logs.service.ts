import { setTimeout as sleep } from 'node:timers/promises'
import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { notFound } from '#src/platform/http/errors.ts'
import type { DeploymentLogsRepository, LogLine } from './deployment-logs.repository.ts'

// A deployment's logs: the last lines of a finished or running deployment, and the lines of a
// running one as they are written.

export interface DeploymentLogsDeps {
  repo: DeploymentLogsRepository
  environments: Pick<EnvironmentsService, 'requireEnvironment'>
}

/** How many lines a listing answers: the reference's "last 1000". */
export const LOG_PAGE = 1000
/** How often a follower looks for new lines. */
const FOLLOW_POLL_MS = 250
/** How long a follower may go without a line before it is told the stream is alive. */
const FOLLOW_KEEP_ALIVE_MS = 10_000
/** A follower is let go after this long, even if the deployment still runs: it reconnects with Last-Event-ID. */
const FOLLOW_MAX_MS = 15 * 60_000

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function createDeploymentLogsService(deps: DeploymentLogsDeps) {
  const { repo } = deps

  /** The deployment `version` names (an execution id) in an environment the caller may read, or its newest; undefined when there is none. */
  async function findRun(principal: Principal, environmentId: string, version: string | undefined) {
    const { environment } = await deps.environments.requireEnvironment(principal, environmentId, 'READ')
    return version === undefined || UUID.test(version) ? repo.findRun(environment.id, version) : undefined
  }

  async function requireRun(principal: Principal, environmentId: string, version: string | undefined) {
    const run = await findRun(principal, environmentId, version)
    if (!run) throw notFound('deployment')
    return run
  }

  return {
    /** The last lines of the deployment, oldest first; none when the environment never deployed and no version is named. */
    async last(principal: Principal, environmentId: string, version: string | undefined): Promise<LogLine[]> {
      const run = await findRun(principal, environmentId, version)
      if (!run) {
        if (version === undefined) return []
        throw notFound('deployment')
      }
      return repo.last(run.id, LOG_PAGE)
    },

    /**
     * The deployment's lines as they come, after the line `afterId` (a client's Last-Event-ID),
     * until the deployment is finished and every line was given, or `signal` aborts.
     */
    async *follow(
      principal: Principal,
      environmentId: string,
      version: string | undefined,
      afterId: string,
      signal: AbortSignal,
      /** Lets the stream open once access is checked; throws past the follow stream limits. */
      admit: (organizationId: string) => void = () => {},
    ) {
      const run = await requireRun(principal, environmentId, version)
      admit(run.organizationId)
      // Access is checked and the deployment found: the caller may answer before the first line comes.
      yield { lines: [] as LogLine[] }
      const until = Date.now() + FOLLOW_MAX_MS
      let last = afterId
      let quietSince = Date.now()
      while (!signal.aborted && Date.now() < until) {
        // Whether it was finished before reading: a line written before the end is never missed.
        const finished = (await repo.findRun(environmentId, run.id))?.finished ?? true
        const lines = await repo.after(run.id, last, LOG_PAGE)
        if (lines.length > 0 || Date.now() - quietSince >= FOLLOW_KEEP_ALIVE_MS) {
          // An empty batch now and then keeps proxies from taking a quiet stream for a dead one.
          if (lines.length > 0) last = lines.at(-1)!.id
          quietSince = Date.now()
          yield { lines }
        }
        if (finished && lines.length < LOG_PAGE) return
        if (lines.length === 0) await sleep(FOLLOW_POLL_MS, undefined, { signal }).catch(() => {})
      }
    },
  }
}

export type DeploymentLogsService = ReturnType<typeof createDeploymentLogsService>
