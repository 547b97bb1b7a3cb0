// The parts of the API's shapes the console reads (see /openapi.json for all of them).

import type { Role } from '../../src/platform/auth/roles.ts'

// The server's ordering of roles, so that the console hides exactly the buttons the API would refuse.
export { hasRole, type Role } from '../../src/platform/auth/roles.ts'

export interface List<T> {
  results: T[]
}

export interface Organization {
  id: string
  name: string
  description: string | null
}

export interface Project {
  id: string
  name: string
  description: string | null
  organization: { id: string }
  associated_environments_count: number
}

export interface Environment {
  id: string
  name: string
  mode: string
  organization: { id: string }
  project: { id: string }
  cluster_name: string
}

/** Berth extension: `GET /organization/{id}/currentRole`. */
export interface CurrentRole {
  organization_id: string
  role: Role
  role_id: string
}

export interface AuditingData {
  created_at: string
  updated_at: string
  triggered_by: string
  origin?: string
}

export interface ServiceEntry {
  identifier: { name: string; service_id: string; service_type: string; execution_id?: string }
  status: string
  auditing_data: AuditingData
  details: {
    repository?: { chart_name: string; chart_version: string }
    git_commit_id?: string
    image_name?: string
    tag?: string
    /** A database's (a Berth extension). */
    database_type?: string
    version?: string
    mode?: string
    arguments?: string[]
    entrypoint?: string
    /** An application's (and a git chart's): the commit the deployment built, as its git provider described it. */
    commit?: Commit | null
  }
  status_details: { action: string; status: string; sub_action: string }
  total_duration?: string
  message?: string | null
}

export interface Stage {
  name: string
  status: string
  duration: string
  services: ServiceEntry[]
}

export interface DeploymentEntry {
  identifier: { execution_id: string; environment_id: string }
  auditing_data: AuditingData
  status: string
  trigger_action: string
  total_duration: string
  stages: Stage[]
  action_status: string
  message?: string | null
}

export interface HistoryPage {
  page: number
  page_size: number
  results: DeploymentEntry[]
  next_start_id: string | null
  has_more: boolean
}

export type KeyValues = string[][]

export interface Commit {
  git_commit_id: string
  created_at: string
  author_name: string
  message: string
  tag: string
}

/** An application, as far as the console shows it. */
export interface ApplicationService {
  id: string
  name: string
  git_repository: GitRepository & { deployed_commit_id?: string }
}

export interface GitRepository {
  provider: string
  url: string
  branch?: string
  root_path: string
  git_token_id: string | null
  git_token_name: string | null
}

export interface HelmPort {
  id: string
  port_type: string
  name: string
  internal_port: number
  external_port: number
  namespace?: string
  protocol: string
  is_default: boolean
  service_name?: string
  service_selectors?: { key: string; value: string }[]
}

export interface ContainerService {
  id: string
  name: string
  description?: string
  environment: { id: string }
  image_name: string
  tag: string
  registry: { id: string; name: string; url: string; kind: string }
  arguments: string[]
  entrypoint?: string
  cpu: number
  memory: number
  min_running_instances: number
  max_running_instances: number
  auto_deploy: boolean
  ports: { id: string; name: string; internal_port: number; external_port?: number; publicly_accessible: boolean; protocol: string }[]
}

export interface RawValuesFile {
  name: string
  content: string
}

export interface HelmService {
  id: string
  name: string
  description?: string
  environment: { id: string }
  timeout_sec: number
  auto_preview: boolean
  auto_deploy: boolean
  ports: HelmPort[]
  source:
    | { git: { git_repository: GitRepository } }
    | { repository: { chart_name: string; chart_version: string; repository: { id: string; name: string; url: string | null } } }
  arguments: string[]
  allow_cluster_wide_resources: boolean
  values_override: {
    set: KeyValues
    set_string: KeyValues
    set_json: KeyValues
    file: { git?: { git_repository: GitRepository; paths: string[] }; raw?: { values: RawValuesFile[] } } | null
  }
  icon_uri: string
  blueprint_id: string | null
}

/** A database: `GET /database/{id}`. */
export interface DatabaseService {
  id: string
  name: string
  description?: string
  environment: { id: string }
  type: string
  version: string
  mode: string
  accessibility: string
  cpu: number
  memory: number
  storage: number
  host: string
  port: number
  instance_type: string | null
}

/** A service of a deployment stage: `GET /environment/{id}/deploymentStage`. */
export interface StageService {
  service_id: string
  service_type: string
  is_skipped: boolean
}

/** A deployment stage; an environment's deployment runs them by `deployment_order`, 1 first. */
export interface DeploymentStage {
  id: string
  name: string
  description: string
  deployment_order: number
  services: StageService[]
}

/** What the console reads of any kind's service in `GET /environment/{id}/services`. */
export interface ServiceSummary {
  id: string
  name: string
  service_type: string
}

/** A line of a deployment's logs: `GET /environment/{id}/logs` and each event of `…/logs/follow`. */
export interface LogLine {
  /** Berth extension: increasing (a bigint as a string); a reconnecting follower sends the last one as Last-Event-ID. */
  id: string
  /** INFO, WARNING or ERROR. */
  type: string
  timestamp: string
  details: {
    execution_id?: string
    transmitter: { id?: string; name: string; type: string }
    stage: { step: string; id?: string | null; name: string | null }
  }
  error: { tag: string; user_log_message: string } | null
  message: { safe_message: string } | null
}

/** A variable another one aliases or overrides, as a variable response names it. */
export interface LinkedVariable {
  id: string
  key: string
  /** Null for a secret. */
  value: string | null
  mount_path: string | null
  scope: string
  variable_type: string
}

/**
 * A variable or secret as `GET /variable?scope=&parent_id=` lists it: what a scope sees, its own and
 * its parents', built-ins included.
 */
export interface Variable {
  id: string
  key: string
  /** Null for a secret: its value is never returned. An alias's value is the key of the variable it aliases. */
  value: string | null
  /** Set for a file variable: where its value is delivered. */
  mount_path: string | null
  /** PROJECT, ENVIRONMENT, a service's kind (HELM…) or BUILT_IN. */
  scope: string
  variable_type: 'VALUE' | 'FILE' | 'ALIAS' | 'OVERRIDE' | 'BUILT_IN'
  is_secret: boolean
  description: string
  aliased_variable?: LinkedVariable
  overridden_variable?: LinkedVariable
  service_id?: string
}

/** A job as `GET /job/{id}` and `GET /environment/{id}/job` answer it (the fields the console shows). */
export interface JobService {
  id: string
  name: string
  environment: { id: string }
  job_type: 'CRON' | 'LIFECYCLE'
  schedule: {
    cronjob?: { scheduled_at: string; timezone: string; arguments: string[]; entrypoint?: string }
    on_start?: { arguments: string[]; entrypoint?: string }
    on_stop?: { arguments: string[]; entrypoint?: string }
    on_delete?: { arguments: string[]; entrypoint?: string }
  }
  source:
    | { image: { image_name: string; tag: string; registry: { name: string } } }
    | { docker: { git_repository: GitRepository; dockerfile_path: string | null } }
}

/** One page of a service's own history: `GET /job/{id}/deploymentHistoryV2`. */
export interface ServiceHistoryPage {
  results: ServiceEntry[]
}
