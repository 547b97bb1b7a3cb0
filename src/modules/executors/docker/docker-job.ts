import type Docker from 'dockerode'
import type { Span } from '#src/platform/spans.ts'
import type { ExecutorAction, ServiceSnapshot } from '../executor.ts'
import type { ImageSource } from '../workload.ts'
import type { Confinement, Owner } from './docker-objects.ts'
import type { DeliveredFile } from './file-archive.ts'
import type { PublishSettings, Say } from './service-instances.ts'

// One action of the Docker executor on one service, as each kind of workload gets it.

/** Serves a run's state (the engine's http backend) on `host`, for the run alone: the engine's environment for it, and its secret. */
export type OpenStateEndpoint = (serviceId: string, host: string) => Promise<{ env: Record<string, string>; secret: string; close(): Promise<void> }>

/** An image ready in the engine: pulled, present, or built from git (then `built`). */
export type ReadyImage = { ok: true; image: string; built: boolean } | { ok: false; message: string }

export interface DockerJob {
  docker: Docker
  action: ExecutorAction
  snapshot: ServiceSnapshot
  /** The deployment this is part of. */
  run: { id: string; organizationId: string; environmentId: string }
  /** Whose objects the engine's are: their labels. */
  owner: Owner
  /** Reports a line of the deployment's logs (masked). */
  say: Say
  signal: AbortSignal
  /** Where public ports are published, and the front door told of ready instances. */
  publish: PublishSettings
  /** The PID limit and dropped capabilities every container gets. */
  confinement: Confinement | undefined
  /** How long a stopping instance gets before it is killed. */
  stopGraceSeconds: number
  /** The service's variables as the engine takes them: KEY=value lines, and files for file variables. */
  delivered(): { env: string[]; files: DeliveredFile[] }
  /** Serves a run's state to it alone (an IAC run's http backend); absent: this runner keeps no state. */
  stateEndpoint?: OpenStateEndpoint | undefined
  /** The image of `source` in the engine: present, pulled, or built from git; an outcome when it cannot be. */
  image(source: ImageSource): Promise<ReadyImage>
  /** Times a step as a debug line (docs/performance.md, "Where a deploy's time goes"). */
  span: Span
}
