import { Type } from 'typebox'
import {
  type AdvancedSettings,
  Count,
  defaultsOf,
  gatewayApiRouting,
  OneOf,
  OrNull,
  overridesIn,
  Percent,
  type Settings,
  s,
  settingsRequestOf,
  settingsResponseOf,
  Text,
  takesSetting,
} from '#src/modules/services/advanced-settings/advanced-settings.schemas.ts'

// A cluster's advanced settings, key by key as the public document's ClusterAdvancedSettings names
// them, with the values Berth answers before anything was set: the document's default where it
// gives one, otherwise Berth's (null where the platform leaves the setting unset). The Terraform
// provider takes the keys of the defaults as the set of valid keys. Berth provisions no
// infrastructure: it keeps these and honours none.

const Cidrs = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 })
const Millis = OrNull(Count(1))
const Toggle = Type.Boolean()
const title = 'ClusterAdvancedSettings'

const loki = (component: string): Settings => ({
  [`loki.${component}.cpu_request_m`]: s(Millis, null),
  [`loki.${component}.cpu_limit_m`]: s(Millis, null),
  [`loki.${component}.memory_request_mib`]: s(Millis, null),
  [`loki.${component}.memory_limit_mib`]: s(Millis, null),
})

const database = (engine: string): Settings => ({
  [`database.${engine}.deny_any_access`]: s(Toggle, false),
  [`database.${engine}.allowed_cidrs`]: s(Cidrs, ['0.0.0.0/0']),
})

/**
 * Berth's own keys (docs/front-door.md, "Kubernetes"): the domain the built-in chart's Ingress
 * hosts are under (the front door's names, `z<8 hex of the id>.<domain>`; null: the derived
 * `berth.localhost` names, and no TLS section), and the cert-manager ClusterIssuer of the Ingress's
 * certificate (null: a TLS section without an issuer, for a certificate put there otherwise).
 */
export const INGRESS_SETTINGS = {
  appsDomain: 'berth.ingress.apps_domain',
  clusterIssuer: 'berth.ingress.cert_manager_cluster_issuer',
} as const

export const CLUSTER_SETTINGS: Settings = {
  [INGRESS_SETTINGS.appsDomain]: s(OrNull(Type.String({ minLength: 1, maxLength: 200, pattern: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$' })), null),
  [INGRESS_SETTINGS.clusterIssuer]: s(OrNull(Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$' })), null),
  'aws.cloudwatch.eks_logs_retention_days': s(Count(), 90),
  'aws.vpc.enable_s3_flow_logs': s(Toggle, false),
  'aws.vpc.flow_logs_retention_days': s(Count(), 365),
  'aws.vpc.enable_nat_gateway_secondary_eip': s(Toggle, false),
  'loki.log_retention_in_week': s(Count(), 12),
  'loki.deployment_mode': s(OneOf('single_binary', 'simple_scalable'), 'single_binary'),
  ...loki('single_binary'),
  ...loki('write'),
  ...loki('read'),
  ...loki('backend'),
  'registry.image_retention_time': s(Count(), 31_536_000),
  'cloud_provider.container_registry.tags': s(
    Type.Record(Type.String({ maxLength: 128 }), Type.String({ maxLength: 256 }), { maxProperties: 50 }),
    {},
  ),
  'aws.eks.enable_alb_controller': s(Toggle, true),
  'aws.eks.enable_efs_addon': s(Toggle, false),
  'aws.eks.efs.throughput_mode': s(OneOf('bursting', 'elastic', 'provisioned'), 'elastic'),
  'aws.eks.efs.performance_mode': s(OneOf('generalPurpose', 'maxIO'), 'generalPurpose'),
  'aws.eks.efs.transition_to_ia': s(
    OneOf('AFTER_1_DAY', 'AFTER_7_DAYS', 'AFTER_14_DAYS', 'AFTER_30_DAYS', 'AFTER_60_DAYS', 'AFTER_90_DAYS', ''),
    'AFTER_30_DAYS',
  ),
  'load_balancer.size': s(Text(64), 'lb-s'),
  ...database('postgresql'),
  ...database('mysql'),
  ...database('mongodb'),
  ...database('redis'),
  'aws.iam.admin_group': s(Text(128), 'Admins'),
  'aws.eks.ec2.metadata_imds': s(OneOf('optional', 'required'), 'optional'),
  'aws.eks.ec2.ami': s(Text(255), 'AmazonLinux2023'),
  // Deprecated in the document; -1 is its "never".
  'pleco.resources_ttl': s(Type.Integer({ minimum: -1, maximum: 2_147_483_647 }), -1),
  'registry.mirroring_mode': s(OneOf('Cluster', 'Service'), 'Service'),
  'nginx.vcpu.request_in_milli_cpu': s(Count(1), 100),
  'nginx.vcpu.limit_in_milli_cpu': s(Count(1), 500),
  'nginx.memory.request_in_mib': s(Count(1), 768),
  'nginx.memory.limit_in_mib': s(Count(1), 768),
  ...gatewayApiRouting('envoy.gateway_api'),
  'nginx.hpa.cpu_utilization_percentage_threshold': s(Percent(1), 50),
  'nginx.hpa.min_number_instances': s(Count(1), 2),
  'nginx.hpa.max_number_instances': s(Count(1), 25),
  'storageclass.fast_ssd': s(Text(253), ''),
  'qovery.static_ip_mode': s(Toggle, false),
  'k8s.api.allowed_public_access_cidrs': s(Cidrs, ['0.0.0.0/0']),
}

export const ClusterAdvancedSettingsResponse = settingsResponseOf(title, CLUSTER_SETTINGS)
export const ClusterAdvancedSettingsRequest = settingsRequestOf(title, CLUSTER_SETTINGS)

/** Every cluster setting as it is before anything was set. */
export const defaultClusterSettings = (): AdvancedSettings => defaultsOf(CLUSTER_SETTINGS)

/** The keys of an edit worth storing: those whose value is not the default. */
export const clusterOverrides = (changes: AdvancedSettings): AdvancedSettings => overridesIn(CLUSTER_SETTINGS, changes)

/** Every setting of a cluster, given what is stored for it: the defaults overlaid with the stored keys still valid. */
export function effectiveClusterSettings(stored: AdvancedSettings): AdvancedSettings {
  const valid = Object.entries(stored).filter(([key, value]) => takesSetting(CLUSTER_SETTINGS, key, value))
  return { ...defaultClusterSettings(), ...clusterOverrides(Object.fromEntries(valid)) }
}
