import { bodyError } from '#src/modules/services/field-errors.ts'
import { checkGitRepository } from '#src/modules/services/git-repositories/git-repositories.ts'
import { portListChecks } from '#src/modules/services/port-request-rules.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import type { HelmRequest } from './helm.schemas.ts'
import { refusedHelmArgument } from './helm-arguments.ts'

// The rules of a helm request that its JSON schema cannot say. Each broken rule names the
// request's field by JSON pointer, so that one answer lists every mistake.

function checkSource(source: HelmRequest['source'], errors: FieldError[]): void {
  const given = [source.git_repository, source.helm_repository].filter((option) => option != null).length
  if (given !== 1) {
    errors.push(bodyError('/source', 'must name exactly one of git_repository and helm_repository'))
    return
  }
  if (source.git_repository) checkGitRepository(source.git_repository, '/source/git_repository', errors)
}

function checkValuesOverride(values: HelmRequest['values_override'], errors: FieldError[]): void {
  for (const field of ['set', 'set_string', 'set_json'] as const) {
    values[field]?.forEach(([key], index) => {
      if (key!.trim() === '') errors.push(bodyError(`/values_override/${field}/${index}/0`, 'the key must not be empty'))
    })
  }
  values.set_json?.forEach(([, json], index) => {
    try {
      JSON.parse(json!)
    } catch {
      errors.push(bodyError(`/values_override/set_json/${index}/1`, 'must be valid JSON'))
    }
  })

  const file = values.file
  if (!file) return
  if (file.git && file.raw) {
    errors.push(bodyError('/values_override/file', 'must hold either git or raw, not both'))
    return
  }
  if (file.git) {
    checkGitRepository(file.git.git_repository, '/values_override/file/git/git_repository', errors)
    file.git.paths.forEach((path, index) => {
      if (!path.startsWith('/') || path.split('/').includes('..')) {
        errors.push(bodyError(`/values_override/file/git/paths/${index}`, 'must start with / and must not contain ..'))
      }
    })
  }
  if (file.raw) {
    const seen = new Set<string>()
    file.raw.values.forEach(({ name }, index) => {
      if (seen.has(name)) errors.push(bodyError(`/values_override/file/raw/values/${index}/name`, `"${name}" is given twice; names must be unique`))
      seen.add(name)
    })
  }
}

function checkPorts(ports: NonNullable<HelmRequest['ports']>, clusterWide: boolean, errors: FieldError[]): void {
  const checks = portListChecks(errors)
  ports.forEach((port, index) => {
    const path = `/ports/${index}`
    checks.isDefault(port, path)
    const hasName = port.service_name !== undefined
    const hasSelectors = port.service_selectors !== undefined && port.service_selectors.length > 0
    if (hasName === hasSelectors) {
      errors.push(bodyError(path, 'must name the Kubernetes service either by service_name or by service_selectors (not both)'))
    }
    if (port.namespace != null && !clusterWide) {
      errors.push(bodyError(`${path}/namespace`, "needs allow_cluster_wide_resources: the service is in the environment's namespace"))
    }
    checks.name(port, path)
  })
}

/** Every rule the request breaks beyond its schema; empty when it is valid. */
export function helmRequestErrors(body: HelmRequest): FieldError[] {
  const errors: FieldError[] = []
  checkSource(body.source, errors)
  const clusterWide = body.allow_cluster_wide_resources ?? false
  body.arguments.forEach((argument, index) => {
    const refused = refusedHelmArgument(argument, clusterWide)
    if (refused) errors.push(bodyError(`/arguments/${index}`, refused))
  })
  checkValuesOverride(body.values_override, errors)
  if (body.ports) checkPorts(body.ports, clusterWide, errors)
  return errors
}
