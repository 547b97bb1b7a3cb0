import { bodyError } from '#src/modules/services/field-errors.ts'
import { checkPublicPath, portListChecks } from '#src/modules/services/port-request-rules.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { ContainerRequest } from './container.schemas.ts'
import { CONTAINER_DEFAULTS, CONTAINER_MAXIMUMS } from './container.wire.ts'

// The rules of a container request that its JSON schema cannot say. Each broken rule names the
// request's field by JSON pointer, so that one answer lists every mistake.

/** An image name as the Docker Registry API names repositories: lowercase path components, no host, no tag, no digest. */
const IMAGE_NAME = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/
/** A tag as the Docker Registry API allows it. */
export const IMAGE_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/

type Probe = NonNullable<ContainerRequest['healthchecks']['readiness_probe']>

function checkProbe(probe: Probe | null | undefined, path: string, errors: FieldError[]): void {
  if (!probe) return
  const given = (['tcp', 'http', 'exec', 'grpc'] as const).filter((type) => probe.type[type] != null)
  if (given.length !== 1) errors.push(bodyError(`${path}/type`, 'must name exactly one of tcp, http, exec and grpc'))
  if (probe.type.http?.path !== undefined && !probe.type.http.path.startsWith('/'))
    errors.push(bodyError(`${path}/type/http/path`, 'must start with /'))
  if (probe.type.http?.scheme !== undefined && !['HTTP', 'HTTPS'].includes(probe.type.http.scheme.toUpperCase())) {
    errors.push(bodyError(`${path}/type/http/scheme`, 'must be HTTP or HTTPS'))
  }
  const period = probe.period_seconds ?? 10
  if ((probe.timeout_seconds ?? 5) > period) errors.push(bodyError(`${path}/timeout_seconds`, 'must not be longer than period_seconds'))
}

function checkPorts(ports: NonNullable<ContainerRequest['ports']>, errors: FieldError[]): void {
  const checks = portListChecks(errors)
  const internal = new Set<number>()
  const ids = new Set<string>()
  ports.forEach((port, index) => {
    const path = `/ports/${index}`
    checks.isDefault(port, path)
    checks.name(port, path)
    if (internal.has(port.internal_port)) errors.push(bodyError(`${path}/internal_port`, 'is given by another port already'))
    internal.add(port.internal_port)
    if (port.id) {
      if (ids.has(port.id)) errors.push(bodyError(`${path}/id`, 'names the same port as another entry'))
      ids.add(port.id)
    }
    checkPublicPath(port, path, 'applies to publicly accessible HTTP or GRPC ports only', errors)
  })
}

function checkStorage(storage: NonNullable<ContainerRequest['storage']>, errors: FieldError[]): void {
  const mounts = new Set<string>()
  const ids = new Set<string>()
  storage.forEach((volume, index) => {
    const path = `/storage/${index}`
    const mount = volume.mount_point
    if (!mount.startsWith('/') || mount.split('/').includes('..'))
      errors.push(bodyError(`${path}/mount_point`, 'must be an absolute path without ..'))
    else if (mounts.has(mount)) errors.push(bodyError(`${path}/mount_point`, 'is used by another storage'))
    mounts.add(mount)
    if (volume.id) {
      if (ids.has(volume.id)) errors.push(bodyError(`${path}/id`, 'names the same storage as another entry'))
      ids.add(volume.id)
    }
  })
}

/** Every rule the request breaks beyond its schema (and beyond its references, which the kind checks); empty when it is valid. */
export function containerRequestErrors(body: ContainerRequest): FieldError[] {
  const errors: FieldError[] = []
  if (!IMAGE_NAME.test(body.image_name.trim())) {
    errors.push(bodyError('/image_name', 'must be an image name without registry host, tag or digest: lowercase `image` or `namespace/image`'))
  }
  if (!IMAGE_TAG.test(body.tag.trim()))
    errors.push(bodyError('/tag', 'must be an image tag: letters, digits, _ . - (at most 128, not starting with . or -)'))
  if ((body.cpu ?? 0) > CONTAINER_MAXIMUMS.cpu) errors.push(bodyError('/cpu', `must be at most ${CONTAINER_MAXIMUMS.cpu} (maximum_cpu)`))
  if ((body.memory ?? 0) > CONTAINER_MAXIMUMS.memory)
    errors.push(bodyError('/memory', `must be at most ${CONTAINER_MAXIMUMS.memory} (maximum_memory)`))
  if ((body.gpu ?? 0) > CONTAINER_MAXIMUMS.gpu)
    errors.push(bodyError('/gpu', `must be at most ${CONTAINER_MAXIMUMS.gpu} (maximum_gpu): Berth's clusters have no GPU`))
  const min = body.min_running_instances ?? CONTAINER_DEFAULTS.minRunningInstances
  const max = body.max_running_instances ?? CONTAINER_DEFAULTS.maxRunningInstances
  if (max !== -1 && max < min) errors.push(bodyError('/max_running_instances', 'must be at least min_running_instances, or -1 for no limit'))
  checkProbe(body.healthchecks.readiness_probe, '/healthchecks/readiness_probe', errors)
  checkProbe(body.healthchecks.liveness_probe, '/healthchecks/liveness_probe', errors)
  if (body.ports) checkPorts(body.ports, errors)
  if (body.storage) checkStorage(body.storage, errors)
  return errors
}
