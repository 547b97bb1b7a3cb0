import type { DockerKind } from '#src/modules/executors/docker/docker-executor.ts'

/** The Docker executor's entry for a helm service: refused, saying why (a chart needs Kubernetes). */
export const helmDocker: DockerKind = {
  perform: async () => ({ ok: false, message: "a helm service needs a Kubernetes cluster; this environment's cluster deploys to Docker" }),
}
