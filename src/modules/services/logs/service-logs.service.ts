import { createHash } from 'node:crypto'
import type { OutputCursor, OutputLine, OutputService, ServiceOutput } from '#src/modules/executors/service-output.ts'
import { type ConfigurationSecrets, opener, snapshotSecretValues } from '#src/modules/executors/snapshot-secrets.ts'
import type { RequireService } from '#src/modules/services/require-service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { secretMask } from '#src/platform/secrets/secret-masking.ts'
import type { ServiceLogsRepository } from './service-logs.repository.ts'

// A service's own logs (docs/service-logs.md): what its instances print, from the engine that runs
// them (service-output.ts), masked of the secrets of the deployment that started each; a job's
// runs from what its deployments logged, as they are gone once they end.

/** How many lines a listing answers: the reference's "last 1000". */
export const SERVICE_LOG_LINES = 1000

/** A line of a service's logs, as the routes render it. */
export interface ServiceLogLine {
  id: string
  at: Date
  message: string
  /** The instance's name in the engine; null for a job's runs. */
  instanceName: string | null
  /** Which instance (`0`, `1`, …; `run-1`, … for a job's run being followed); null when the deployment's logs are read. */
  instance: string | null
  /** The deployment that started it. */
  executionId: string
  stream: 'stdout' | 'stderr' | null
}

export interface ServiceLogsDeps {
  repo: ServiceLogsRepository
  secrets: SecretBox
  /** What each kind's configuration holds that must be masked too (a database's password). */
  configurationSecrets: ConfigurationSecrets
  requireService: RequireService
  /** The engine's side; absent when the process deploys nowhere real (the simulator): services print nothing. */
  output: ServiceOutput | undefined
}

/** A stable id for a line, in the reference's uuid shape: the same line reads the same each time. */
function lineId(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/** A follower's position as text (an event id): what Last-Event-ID gives back. */
export const encodeCursor = (cursor: OutputCursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url')

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/
const SOURCE = /^[0-9a-f]{12}$/

/** A Last-Event-ID back as a position; undefined when it is not one Berth gave (the follower starts afresh). */
export function decodeCursor(text: string | undefined): OutputCursor | undefined {
  if (!text || text.length > 4096) return undefined
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as OutputCursor
    if (typeof value?.since !== 'string' || !TIMESTAMP.test(value.since) || typeof value.positions !== 'object' || value.positions === null)
      return undefined
    const entries = Object.entries(value.positions)
    if (entries.length > 100 || !entries.every(([source, at]) => SOURCE.test(source) && typeof at === 'string' && TIMESTAMP.test(at)))
      return undefined
    return { since: value.since, positions: Object.fromEntries(entries) }
  } catch {
    return undefined
  }
}

export function createServiceLogsService(deps: ServiceLogsDeps) {
  /** The masks of the deployments that started the lines' instances, made once per listing or follower. */
  function masks(serviceId: string) {
    const made = new Map<string, Promise<(text: string) => string>>()
    return (executionId: string) => {
      let mask = made.get(executionId)
      if (!mask) {
        mask = deps.repo
          .snapshot(executionId, serviceId)
          .then((snapshot) =>
            snapshot ? secretMask(snapshotSecretValues(snapshot, opener(deps.secrets), deps.configurationSecrets)) : (text: string) => text,
          )
        made.set(executionId, mask)
      }
      return mask
    }
  }

  const toLine = async (line: OutputLine, maskOf: ReturnType<typeof masks>): Promise<ServiceLogLine> => ({
    id: lineId(line.source, line.timestamp, line.stream ?? '', line.message),
    at: new Date(line.timestamp),
    message: (await maskOf(line.executionId))(line.message),
    instanceName: line.instanceName,
    instance: line.instance,
    executionId: line.executionId,
    stream: line.stream,
  })

  /**
   * The service as its engine is asked about it: a helm service with the release its last deploy
   * installed (its own chart's pods carry no Berth label); undefined for one never deployed, which runs nothing.
   */
  async function outputService(type: ServiceType, service: { id: string; environmentId: string }): Promise<OutputService | undefined> {
    if (type !== 'HELM') return service
    const release = await deps.repo.installedRelease(service.id)
    return release && { ...service, release }
  }

  return {
    /** The last lines the service's instances printed, oldest first; none when it runs nowhere real. */
    async last(principal: Principal, type: ServiceType, serviceId: string): Promise<ServiceLogLine[]> {
      const { service } = await deps.requireService(principal, serviceId, 'READ', type)
      // A job's runs are gone once they end on Docker: what they printed is in its deployments' logs, where an engine ran
      // them (a simulated run printed nothing). A Kubernetes Job's pods stay: they are read as a service's instances.
      if (type === 'JOB' && !(await deps.output?.keepsJobRuns?.(service.environmentId))) {
        if (!(await deps.output?.runsHere(service.environmentId))) return []
        return (await deps.repo.jobRunLines(service.environmentId, service.id, SERVICE_LOG_LINES)).map((line) => ({
          id: lineId(line.executionId, line.id),
          at: line.createdAt,
          message: line.message,
          instanceName: null,
          instance: null,
          executionId: line.executionId,
          stream: null,
        }))
      }
      const found = await outputService(type, service)
      if (!found) return []
      const lines = (await deps.output?.last(found, SERVICE_LOG_LINES)) ?? []
      const maskOf = masks(service.id)
      return Promise.all(lines.map((line) => toLine(line, maskOf)))
    },

    /**
     * The service's lines as they are printed, each with the follower's position after it: the
     * last ones first, or those after `cursor`. The first value (no line) comes once access is
     * checked and `admit` let the stream open (it throws past the follow stream limits); the lines
     * end when the service stops or `signal` aborts.
     */
    async *follow(
      principal: Principal,
      type: ServiceType,
      serviceId: string,
      cursor: OutputCursor | undefined,
      signal: AbortSignal,
      admit: (organizationId: string) => void = () => {},
    ) {
      const { service } = await deps.requireService(principal, serviceId, 'READ', type)
      admit(service.organizationId)
      yield undefined
      const deploying = () => deps.repo.deploying(service.environmentId)
      const found = await outputService(type, service)
      if (!found) return
      const lines = await deps.output?.follow(found, cursor ? { cursor } : { last: SERVICE_LOG_LINES }, signal, deploying)
      if (!lines) return
      const maskOf = masks(service.id)
      const position: OutputCursor = cursor ?? { since: new Date().toISOString(), positions: {} }
      for await (const line of lines) {
        position.positions[line.source] = line.timestamp
        yield { line: await toLine(line, maskOf), cursor: encodeCursor(position) }
      }
    },
  }
}

export type ServiceLogsService = ReturnType<typeof createServiceLogsService>
