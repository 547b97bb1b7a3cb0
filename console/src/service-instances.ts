// The instances a service's log lines name, each with its container's (or pod's) name and the time
// of its last line: the statuses API has no per-instance field. No DOM here.
import { instancesOf, type ServiceLogLine } from './service-log-stream.ts'

export interface InstanceSeen {
  /** Its index (`0`, `1`) or a job run's name. */
  instance: string
  /** Its container's or pod's name, as the engine names it. */
  pod: string
  lastLineAt: string
}

export function instancesSeen(lines: ServiceLogLine[]): InstanceSeen[] {
  const byInstance = new Map<string, InstanceSeen>()
  for (const line of lines) {
    if (line.instance === null) continue
    byInstance.set(line.instance, { instance: line.instance, pod: line.pod_name ?? '', lastLineAt: line.created_at })
  }
  return instancesOf(lines).map((instance) => byInstance.get(instance)!)
}
