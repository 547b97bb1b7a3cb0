import { isDeepStrictEqual } from 'node:util'
import { type TSchema, Type } from 'typebox'
import { Value } from 'typebox/value'

// The advanced settings of each kind of service, key by key as the public document names them
// (ApplicationAdvancedSettings, ContainerAdvancedSettings, JobAdvancedSettings,
// HelmAdvancedSettings), with the values Berth answers before anything was set. The Terraform
// provider takes the keys of the defaults as the set of valid keys: every key has a default, null
// where the platform leaves a setting unset. Bodies refuse keys a kind does not have (a 400 naming
// each), rather than dropping them: a setting that silently vanished would read back as the
// default and show as a perpetual diff.

const MAX_INT = 2_147_483_647
// The builders below are shared with the clusters' settings (src/modules/clusters).
export const Count = (minimum = 0) => Type.Integer({ minimum, maximum: MAX_INT })
export const Percent = (minimum = 0) => Type.Integer({ minimum, maximum: 100 })
export const Text = (maxLength = 1024) => Type.String({ maxLength })
export const OrNull = (schema: TSchema) => Type.Union([schema, Type.Null()])
const NodeLabels = Type.Record(Type.String({ maxLength: 317 }), Type.String({ maxLength: 63 }), { maxProperties: 50 })
const Command = Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 100 })
export const OneOf = (...values: string[]) => Type.Unsafe<string>({ type: 'string', enum: values })

export interface Setting {
  schema: TSchema
  default: unknown
}
export type Settings = Record<string, Setting>
export const s = (schema: TSchema, value: unknown): Setting => ({ schema, default: value })

const build: Settings = {
  'build.timeout_max_sec': s(Count(), 1800),
  'build.cpu_max_in_milli': s(Count(), 4000),
  'build.ram_max_in_gib': s(Count(), 8),
  'build.disable_buildkit_cache': s(Type.Boolean(), false),
  'build.skip_git_submodules': s(Type.Boolean(), false),
}

const customDomainCheck: Settings = { 'deployment.custom_domain_check_enabled': s(Type.Boolean(), true) }

const placement: Settings = {
  'deployment.termination_grace_period_seconds': s(Count(), 30),
  'deployment.affinity.node.required': s(NodeLabels, {}),
}

const pods: Settings = {
  // "Requirred" is the public document's spelling.
  'deployment.antiaffinity.pod': s(OneOf('Preferred', 'Requirred'), 'Preferred'),
  'deployment.topology_spread.zone': s(OneOf('Disabled', 'ScheduleAnyway', 'DoNotSchedule'), 'Disabled'),
}

const lifecycle: Settings = {
  'deployment.lifecycle.post_start_exec_command': s(Command, []),
  'deployment.lifecycle.pre_stop_exec_command': s(Command, []),
}

const updateStrategy: Settings = {
  'deployment.update_strategy.type': s(OneOf('RollingUpdate', 'Recreate'), 'RollingUpdate'),
  'deployment.update_strategy.rolling_update.max_unavailable_percent': s(Percent(), 25),
  'deployment.update_strategy.rolling_update.max_surge_percent': s(Percent(), 25),
}

const ingress: Settings = {
  'network.ingress.proxy_body_size_mb': s(Count(), 100),
  'network.ingress.force_ssl_redirect': s(Type.Boolean(), true),
  'network.ingress.enable_cors': s(Type.Boolean(), false),
  'network.ingress.cors_allow_origin': s(Text(), '*'),
  'network.ingress.cors_allow_methods': s(Text(), 'GET, PUT, POST, DELETE, PATCH, OPTIONS'),
  'network.ingress.cors_allow_headers': s(
    Text(),
    'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization',
  ),
  'network.ingress.proxy_buffer_size_kb': s(Count(), 4),
  'network.ingress.keepalive_time_seconds': s(Count(), 3600),
  'network.ingress.keepalive_timeout_seconds': s(Count(), 60),
  'network.ingress.send_timeout_seconds': s(Count(), 60),
  'network.ingress.proxy_connect_timeout_seconds': s(Count(), 60),
  'network.ingress.proxy_send_timeout_seconds': s(Count(), 60),
  'network.ingress.proxy_read_timeout_seconds': s(Count(), 60),
  'network.ingress.proxy_buffering': s(OneOf('on', 'off'), 'on'),
}
const requestBuffering: Settings = { 'network.ingress.proxy_request_buffering': s(OneOf('on', 'off'), 'on') }
const ingressAccess: Settings = {
  'network.ingress.grpc_send_timeout_seconds': s(Count(), 60),
  'network.ingress.grpc_read_timeout_seconds': s(Count(), 60),
  'network.ingress.whitelist_source_range': s(Text(4096), '0.0.0.0/0'),
  'network.ingress.denylist_source_range': s(Text(4096), ''),
  'network.ingress.extra_headers': s(Text(4096), '{}'),
  'network.ingress.basic_auth_env_var': s(Text(), ''),
  'network.ingress.enable_sticky_session': s(Type.Boolean(), false),
}

/** The Gateway API's timeouts and retries, unset by default: a service's under `network.gateway_api`, a cluster's under `envoy.gateway_api`. */
export const gatewayApiRouting = (prefix: string): Settings => ({
  [`${prefix}.http_request_timeout_seconds`]: s(OrNull(Count()), null),
  [`${prefix}.http_connection_idle_timeout_seconds`]: s(OrNull(Count()), null),
  [`${prefix}.retry.num_retries`]: s(OrNull(Count()), null),
  [`${prefix}.retry.retry_on`]: s(OrNull(Text()), null),
  [`${prefix}.retry.http_status_codes`]: s(OrNull(Text()), null),
  [`${prefix}.retry.per_try_timeout_seconds`]: s(OrNull(Count(1)), null),
})

const gateway = gatewayApiRouting('network.gateway_api')

const autoscaling: Settings = {
  'hpa.cpu.average_utilization_percent': s(Percent(1), 60),
  'hpa.memory.average_utilization_percent': s(OrNull(Percent(1)), null),
}

const security: Settings = {
  'security.service_account_name': s(Text(253), ''),
  'security.automount_service_account_token': s(Type.Boolean(), false),
  'security.read_only_root_filesystem': s(Type.Boolean(), false),
}

const job: Settings = {
  'job.delete_ttl_seconds_after_finished': s(OrNull(Count()), null),
  'cronjob.concurrency_policy': s(OneOf('Allow', 'Forbid', 'Replace'), 'Forbid'),
  'cronjob.failed_jobs_history_limit': s(Count(), 1),
  'cronjob.success_jobs_history_limit': s(Count(), 1),
}

/**
 * The groups of settings the kinds compose their tables of (`features.advancedSettings` in each
 * kind's descriptor), in the order the document lists each kind's keys.
 */
export const SETTING_GROUPS = {
  build,
  customDomainCheck,
  placement,
  pods,
  lifecycle,
  updateStrategy,
  ingress,
  requestBuffering,
  ingressAccess,
  gateway,
  autoscaling,
  security,
  job,
}

/** A kind's advanced settings: the wire name of its settings object (`ContainerAdvancedSettings`), and its keys. */
export interface KindSettings {
  title: string
  settings: Settings
}

export type AdvancedSettings = Record<string, unknown>

/** The values of a table of settings before anything was set. */
export function defaultsOf(settings: Settings): AdvancedSettings {
  return Object.fromEntries(Object.entries(settings).map(([key, setting]) => [key, structuredClone(setting.default)]))
}

/** The keys of `settings` the table has whose value is not its default: what is worth storing. */
export function overridesIn(table: Settings, settings: AdvancedSettings): AdvancedSettings {
  return Object.fromEntries(
    Object.entries(settings).filter(([key, value]) => Object.hasOwn(table, key) && !isDeepStrictEqual(value, table[key]?.default)),
  )
}

/** Whether `value` is one the table's `key` takes. */
export function takesSetting(settings: Settings, key: string, value: unknown): boolean {
  const setting = settings[key]
  return setting !== undefined && Value.Check(setting.schema, value)
}

const properties = (settings: Settings, optional: boolean) =>
  Object.fromEntries(Object.entries(settings).map(([key, { schema }]) => [key, optional ? Type.Optional(schema) : schema]))

/** What a read of a table of settings answers: every key. */
export const settingsResponseOf = (title: string, settings: Settings) => Type.Object(properties(settings, false), { title })

/**
 * What an edit of a table of settings takes: any of its keys. Another key is an error ("must NOT be
 * valid" from Ajv, reworded by the error handler), not stripped: the validator drops only members an
 * `additionalProperties: false` forbids.
 */
export const settingsRequestOf = (title: string, settings: Settings) =>
  Type.Object(properties(settings, true), { title, additionalProperties: Type.Never() })
