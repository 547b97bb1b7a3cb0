import { bodyError } from '#src/modules/services/field-errors.ts'
import { checkGitRepository } from '#src/modules/services/git-repositories/git-repositories.ts'
import { checkPublicPath, portListChecks } from '#src/modules/services/port-request-rules.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import { type ApplicationEditRequest, type ApplicationRequest, MAXIMUM_CPU, MAXIMUM_MEMORY } from './application.schemas.ts'

// The rules of an application request that its JSON schema cannot say. Each broken rule names the
// request's field by JSON pointer, so that one answer lists every mistake.

type Body = ApplicationRequest | ApplicationEditRequest

function checkPorts(ports: NonNullable<Body['ports']>, errors: FieldError[]): void {
  const checks = portListChecks(errors)
  ports.forEach((port, index) => {
    const path = `/ports/${index}`
    checks.isDefault(port, path)
    checks.name(port, path)
    checkPublicPath(port, path, 'applies only to a publicly accessible HTTP or GRPC port', errors)
  })
}

function checkStorage(storage: NonNullable<Body['storage']>, errors: FieldError[]): void {
  const mountPoints = new Set<string>()
  storage.forEach((item, index) => {
    const path = `/storage/${index}/mount_point`
    if (!item.mount_point.startsWith('/') || item.mount_point.split('/').includes('..'))
      errors.push(bodyError(path, 'must start with / and must not contain ..'))
    if (mountPoints.has(item.mount_point))
      errors.push(bodyError(path, `"${item.mount_point}" is used by another storage; mount points must be unique`))
    mountPoints.add(item.mount_point)
  })
}

function checkHealthchecks(healthchecks: Body['healthchecks'], errors: FieldError[]): void {
  for (const field of ['readiness_probe', 'liveness_probe'] as const) {
    const probe = healthchecks[field]
    if (!probe) continue
    const given = (['tcp', 'http', 'exec', 'grpc'] as const).filter((type) => probe.type[type] != null)
    if (given.length !== 1) errors.push(bodyError(`/healthchecks/${field}/type`, 'must name exactly one of tcp, http, exec and grpc'))
  }
}

/** Every rule the request breaks beyond its schema; empty when it is valid. */
export function applicationRequestErrors(body: Body): FieldError[] {
  const errors: FieldError[] = []
  if (body.git_repository) checkGitRepository(body.git_repository, '/git_repository', errors)
  if (body.dockerfile_path != null && (body.dockerfile_path.trim() === '' || body.dockerfile_path.split('/').includes('..'))) {
    errors.push(bodyError('/dockerfile_path', 'must be a path in the repository, without ..'))
  }
  if (body.cpu !== undefined && body.cpu > MAXIMUM_CPU) errors.push(bodyError('/cpu', `must be at most ${MAXIMUM_CPU} (maximum_cpu)`))
  if (body.memory !== undefined && body.memory > MAXIMUM_MEMORY)
    errors.push(bodyError('/memory', `must be at most ${MAXIMUM_MEMORY} (maximum_memory)`))
  const min = body.min_running_instances ?? 1
  const max = body.max_running_instances ?? 1
  if (max !== -1 && min > max) errors.push(bodyError('/max_running_instances', `must be -1 (no limit) or at least min_running_instances (${min})`))
  if (body.autoscaling != null) errors.push(bodyError('/autoscaling', 'KEDA autoscaling is not supported by Berth; leave it out or null'))
  if (body.ports) checkPorts(body.ports, errors)
  if (body.storage) checkStorage(body.storage, errors)
  checkHealthchecks(body.healthchecks, errors)
  return errors
}
