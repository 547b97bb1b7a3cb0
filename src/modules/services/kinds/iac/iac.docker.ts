import type { DockerKind } from '#src/modules/executors/docker/docker-executor.ts'
import type { IacConfig } from './iac.types.ts'

/** The Docker executor's entry for an IAC service (docs/iac.md). */
export const iacDocker: DockerKind<IacConfig> = {
  perform: async () => ({ ok: false, message: 'not yet' }),
}
