import type { Probe } from '#src/modules/executors/workload.ts'
import type { Probe as ApplicationProbe } from './application.types.ts'

// Executors check an application's readiness as a container's: the Docker executor's rollout, the
// probes of the chart Berth ships on Kubernetes.

/** An application's probe (stored as the wire gives it) as a container's. */
export function containerProbe(probe: ApplicationProbe | null): Probe | null {
  if (!probe) return null
  const { tcp, http, exec, grpc } = probe.type
  let type: Probe['type']
  if (http) type = { http: { path: http.path, scheme: http.scheme, port: http.port ?? null } }
  else if (tcp) type = { tcp: { port: tcp.port ?? null, host: tcp.host ?? null } }
  else if (exec) type = { exec: { command: exec.command } }
  else if (grpc) type = { grpc: { service: grpc.service ?? null, port: grpc.port ?? null } }
  else return null
  return {
    type,
    initialDelaySeconds: probe.initial_delay_seconds,
    periodSeconds: probe.period_seconds,
    timeoutSeconds: probe.timeout_seconds,
    successThreshold: probe.success_threshold,
    failureThreshold: probe.failure_threshold,
  }
}
