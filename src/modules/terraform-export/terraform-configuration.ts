import { expression, type HclExpression, type HclValue, hclBlock, hclName } from './hcl-writer.ts'

// An environment and its services as Terraform configuration for the platform's provider
// (docs/terraform-export.md): `qovery_*` resources with the attributes the provider's schemas name,
// built from each service as the API answers it. Secrets become variables (declared `sensitive`,
// without a default): their values never leave Berth.

// biome-ignore lint/suspicious/noExplicitAny: service answers are read field by field, as each kind shapes them
type Wire = Record<string, any>

export interface ExportedVariable {
  key: string
  value: string | null
  isSecret: boolean
  mountPath: string | null
  description: string | null
}

export interface ExportedService {
  id: string
  kind: string
  name: string
  stageId: string | null
  /** The service as its kind's API answers it (getContainer, getHelm, …). */
  wire: Wire
  variables: ExportedVariable[]
}

export interface EnvironmentToExport {
  id: string
  name: string
  projectId: string
  clusterId: string
  mode: string
  stages: { id: string; name: string; description: string | null }[]
  services: ExportedService[]
  variables: ExportedVariable[]
}

export interface TerraformFiles {
  main: string
  variables: string
  /** What the export could not say in the provider's terms (kinds it has no resource for). */
  skipped: string[]
}

/** The provider's resource type of each kind Berth exports. */
export const RESOURCE_TYPES: Record<string, string> = {
  APPLICATION: 'qovery_application',
  CONTAINER: 'qovery_container',
  DATABASE: 'qovery_database',
  HELM: 'qovery_helm',
  JOB: 'qovery_job',
}

const defined = (value: Wire | undefined | null, ...keys: string[]): Record<string, HclValue | undefined> =>
  Object.fromEntries(keys.map((key) => [key, value?.[key] === null ? undefined : (value?.[key] as HclValue | undefined)]))

const pairsToMap = (pairs: unknown): Record<string, string> | undefined =>
  Array.isArray(pairs) && pairs.length > 0 ? Object.fromEntries(pairs.map((pair) => [String(pair[0]), String(pair[1])])) : undefined

const gitRepository = (repository: Wire | undefined) => (repository ? defined(repository, 'url', 'branch', 'root_path', 'git_token_id') : undefined)

const ports = (list: Wire[] | undefined) =>
  list?.map((port) => defined(port, 'name', 'internal_port', 'external_port', 'publicly_accessible', 'protocol', 'is_default'))

/** A probe as the provider takes it: its type and timings; null probes left out. */
function probe(value: Wire | null | undefined): HclValue | undefined {
  if (!value) return undefined
  const type = value.type ?? {}
  const typed = Object.fromEntries(
    Object.entries(type)
      .filter(([, settings]) => settings !== null && settings !== undefined)
      .map(([name, settings]) => [name, defined(settings as Wire, 'port', 'scheme', 'path', 'host', 'service', 'command')]),
  )
  return {
    type: typed,
    ...defined(value, 'initial_delay_seconds', 'period_seconds', 'timeout_seconds', 'success_threshold', 'failure_threshold'),
  }
}

const healthchecks = (value: Wire | undefined) => ({ readiness_probe: probe(value?.readiness_probe), liveness_probe: probe(value?.liveness_probe) })

const command = (value: Wire | undefined) => (value ? defined(value, 'entrypoint', 'arguments') : undefined)

/** Each kind's attributes, in the provider's names, from the service's API answer. */
const ATTRIBUTES: Record<string, (wire: Wire) => Record<string, HclValue | undefined>> = {
  CONTAINER: (wire) => ({
    ...defined(wire, 'name', 'registry_id', 'image_name', 'tag', 'cpu', 'memory', 'min_running_instances', 'max_running_instances'),
    registry_id: wire.registry_id ?? wire.registry?.id,
    ...defined(wire, 'arguments', 'entrypoint', 'auto_preview', 'auto_deploy'),
    ports: ports(wire.ports),
    healthchecks: healthchecks(wire.healthchecks),
  }),
  APPLICATION: (wire) => ({
    ...defined(wire, 'name'),
    git_repository: gitRepository(wire.git_repository),
    ...defined(wire, 'build_mode', 'dockerfile_path', 'cpu', 'memory', 'min_running_instances', 'max_running_instances'),
    ...defined(wire, 'arguments', 'entrypoint', 'auto_preview', 'auto_deploy'),
    ports: ports(wire.ports),
    healthchecks: healthchecks(wire.healthchecks),
  }),
  DATABASE: (wire) => defined(wire, 'name', 'type', 'version', 'mode', 'accessibility', 'cpu', 'memory', 'storage', 'instance_type'),
  JOB: (wire) => {
    const image = wire.source?.image
    const docker = wire.source?.docker
    const schedule = wire.schedule ?? {}
    return {
      ...defined(wire, 'name', 'cpu', 'memory', 'max_duration_seconds', 'max_nb_restart', 'port', 'auto_preview', 'auto_deploy'),
      source: image
        ? { image: { registry_id: image.registry_id, name: image.image_name, tag: image.tag } }
        : {
            docker: {
              git_repository: gitRepository(docker?.git_repository),
              ...defined(docker, 'dockerfile_path', 'dockerfile_raw', 'docker_target_build_stage'),
            },
          },
      schedule: schedule.cronjob
        ? { cronjob: { schedule: schedule.cronjob.scheduled_at, command: command(schedule.cronjob) } }
        : {
            on_start: command(schedule.on_start),
            on_stop: command(schedule.on_stop),
            on_delete: command(schedule.on_delete),
            lifecycle_type: schedule.lifecycle_type,
          },
      healthchecks: healthchecks(wire.healthchecks),
    }
  },
  HELM: (wire) => {
    const source = wire.source ?? {}
    const values = wire.values_override ?? {}
    const file = values.file
    return {
      ...defined(wire, 'name', 'description', 'allow_cluster_wide_resources', 'arguments', 'auto_preview', 'auto_deploy', 'timeout_sec'),
      description: wire.description ?? '',
      source: source.git
        ? { git_repository: gitRepository(source.git.git_repository) }
        : {
            helm_repository: {
              helm_repository_id: source.repository?.repository?.id,
              chart_name: source.repository?.chart_name,
              chart_version: source.repository?.chart_version,
            },
          },
      values_override: {
        set: pairsToMap(values.set),
        set_string: pairsToMap(values.set_string),
        set_json: pairsToMap(values.set_json),
        file: file?.raw
          ? { raw: Object.fromEntries((file.raw.values as Wire[]).map((raw) => [raw.name, { content: raw.content }])) }
          : file?.git
            ? { git_repository: { ...gitRepository(file.git.git_repository), paths: file.git.paths } }
            : undefined,
      },
      ports: wire.ports?.length
        ? Object.fromEntries(
            (wire.ports as Wire[]).map((port) => [
              port.name ?? `p${port.internal_port}`,
              defined(port, 'service_name', 'namespace', 'internal_port', 'external_port', 'protocol', 'is_default'),
            ]),
          )
        : undefined,
    }
  },
}

/** Gives each name its Terraform label once: a second `web` is `web_2`. */
function labeller() {
  const used = new Set<string>()
  return (name: string) => {
    const base = hclName(name)
    let label = base
    for (let n = 2; used.has(label); n++) label = `${base}_${n}`
    used.add(label)
    return label
  }
}

export function terraformConfiguration(environment: EnvironmentToExport): TerraformFiles {
  const secretNames = labeller()
  const secretVariables: { name: string; description: string }[] = []

  /** The variables of a scope as the provider's four sets: values in clear, secrets as `var.…`. */
  function variableSets(owner: string, variables: ExportedVariable[]): Record<string, HclValue | undefined> {
    const sets: Record<string, Record<string, HclValue>[]> = {
      environment_variables: [],
      environment_variable_files: [],
      secrets: [],
      secret_files: [],
    }
    for (const variable of variables) {
      let value: HclValue | HclExpression = variable.value ?? ''
      if (variable.isSecret) {
        const name = secretNames(`secret_${owner}_${variable.key}`)
        secretVariables.push({ name, description: `the value of the secret ${variable.key} of ${owner}` })
        value = expression(`var.${name}`)
      }
      const set = variable.mountPath
        ? variable.isSecret
          ? 'secret_files'
          : 'environment_variable_files'
        : variable.isSecret
          ? 'secrets'
          : 'environment_variables'
      sets[set]!.push({
        key: variable.key,
        value,
        ...(variable.mountPath ? { mount_path: variable.mountPath } : {}),
        ...(variable.description ? { description: variable.description } : {}),
      })
    }
    return Object.fromEntries(Object.entries(sets).map(([name, list]) => [name, list.length > 0 ? list : undefined]))
  }

  const labels = labeller()
  const environmentLabel = labels(environment.name)
  const environmentId = expression(`qovery_environment.${environmentLabel}.id`)
  const blocks: string[] = [
    'terraform {\n  required_providers {\n    qovery = {\n      source = "qovery/qovery"\n    }\n  }\n}\n',
    hclBlock('resource', ['qovery_environment', environmentLabel], {
      project_id: environment.projectId,
      cluster_id: environment.clusterId,
      name: environment.name,
      mode: environment.mode,
      ...variableSets(environment.name, environment.variables),
    }),
  ]

  const stageLabels = new Map<string, string>()
  let previous: string | undefined
  for (const stage of environment.stages) {
    const label = labels(`stage_${stage.name}`)
    stageLabels.set(stage.id, label)
    blocks.push(
      hclBlock('resource', ['qovery_deployment_stage', label], {
        environment_id: environmentId,
        name: stage.name,
        description: stage.description ?? undefined,
        is_after: previous ? expression(`qovery_deployment_stage.${previous}.id`) : undefined,
      }),
    )
    previous = label
  }

  const skipped: string[] = []
  for (const service of environment.services) {
    const type = RESOURCE_TYPES[service.kind]
    const attributes = ATTRIBUTES[service.kind]
    if (!type || !attributes) {
      skipped.push(`${service.kind.toLowerCase()} ${service.name}`)
      continue
    }
    const stage = service.stageId ? stageLabels.get(service.stageId) : undefined
    blocks.push(
      hclBlock('resource', [type, labels(service.name)], {
        environment_id: environmentId,
        ...attributes(service.wire),
        deployment_stage_id: stage ? expression(`qovery_deployment_stage.${stage}.id`) : undefined,
        ...(service.kind === 'DATABASE' ? {} : variableSets(service.name, service.variables)),
      }),
    )
  }
  if (skipped.length > 0) blocks.push(`# Not exported (the provider has no resource Berth maps them to): ${skipped.join(', ')}\n`)

  const variables = secretVariables.map(({ name, description }) =>
    hclBlock('variable', [name], { type: expression('string'), sensitive: true, description }),
  )
  return { main: blocks.join('\n'), variables: variables.join('\n'), skipped }
}
