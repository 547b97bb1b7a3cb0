// What differs between the kinds of service, as one table. Which kinds there are, their paths,
// their members in the statuses answers, their variable scopes and which routes they have come from
// the server (generated/kinds.ts, made from its kinds registry and OpenAPI document); this file adds
// how each reads on screen: its title, its configuration's lines, its version chooser, its form.
// A kind the server has and this table does not still gets a page (GENERIC below).
import { GENERATED_KINDS, type GeneratedKind, type KindType } from './generated/kinds.ts'
import { detailsOf, type ServiceEntry } from './types.ts'

export type { KindType }

/** A service as any kind's `GET /{kind}/{id}` answers it: the kind's fields are read through its entry. */
// biome-ignore lint/suspicious/noExplicitAny: each kind reads its own fields of the response
export type AnyService = { id: string; name: string; environment: { id: string } } & Record<string, any>

/** An editable field of a kind's configuration: where it is in the `PUT` body (a JSON pointer), and how it reads. */
export interface FormField {
  path: string
  label: string
  /** A `list` is typed as words apart (a command's arguments); a `boolean` is a checkbox. */
  type: 'text' | 'number' | 'boolean' | 'list'
  /** An empty text is sent as null (the field is unset, not empty). */
  nullable?: boolean
  hint?: string
}

/** A field's value as its input shows it. */
export function fieldText(field: FormField, value: unknown): string {
  if (field.type === 'list') return Array.isArray(value) ? value.join(' ') : ''
  if (field.type === 'boolean') return value === true ? 'true' : 'false'
  return value === null || value === undefined ? '' : String(value)
}

/** What a field's input holds, as the request takes it: a number when it is one (else as typed: the API then says what is wrong). */
export function fieldValue(field: FormField, text: string): unknown {
  if (field.type === 'list') return text.split(/\s+/).filter(Boolean)
  if (field.type === 'boolean') return text === 'true'
  if (field.type === 'number') return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text
  return field.nullable && text.trim() === '' ? null : text
}

export interface VersionField {
  field: 'image_tag' | 'git_commit_id' | 'chart_version'
  label: string
  placeholder: string
}

const COMMIT: VersionField = { field: 'git_commit_id', label: 'Commit', placeholder: 'head of the branch' }
const TAG: VersionField = { field: 'image_tag', label: 'Image tag', placeholder: 'the configured tag' }

/** How a kind reads on screen. */
export interface Presentation {
  /** `Container`, as a heading says it. */
  title: string
  /** The deploy request's field that picks a version, when the service has one (a chart in git takes a commit, not a chart version). */
  versionField(service: AnyService): VersionField | undefined
  /** The value of that field the configuration holds (a container's tag), when it names one: what runs is compared with it. */
  configuredValue?(service: AnyService): string | undefined
  /** Lines of its configuration: label and value. */
  summary(service: AnyService): [string, string][]
  /** The version it is configured with, in a few words. */
  configuredVersion(service: AnyService): string
  /** The fields its form edits, for this service (a job from git has others than one from an image; the helm kind has its own values editor besides). */
  form(service: AnyService): FormField[]
  /** The `PUT /{kind}/{id}` body that keeps everything as read: reads and writes name some fields differently. */
  editRequest(service: AnyService): Record<string, unknown>
}

export type KindSpec = GeneratedKind & Presentation

/** A database engine as its makers write it: `POSTGRESQL` → `PostgreSQL`. */
export const DATABASE_ENGINES: Record<string, string> = { POSTGRESQL: 'PostgreSQL', MYSQL: 'MySQL', MONGODB: 'MongoDB', REDIS: 'Redis' }
export const engineName = (type: string) => DATABASE_ENGINES[type] ?? type

/** What a deployment ran, in the terms of a deploy request's `field` (its tag, commit or chart version), when it says. */
export function versionIn(entry: ServiceEntry, field: VersionField['field']): string | undefined {
  const d = detailsOf(entry)
  if (field === 'image_tag') return d.tag
  if (field === 'chart_version') return d.repository?.chart_version
  return d.git_commit_id ?? d.commit?.git_commit_id ?? undefined
}

/** The version a deployment ran, from its history entry's details: image and tag, commit, chart version. */
export function deployedVersion(entry: ServiceEntry): string {
  const d = detailsOf(entry)
  const parts: string[] = []
  if (d.image_name || d.tag) parts.push(`${d.image_name ?? ''}${d.tag ? `:${d.tag}` : ''}`)
  if (d.repository) parts.push(`${d.repository.chart_name} ${d.repository.chart_version}`)
  const commit = d.git_commit_id ?? d.commit?.git_commit_id
  if (commit) parts.push(`commit ${commit.slice(0, 7)}`)
  if (d.database_type) parts.push(`${engineName(d.database_type)} ${d.version ?? ''}`.trim())
  return parts.join(', ') || '—'
}

const resources = (s: AnyService): [string, string] => [
  'Resources',
  `${s.cpu}m CPU, ${s.memory} MB${s.min_running_instances === undefined ? '' : `, ${s.min_running_instances}–${s.max_running_instances} instance(s)`}`,
]

// The port the service listens on and whether it is public: the address it is reached at is the
// front door's (the Addresses of its overview), not the `external_port` of the configuration.
const ports = (s: AnyService): [string, string] => [
  'Ports',
  Array.isArray(s.ports) && s.ports.length > 0
    ? s.ports
        .map(
          (p: { internal_port: number; publicly_accessible?: boolean; protocol: string }) =>
            `${p.internal_port}/${p.protocol} ${p.publicly_accessible ? 'public (through the front door)' : 'private'}`,
        )
        .join(', ')
    : 'none',
]

/** Drops the fields a read has and a write has not (ids of sub-objects, server-made fields). */
const withoutIds = <T extends Record<string, unknown>>(items: T[] | undefined) => (items ?? []).map(({ id: _id, ...rest }) => rest)

const gitRequest = (repository: Record<string, unknown>) => ({
  url: repository.url,
  branch: repository.branch ?? null,
  root_path: repository.root_path,
  git_token_id: repository.git_token_id ?? null,
  provider: repository.provider,
})

/**
 * The `PUT /helm/{id}` body that keeps everything as read but `valuesOverride`: the API's edit is a
 * full replacement, and reads and writes name some fields differently (the Values tab sends it too).
 */
export function helmRequest(s: AnyService, valuesOverride: { set: string[][]; set_string: string[][]; set_json: string[][]; file?: unknown }) {
  const file = s.values_override.file
  return {
    name: s.name,
    description: s.description ?? null,
    timeout_sec: s.timeout_sec,
    auto_preview: s.auto_preview,
    auto_deploy: s.auto_deploy,
    source:
      'git' in s.source
        ? { git_repository: gitRequest(s.source.git.git_repository) }
        : {
            helm_repository: {
              repository: s.source.repository.repository.id,
              chart_name: s.source.repository.chart_name,
              chart_version: s.source.repository.chart_version,
            },
          },
    arguments: s.arguments,
    allow_cluster_wide_resources: s.allow_cluster_wide_resources,
    values_override: {
      set: valuesOverride.set,
      set_string: valuesOverride.set_string,
      set_json: valuesOverride.set_json,
      file:
        valuesOverride.file === undefined
          ? file?.git
            ? { git: { git_repository: gitRequest(file.git.git_repository), paths: file.git.paths } }
            : file?.raw
              ? { raw: { values: file.raw.values } }
              : null
          : valuesOverride.file,
    },
    ports: (s.ports ?? []).map(({ id: _id, port_type: _type, ...port }: Record<string, unknown>) => port),
    icon_uri: s.icon_uri,
    blueprint_id: s.blueprint_id,
  }
}

const NAME: FormField = { path: '/name', label: 'Name', type: 'text' }
const AUTO_DEPLOY: FormField = { path: '/auto_deploy', label: 'Deploy on each new version (auto deploy)', type: 'boolean' }
const RESOURCE_FIELDS: FormField[] = [
  { path: '/cpu', label: 'CPU (millicores)', type: 'number' },
  { path: '/memory', label: 'Memory (MB)', type: 'number' },
]
const INSTANCE_FIELDS: FormField[] = [
  { path: '/min_running_instances', label: 'Minimum instances', type: 'number' },
  { path: '/max_running_instances', label: 'Maximum instances', type: 'number', hint: '-1: no limit' },
]
const COMMAND_FIELDS: FormField[] = [
  { path: '/entrypoint', label: 'Entrypoint', type: 'text', nullable: true, hint: "empty: the image's own" },
  { path: '/arguments', label: 'Arguments', type: 'list', hint: 'words apart, as the command takes them' },
]
/** Its first port, when it has one: the port it listens on, and whether the front door publishes it. */
const portFields = (s: AnyService): FormField[] =>
  Array.isArray(s.ports) && s.ports.length > 0
    ? [
        { path: '/ports/0/internal_port', label: 'Port it listens on', type: 'number' },
        { path: '/ports/0/publicly_accessible', label: 'Public, through the front door', type: 'boolean' },
      ]
    : []

const PRESENTATIONS: Partial<Record<KindType, Presentation>> = {
  APPLICATION: {
    title: 'Application',
    versionField: () => COMMIT,
    summary: (s) => [
      ['Repository', `${s.git_repository.url}${s.git_repository.branch ? ` (${s.git_repository.branch})` : ''} ${s.git_repository.root_path ?? ''}`],
      ['Build', `${s.build_mode ?? 'DOCKER'}${s.dockerfile_path ? ` ${s.dockerfile_path}` : ''}`],
      resources(s),
      ports(s),
    ],
    configuredVersion: (s) =>
      `${s.git_repository.branch ?? 'default branch'}${s.git_repository.deployed_commit_id ? ` at ${String(s.git_repository.deployed_commit_id).slice(0, 7)}` : ''}`,
    form: (s) => [
      NAME,
      { path: '/git_repository/branch', label: 'Branch', type: 'text' },
      { path: '/git_repository/root_path', label: 'Root path', type: 'text' },
      { path: '/dockerfile_path', label: 'Dockerfile', type: 'text', nullable: true },
      ...RESOURCE_FIELDS,
      ...INSTANCE_FIELDS,
      ...portFields(s),
      ...COMMAND_FIELDS,
      AUTO_DEPLOY,
    ],
    editRequest: (s) => ({
      name: s.name,
      description: s.description ?? null,
      git_repository: gitRequest(s.git_repository),
      build_mode: s.build_mode,
      dockerfile_path: s.dockerfile_path ?? null,
      cpu: s.cpu,
      memory: s.memory,
      min_running_instances: s.min_running_instances,
      max_running_instances: s.max_running_instances,
      healthchecks: s.healthchecks ?? {},
      auto_preview: s.auto_preview,
      auto_deploy: s.auto_deploy,
      arguments: s.arguments ?? [],
      entrypoint: s.entrypoint ?? null,
      ports: withoutIds(s.ports),
      storage: withoutIds(s.storage),
    }),
  },
  CONTAINER: {
    title: 'Container',
    versionField: () => TAG,
    configuredValue: (s) => s.tag,
    summary: (s) => [
      ['Image', `${s.image_name}:${s.tag}`],
      ['Registry', `${s.registry.name} (${s.registry.kind}, ${s.registry.url})`],
      resources(s),
      ports(s),
    ],
    configuredVersion: (s) => `${s.image_name}:${s.tag}`,
    form: (s) => [
      NAME,
      { path: '/image_name', label: 'Image', type: 'text' },
      { path: '/tag', label: 'Tag', type: 'text' },
      ...RESOURCE_FIELDS,
      ...INSTANCE_FIELDS,
      ...portFields(s),
      ...COMMAND_FIELDS,
      AUTO_DEPLOY,
    ],
    editRequest: (s) => ({
      name: s.name,
      description: s.description ?? null,
      registry_id: s.registry.id,
      image_name: s.image_name,
      tag: s.tag,
      arguments: s.arguments ?? [],
      entrypoint: s.entrypoint ?? null,
      cpu: s.cpu,
      memory: s.memory,
      min_running_instances: s.min_running_instances,
      max_running_instances: s.max_running_instances,
      healthchecks: s.healthchecks ?? {},
      auto_preview: s.auto_preview,
      auto_deploy: s.auto_deploy,
      ports: withoutIds(s.ports),
      storage: withoutIds(s.storage),
    }),
  },
  JOB: {
    title: 'Job',
    versionField: (s) => ('image' in s.source ? TAG : COMMIT),
    configuredValue: (s) => ('image' in s.source ? s.source.image.tag : undefined),
    summary: (s) => [
      ['Source', 'image' in s.source ? `${s.source.image.image_name}:${s.source.image.tag}` : `git ${s.source.docker?.git_repository?.url ?? ''}`],
      ['Schedule', s.schedule.cronjob ? `cron "${s.schedule.cronjob.scheduled_at}" (${s.schedule.cronjob.timezone})` : 'lifecycle events'],
      resources(s),
    ],
    configuredVersion: (s) => ('image' in s.source ? `${s.source.image.image_name}:${s.source.image.tag}` : 'built from git'),
    form: (s) => [
      NAME,
      ...('image' in s.source
        ? [
            { path: '/source/image/image_name', label: 'Image', type: 'text' as const },
            { path: '/source/image/tag', label: 'Tag', type: 'text' as const },
          ]
        : [
            { path: '/source/docker/git_repository/branch', label: 'Branch', type: 'text' as const },
            { path: '/source/docker/dockerfile_path', label: 'Dockerfile', type: 'text' as const, nullable: true },
          ]),
      ...(s.schedule.cronjob
        ? [
            { path: '/schedule/cronjob/scheduled_at', label: 'Schedule (cron)', type: 'text' as const, hint: 'minute hour day month weekday' },
            { path: '/schedule/cronjob/timezone', label: 'Timezone', type: 'text' as const },
          ]
        : []),
      ...RESOURCE_FIELDS,
      { path: '/max_nb_restart', label: 'Retries after a failure', type: 'number' },
      { path: '/max_duration_seconds', label: 'Longest run (s)', type: 'number' },
      AUTO_DEPLOY,
    ],
    editRequest: (s) => ({
      name: s.name,
      description: s.description ?? null,
      cpu: s.cpu,
      memory: s.memory,
      max_nb_restart: s.max_nb_restart,
      max_duration_seconds: s.max_duration_seconds,
      auto_preview: s.auto_preview,
      auto_deploy: s.auto_deploy,
      port: s.port ?? null,
      source:
        'image' in s.source
          ? {
              image: {
                image_name: s.source.image.image_name,
                tag: s.source.image.tag,
                registry_id: s.source.image.registry_id ?? s.source.image.registry?.id,
              },
            }
          : { docker: { git_repository: gitRequest(s.source.docker.git_repository), dockerfile_path: s.source.docker.dockerfile_path ?? null } },
      healthchecks: s.healthchecks ?? {},
      schedule: s.schedule,
    }),
  },
  DATABASE: {
    title: 'Database',
    versionField: () => undefined,
    summary: (s) => [
      ['Engine', `${engineName(s.type)} ${s.version}`],
      ['Mode', s.mode === 'MANAGED' ? `managed (${s.instance_type})` : 'container'],
      ['Host', `${s.host}:${s.port} (${String(s.accessibility).toLowerCase()})`],
      ['Resources', `${s.cpu}m CPU, ${s.memory} MB memory, ${s.storage} GB storage`],
    ],
    configuredVersion: (s) => `${engineName(s.type)} ${s.version}`,
    form: () => [
      NAME,
      { path: '/version', label: 'Version', type: 'text' },
      ...RESOURCE_FIELDS,
      { path: '/storage', label: 'Storage (GB)', type: 'number' },
    ],
    editRequest: (s) => ({
      name: s.name,
      description: s.description ?? null,
      version: s.version,
      accessibility: s.accessibility,
      cpu: s.cpu,
      memory: s.memory,
      storage: s.storage,
      ...(s.instance_type ? { instance_type: s.instance_type } : {}),
    }),
  },
  HELM: {
    title: 'Helm service',
    versionField: (s) => ('git' in s.source ? COMMIT : { field: 'chart_version', label: 'Chart version', placeholder: 'the configured version' }),
    configuredValue: (s) => ('git' in s.source ? undefined : s.source.repository.chart_version),
    summary: (s) => [
      [
        'Chart',
        'git' in s.source
          ? `in git ${s.source.git.git_repository.url}${s.source.git.git_repository.branch ? ` (${s.source.git.git_repository.branch})` : ''} ${s.source.git.git_repository.root_path}`
          : `${s.source.repository.chart_name} ${s.source.repository.chart_version} from ${s.source.repository.repository.name}`,
      ],
      ['Arguments', s.arguments.length > 0 ? s.arguments.join(' ') : 'none'],
      ['Auto deploy', s.auto_deploy ? 'yes' : 'no'],
      ['Timeout', `${s.timeout_sec} s`],
      [
        'Ports',
        s.ports.length > 0
          ? s.ports
              .map(
                (p: { name: string; internal_port: number; protocol: string; is_default?: boolean }) =>
                  `${p.name} ${p.internal_port}/${p.protocol}${p.is_default ? ' (default)' : ''}`,
              )
              .join(', ')
          : 'none',
      ],
    ],
    configuredVersion: (s) =>
      'git' in s.source
        ? `chart in git ${s.source.git.git_repository.branch ?? ''}`
        : `${s.source.repository.chart_name} ${s.source.repository.chart_version}`,
    // Its values override has an editor of its own (the Values tab), which sends the whole service too.
    form: (s) => [
      NAME,
      ...('git' in s.source
        ? [{ path: '/source/git_repository/branch', label: 'Branch', type: 'text' as const }]
        : [{ path: '/source/helm_repository/chart_version', label: 'Chart version', type: 'text' as const }]),
      { path: '/arguments', label: 'Arguments', type: 'list', hint: 'helm install arguments, words apart' },
      { path: '/timeout_sec', label: 'Timeout (s)', type: 'number' },
      AUTO_DEPLOY,
    ],
    editRequest: (s) => helmRequest(s, { ...s.values_override, file: undefined }),
  },
  IAC: {
    title: 'Infrastructure as code',
    versionField: () => COMMIT,
    summary: (s) => {
      const git = s.terraform_files_source.git.git_repository
      return [
        ['Repository', `${git.url}${git.branch ? ` (${git.branch})` : ''} ${git.root_path ?? ''}`],
        ['Engine', `${s.engine === 'OPEN_TOFU' ? 'OpenTofu' : 'Terraform'} ${s.provider_version.explicit_version}`],
        [
          'State',
          s.backend.kubernetes
            ? "kept by the cluster (Berth's PostgreSQL on Docker)"
            : s.backend.user_provided
              ? "the repository's own backend"
              : 'blueprint',
        ],
        [
          'Variables',
          `${s.terraform_variables_source.tf_vars.length} variable(s), ${s.terraform_variables_source.tf_var_file_paths.length} tfvars file(s)`,
        ],
        ['Run', `${s.job_resources.cpu_milli}m CPU, ${s.job_resources.ram_mib} MiB, timeout ${s.timeout_sec} s`],
      ]
    },
    configuredVersion: (s) => {
      const git = s.terraform_files_source.git.git_repository
      return `${git.branch ?? 'default branch'}${git.deployed_commit_id ? ` at ${String(git.deployed_commit_id).slice(0, 7)}` : ''}`
    },
    form: () => [
      NAME,
      { path: '/terraform_files_source/git_repository/branch', label: 'Branch', type: 'text' },
      { path: '/auto_deploy_config/auto_deploy', label: 'Deploy on each new commit (auto deploy)', type: 'boolean' },
      { path: '/provider_version/explicit_version', label: 'Engine version', type: 'text' },
      { path: '/timeout_sec', label: 'Timeout (s)', type: 'number' },
    ],
    // A secret variable is sent without its value, which keeps the one stored (docs/iac.md).
    editRequest: (s) => ({
      name: s.name,
      description: s.description ?? '',
      auto_deploy_config: s.auto_deploy_config,
      terraform_files_source: { git_repository: gitRequest(s.terraform_files_source.git.git_repository) },
      terraform_variables_source: {
        tf_var_file_paths: s.terraform_variables_source.tf_var_file_paths,
        tf_vars: s.terraform_variables_source.tf_vars.map((v: { key: string; value?: string; secret: boolean }) =>
          v.secret ? { key: v.key, secret: true } : { key: v.key, value: v.value, secret: false },
        ),
      },
      backend: s.backend,
      engine: s.engine,
      provider_version: s.provider_version,
      timeout_sec: s.timeout_sec,
      icon_uri: s.icon_uri,
      job_resources: s.job_resources,
      use_cluster_credentials: s.use_cluster_credentials,
      action_extra_arguments: s.action_extra_arguments,
      dockerfile_fragment: s.dockerfile_fragment,
      blueprint_id: s.blueprint_id,
    }),
  },
}

/** A kind this console has no presentation for: its page shows what every kind has. */
const generic = (kind: GeneratedKind): Presentation => ({
  title: kind.type.charAt(0) + kind.type.slice(1).toLowerCase().replaceAll('_', ' '),
  versionField: () => undefined,
  summary: () => [],
  configuredVersion: () => 'see its configuration',
  form: () => [],
  editRequest: () => ({}),
})

/** Every kind the server serves, in its registry's order, with how it reads on screen. */
export const KINDS: readonly KindSpec[] = GENERATED_KINDS.map((kind) => ({ ...kind, ...(PRESENTATIONS[kind.type] ?? generic(kind)) }))

/** The kind of a `service_type` (`CONTAINER`; `TERRAFORM` or `IAC` whichever enum words the server answers). */
export const kindOfType = (serviceType: string): KindSpec | undefined =>
  KINDS.find((kind) => kind.type === serviceType || kind.referenceType === serviceType)

/** The kind of a path segment (`container`). */
export const kindOfSegment = (segment: string): KindSpec | undefined => KINDS.find((kind) => kind.segment === segment)

/** The console's page of a service (and one of its tabs), for any kind the server has. */
export function servicePage(serviceType: string, id: string, tab?: string): string | undefined {
  const kind = kindOfType(serviceType)
  return kind ? `#/${kind.segment}/${id}${tab ? `/${tab}` : ''}` : undefined
}

/** The value at a JSON pointer of `object` (`/git_repository/branch`). */
export function valueAt(object: Record<string, unknown>, pointer: string): unknown {
  let at: unknown = object
  for (const key of pointer.split('/').slice(1)) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined
  return at
}

/** Sets the value at a JSON pointer of `object`, making the objects on the way. */
export function setAt(object: Record<string, unknown>, pointer: string, value: unknown): void {
  const keys = pointer.split('/').slice(1)
  let at = object
  for (const key of keys.slice(0, -1)) {
    if (at[key] === null || typeof at[key] !== 'object') at[key] = {}
    at = at[key] as Record<string, unknown>
  }
  at[keys.at(-1)!] = value
}
