import { isIP } from 'node:net'
import path from 'node:path'
import type { FollowStreamLimits } from './modules/services/logs/follow-streams.ts'
import { DEFAULT_RESOURCE_CEILINGS } from './modules/services/resource-ceilings.ts'
import { DEFAULT_VARIABLE_LIMITS } from './modules/variables/variable-rules.ts'
import { ENUM_WORDS, type EnumWords } from './platform/http/enum-words/enum-word-pairs.ts'
import type { RateLimits } from './platform/http/rate-limits.ts'
import type { LogFormatSetting } from './platform/logger.ts'
import { parseSecretKey } from './platform/secrets/secret-box.ts'
import type { SecretKeySettings } from './platform/secrets/secret-key-file.ts'

/** The server's settings, read once from the environment and never changed afterwards. */
export interface Config {
  readonly http: {
    readonly host: string
    readonly port: number
    /** Largest accepted request body, in bytes. */
    readonly bodyLimit: number
    /** How long a stopping server lets in-flight requests finish before it closes them. */
    readonly shutdownGraceMs: number
    /** How much rendered deployment history (bytes of JSON text) a process keeps to serve again while unchanged. */
    readonly historyCacheBytes: number
    /**
     * BERTH_HISTORY_VERSION_TTL_MS: how long an environment's history version (and organization) is
     * remembered, so that a kept page is served without a database round trip (0: read at every
     * request). Changes are announced and forget it sooner; this bounds how long another process's
     * change can go unseen, should its announcement be late.
     */
    readonly historyVersionTtlMs: number
    /** BERTH_LIST_LIMIT: the most items a list (organizations, projects, environments, tokens, members, repositories, services, stages, queues) answers with. */
    readonly listLimit: number
    /** BERTH_LIST_MAX_BYTES: the most bytes of stored service configurations one page of a list of services carries (at least one service). */
    readonly listMaxBytes: number
    /** BERTH_TRUST_PROXY: which proxies' X-Forwarded-For to believe for the client address (Fastify's `trustProxy`). */
    readonly trustProxy: boolean | number | string
    /** BERTH_CORS_ORIGINS: the browser origins allowed to call the API; none: no CORS headers at all. */
    readonly corsOrigins: readonly string[]
    readonly rateLimits: RateLimits
    /** BERTH_FOLLOW_STREAMS_*: the most log follow streams one process keeps open (docs/logs.md). */
    readonly followStreams: FollowStreamLimits
    /**
     * BERTH_ENUM_WORDS: whose enum words the answers use, the contract's neutral ones (`IAC`) or the
     * reference's (`TERRAFORM`), for clients that refuse words they do not know (docs/enum-words.md).
     * Input takes either.
     */
    readonly enumWords: EnumWords
  }
  readonly database: {
    /** External PostgreSQL server; when unset, Berth runs an embedded one in `dataDir`. */
    readonly url: string | undefined
    readonly dataDir: string
    readonly poolSize: number
    /** How long a request waits for a database connection (a free one, or a new one) before 503. */
    readonly connectTimeoutMs: number
    /** How long one query may take before it is abandoned and the request answers 503. */
    readonly queryTimeoutMs: number
    /** BERTH_EMBEDDED_DB_PORTS: the ports the embedded PostgreSQL may listen on; unset, any free one. */
    readonly embeddedPorts: PortRange | undefined
  }
  readonly auth: {
    /** How often remembered `last_used_at` values are written back, in milliseconds. */
    readonly tokenUsageFlushMs: number
    /** How long an authenticated API token is remembered (0: never); any change to it is announced and forgets it sooner. */
    readonly tokenCacheTtlMs: number
    readonly tokenCacheMaxEntries: number
    /** The OpenID Connect issuer whose JWTs the Bearer scheme accepts; Bearer is refused when absent. */
    readonly oidc: OidcSettings | undefined
  }
  readonly log: {
    readonly level: string
    /** BERTH_LOG_FORMAT: JSON lines, text for a person, or (`auto`) text when stdout is a terminal. */
    readonly format: LogFormatSetting
  }
  readonly secrets: {
    /** BERTH_SECRET_KEY; when unset, the data dir's own key file is used (secret-key-file.ts). */
    readonly key: Buffer | undefined
  }
  /** BERTH_VARIABLES_PER_SCOPE and BERTH_VARIABLE_BYTES_PER_SCOPE: what one project, environment or service may hold. */
  readonly variables: {
    readonly perScope: number
    readonly bytesPerScope: number
  }
  /** BERTH_RUNNER_* and BERTH_SIMULATED_*: the deployment runner (docs/architecture.md). */
  readonly runner: {
    /** Whether `berth serve` runs deployments too (`berth worker` always does). */
    readonly inServe: boolean
    readonly concurrency: number
    /** BERTH_RUNNER_SLOTS_PER_ORGANIZATION: the most runs of one organization a runner works on at once (docs/deployments.md, "Fair share"). */
    readonly slotsPerOrganization: number
    /** BERTH_RUNNER_MAX_RUN_MS: the longest any run may take; it then fails, whatever its services' own timeouts. */
    readonly maxRunMs: number
    readonly leaseMs: number
    readonly pollMs: number
    /** How long the simulated executor takes for each service. */
    readonly simulatedStepMs: number
    /** How long deployment log lines are kept (BERTH_LOG_RETENTION_DAYS); runners delete older ones. */
    readonly logRetentionMs: number
    /** BERTH_EXECUTOR: the engine the organizations' default clusters deploy to. */
    readonly executor: 'simulated' | 'docker'
    /** BERTH_DOCKER_PUBLISH_HOST: the host address the Docker executor publishes public ports on. */
    readonly dockerPublishHost: string
    /** BERTH_DOCKER_PUBLISH_PORTS: the host ports published ports are taken from; unset, any free one. */
    readonly dockerPublishPorts: PortRange | undefined
    /** BERTH_DOCKER_DATABASE_IMAGES: where the Docker executor and the Kubernetes chart take databases' official images from. */
    readonly dockerDatabaseImages: string
    /**
     * BERTH_IAC_IMAGES: the image each IAC engine runs in, `ENGINE=image` pairs separated by commas,
     * `{version}` standing for the service's engine version (docs/iac.md).
     */
    readonly iacImages: string
    /** BERTH_DOCKER_PUBLIC_HOST: the host name links give when ports are published on every address (0.0.0.0). */
    readonly dockerPublicHost: string
    /** BERTH_DOCKER_STATUS_TIMEOUT_MS: how long a status or link read waits for the engine before answering the records. */
    readonly dockerStatusTimeoutMs: number
    /** BERTH_DOCKER_PIDS_LIMIT: the most processes one container may run (a fork bomb stops there); 0: the engine's default, none. */
    readonly dockerPidsLimit: number
    /** BERTH_DOCKER_CAP_DROP: the capabilities containers run without, of those the engine grants by default; `ALL` drops every one. */
    readonly dockerCapDrop: readonly string[]
    /** BERTH_BUILD_CONTEXT_MAX_BYTES: the most bytes of files a build's context may send to the engine; a larger one fails the build. */
    readonly buildContextMaxBytes: number
    /** BERTH_HELM_PATH: the helm program KUBERNETES clusters deploy with. */
    readonly helmPath: string
    /** BERTH_KUBECTL_PATH: the kubectl program that stops and restarts helm releases on KUBERNETES clusters. */
    readonly kubectlPath: string
  }
  /** What one service and one environment may hold (docs/resources.md, "Limits"). */
  readonly services: {
    /** BERTH_SERVICE_CONFIG_MAX_BYTES: the largest configuration a service may store, in bytes of compact JSON. */
    readonly configurationMaxBytes: number
    /** BERTH_SERVICES_PER_ENVIRONMENT: how many services (of every kind) an environment may hold. */
    readonly perEnvironment: number
    /** BERTH_ORGANIZATION_MAX_MEMORY_MB: the most memory an organization's services may ask for together (instances × memory); 0: no ceiling. */
    readonly organizationMaxMemoryMb: number
    /** BERTH_ORGANIZATION_MAX_CPU: the most millicores an organization's services may ask for together (instances × cpu); 0: no ceiling. */
    readonly organizationMaxCpu: number
  }
  /** Preview environments (docs/previews.md). */
  readonly previews: {
    /** BERTH_PREVIEWS_PER_ENVIRONMENT: how many previews one environment may have at once; a further one is refused (and logged), none deleted for it. */
    readonly perEnvironment: number
    /** BERTH_PREVIEW_IDLE_TTL_MS: how long a preview may go without activity (an event of its pull request, a new tag) before it is deleted; 0: never. */
    readonly idleTtlMs: number
    /** BERTH_PREVIEW_SWEEP_INTERVAL_MS: how often the server looks for idle previews. */
    readonly sweepIntervalMs: number
  }
  /** Deployment rules' auto-stop schedules (docs/deployment-rules.md). */
  readonly environmentSchedules: {
    /** BERTH_ENVIRONMENT_SCHEDULE_TICK_MS: how often the server looks for environments to stop or start; 0 never (another process does). */
    readonly tickMs: number
  }
  /** BERTH_GIT_*: timeouts and caching of calls to git providers. */
  readonly git: {
    /** How long one branch listing may take at the provider, every page and connection included, before it fails with 504. */
    readonly timeoutMs: number
    /** How long a branch listing is reused; 0 reuses none (identical concurrent calls still share one). */
    readonly cacheTtlMs: number
    /** How many listings the cache holds at most, least recently used leaving first. */
    readonly cacheMaxEntries: number
  }
  /** Addresses Berth itself calls out to (docs/configuration.md). */
  readonly outbound: {
    /**
     * BERTH_ALLOW_PRIVATE_URLS (old name BERTH_GIT_ALLOW_PRIVATE_URLS, still read): whether git, registries,
     * chart repositories, kubeconfig servers, webhook and receiver targets, Argo CD and backup destinations
     * may lead to loopback, private, link-local or metadata addresses, and be plain http.
     */
    readonly allowPrivateUrls: boolean
  }
  /** BERTH_PROXY_*, BERTH_APPS_DOMAIN, BERTH_ACME_*: the front door, Caddy in front of what the Docker executor runs (docs/front-door.md). */
  readonly proxy: ProxySettings
  /** BERTH_DOMAIN_CHECK_*: the DNS look-ups of custom domains' checks. */
  readonly domainCheck: {
    /** BERTH_DOMAIN_CHECK_TIMEOUT_MS: the most the check of one domain waits for DNS. */
    readonly timeoutMs: number
    /** BERTH_DOMAIN_CHECK_DNS_SERVERS: comma-separated `ip` or `ip:port` of the DNS servers asked; the system's when empty. */
    readonly servers: readonly string[]
    /**
     * BERTH_OWN_HOST_NAMES: comma-separated host names Berth itself is reached at (its API and
     * console), with BERTH_DOCKER_PUBLIC_HOST: no custom domain (nor a wildcard over one) may take them.
     */
    readonly ownHostNames: readonly string[]
  }
  /** BERTH_ARGOCD_*: the Argo CD integration (docs/argocd.md). */
  readonly argocd: {
    /** BERTH_ARGOCD_POLL_INTERVAL_MS: how often each registered Argo CD is polled. */
    readonly pollIntervalMs: number
    /** BERTH_ARGOCD_TIMEOUT_MS: how long one call to an Argo CD may take. */
    readonly timeoutMs: number
  }
  /** BERTH_WEBHOOK_*, BERTH_PUBLIC_URL: delivering organizations' outbound webhooks (docs/webhooks.md). */
  readonly webhooks: WebhookSettings
  /** BERTH_AUDIT_RETENTION_DAYS: how long the audit log keeps an event (docs/audit-log.md). */
  readonly audit: { readonly retentionDays: number }
}

export interface WebhookSettings {
  /** BERTH_WEBHOOK_TIMEOUT_MS: the most one attempt waits for its target's answer. */
  readonly timeoutMs: number
  /** BERTH_WEBHOOK_RETRY_DELAYS_MS: the waits before each retry, comma-separated; their count is the number of retries. */
  readonly retryDelaysMs: readonly number[]
  /** BERTH_WEBHOOK_CONCURRENCY: how many webhooks a runner delivers to at once (each one's events in turn). */
  readonly concurrency: number
  /** BERTH_PUBLIC_URL: where people reach this server; the console links in webhook bodies start with it. */
  readonly publicUrl: string
}

/**
 * BERTH_RATE_LIMIT_*: requests allowed per window, per process (0: no limit). Each limit counts in
 * fixed windows of `windowMs`.
 */

export interface OidcSettings {
  /** BERTH_OIDC_ISSUER: compared exactly with the `iss` claim; discovery is at `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string
  /** BERTH_OIDC_AUDIENCE: a token's `aud` must contain it. */
  readonly audience: string
  /** BERTH_OIDC_COOLDOWN_MS: the least time between two fetches from the issuer that an unknown key or a failure triggers. */
  readonly cooldownMs: number
}

/** The front door's settings (docs/front-door.md). */
export interface ProxySettings {
  /**
   * BERTH_PROXY: `auto` (the default) runs the front door when BERTH_EXECUTOR=docker: `berth serve`
   * starts and supervises Caddy, unless BERTH_PROXY_ADMIN_URL names the admin API of a Caddy the
   * operator runs; `off`: no front door (services are reached at their published ports only).
   */
  readonly enabled: boolean
  /** BERTH_PROXY_ADMIN_URL: the admin API of a Caddy the operator runs; undefined: Berth runs its own. */
  readonly adminUrl: string | undefined
  /** BERTH_PROXY_ADMIN_PORT: the loopback port of the admin API of the Caddy Berth runs. */
  readonly adminPort: number
  /** BERTH_PROXY_HTTP_PORT: where the front door answers plain HTTP (a redirect to HTTPS, and ACME's HTTP challenge). */
  readonly httpPort: number
  /** BERTH_PROXY_HTTPS_PORT: where the front door serves the services. */
  readonly httpsPort: number
  /** BERTH_PROXY_LISTEN_HOST: the address the front door's HTTP and HTTPS ports bind to (127.0.0.1 on a laptop); undefined: every interface. */
  readonly listenHost: string | undefined
  /** BERTH_APPS_DOMAIN: the domain the services' names are under (`<name>.<domain>`). */
  readonly appsDomain: string
  /** BERTH_ACME_DIRECTORY: the ACME directory certificates come from; undefined: Caddy's own local CA. */
  readonly acmeDirectory: string | undefined
  /** BERTH_ACME_EMAIL: the contact of the ACME account. */
  readonly acmeEmail: string | undefined
  /** BERTH_ACME_CA_ROOT: a PEM file of the root that the ACME directory's own HTTPS certificate is trusted by (a private ACME server). */
  readonly acmeCaRoot: string | undefined
  /** BERTH_CADDY_PATH: the caddy program Berth runs. */
  readonly caddyPath: string
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
const LOG_FORMATS: readonly LogFormatSetting[] = ['auto', 'json', 'pretty']

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`)
  return value
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw === 'true' || raw === '1') return true
  if (raw === 'false' || raw === '0') return false
  throw new ConfigError(`${name} must be true or false, got "${raw}"`)
}

/**
 * BERTH_ALLOW_PRIVATE_URLS, or its old name BERTH_GIT_ALLOW_PRIVATE_URLS when only that is set; both set
 * to different values is a mistake the operator should hear about rather than have one silently win.
 */
function allowPrivateUrls(env: Env): boolean {
  const current =
    env.BERTH_ALLOW_PRIVATE_URLS === undefined || env.BERTH_ALLOW_PRIVATE_URLS === '' ? undefined : flag(env, 'BERTH_ALLOW_PRIVATE_URLS', false)
  const old =
    env.BERTH_GIT_ALLOW_PRIVATE_URLS === undefined || env.BERTH_GIT_ALLOW_PRIVATE_URLS === ''
      ? undefined
      : flag(env, 'BERTH_GIT_ALLOW_PRIVATE_URLS', false)
  if (current !== undefined && old !== undefined && current !== old) {
    throw new ConfigError('BERTH_ALLOW_PRIVATE_URLS and its old name BERTH_GIT_ALLOW_PRIVATE_URLS disagree; set only BERTH_ALLOW_PRIVATE_URLS')
  }
  return current ?? old ?? false
}

/** Host ports `from-to` (or one port), both within 1–65535; undefined when unset. */
export interface PortRange {
  readonly from: number
  readonly to: number
}

function portRange(env: Env, name: string): PortRange | undefined {
  const raw = text(env, name, '').trim()
  if (raw === '') return undefined
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(raw)
  const from = Number(match?.[1])
  const to = Number(match?.[2] ?? match?.[1])
  if (!match || from < 1 || to > 65535 || from > to)
    throw new ConfigError(`${name} must be a port range like 30000-30999 (or one port), got "${raw}"`)
  return Object.freeze({ from, to })
}

/** Comma-separated waits in milliseconds, each up to a day; `none` for no waits at all. */
function delays(env: Env, name: string, fallback: number[]): number[] {
  const raw = text(env, name, '').trim()
  if (raw === '') return fallback
  if (raw === 'none') return []
  const values = raw.split(',').map((part) => part.trim())
  if (values.some((value) => !/^\d+$/.test(value) || Number(value) > 86_400_000)) {
    throw new ConfigError(`${name} must be comma-separated milliseconds (each at most a day), got "${raw}"`)
  }
  return values.map(Number)
}

function text(env: Env, name: string, fallback: string): string {
  const raw = env[name]
  return raw === undefined || raw === '' ? fallback : raw
}

/** Capabilities the engine grants by default that services seldom need: raw sockets (spoofing on the bridge), device nodes, audit, file and process capability changes. */
const DEFAULT_CAP_DROP = ['NET_RAW', 'MKNOD', 'AUDIT_WRITE', 'SETFCAP', 'SETPCAP']

/** A comma-separated list of capability names (`CAP_` optional), upper case; `none` for an empty list. */
function capabilities(env: Env, name: string, fallback: string[]): string[] {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw.trim().toLowerCase() === 'none') return []
  const names = raw
    .split(',')
    .map((part) => part.trim().toUpperCase().replace(/^CAP_/, ''))
    .filter((part) => part !== '')
  const wrong = names.find((part) => !/^[A-Z_]+$/.test(part))
  if (wrong !== undefined) throw new ConfigError(`${name} must list capability names separated by commas (or be none), got "${raw}"`)
  return names
}

/** The Bearer scheme's settings: both BERTH_OIDC_ISSUER and BERTH_OIDC_AUDIENCE, or neither. */
function oidcSettings(env: Env): OidcSettings | undefined {
  const issuer = text(env, 'BERTH_OIDC_ISSUER', '').trim()
  const audience = text(env, 'BERTH_OIDC_AUDIENCE', '').trim()
  if (issuer === '' && audience === '') return undefined
  if (audience === '')
    throw new ConfigError('BERTH_OIDC_AUDIENCE must be set when BERTH_OIDC_ISSUER is (the audience Berth expects in access tokens)')
  if (issuer === '') throw new ConfigError('BERTH_OIDC_ISSUER must be set when BERTH_OIDC_AUDIENCE is (the URL of the OpenID Connect issuer)')
  let url: URL | undefined
  try {
    url = new URL(issuer)
  } catch {}
  if (
    !url ||
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw new ConfigError(`BERTH_OIDC_ISSUER must be an http(s) URL without query, fragment or credentials, got "${issuer}"`)
  }
  // At least a second: a shorter cooldown would let made-up `kid`s make Berth hammer the issuer.
  return Object.freeze({ issuer, audience, cooldownMs: integer(env, 'BERTH_OIDC_COOLDOWN_MS', 30_000, 1_000, 3_600_000) })
}

/** BERTH_TRUST_PROXY: `true`/`false`, a number of proxy hops, or a comma-separated list of proxy addresses or CIDR ranges. */
function trustProxy(env: Env): boolean | number | string {
  const raw = text(env, 'BERTH_TRUST_PROXY', 'false').trim()
  if (raw === 'true' || raw === 'false') return raw === 'true'
  if (/^\d+$/.test(raw)) return Number(raw)
  if (/^[0-9A-Fa-f.:/]+(\s*,\s*[0-9A-Fa-f.:/]+)*$/.test(raw)) return raw
  throw new ConfigError(`BERTH_TRUST_PROXY must be true, false, a number of hops or a list of addresses, got "${raw}"`)
}

/** BERTH_DOMAIN_CHECK_DNS_SERVERS: `1.1.1.1`, `127.0.0.1:5353`, `[::1]:53`, comma-separated. */
function dnsServers(env: Env): string[] {
  const servers = text(env, 'BERTH_DOMAIN_CHECK_DNS_SERVERS', '')
    .split(',')
    .map((server) => server.trim())
    .filter((server) => server !== '')
  for (const server of servers) {
    const match = /^(?:\[([0-9a-f:.]+)\]|([0-9.]+))(?::(\d{1,5}))?$/i.exec(server) ?? /^([0-9a-f:]+)$/i.exec(server)
    const address = match?.[1] ?? match?.[2]
    const port = match?.[3] === undefined ? 53 : Number(match[3])
    if (!address || isIP(address) === 0 || port < 1 || port > 65535) {
      throw new ConfigError(
        `BERTH_DOMAIN_CHECK_DNS_SERVERS must list IP addresses, optionally with a port (1.1.1.1, 127.0.0.1:5353, [::1]:53), got "${server}"`,
      )
    }
  }
  return servers
}

/** BERTH_CORS_ORIGINS: comma-separated origins such as `https://console.example.com`, each exactly scheme://host[:port]. */
function corsOrigins(env: Env): string[] {
  const origins = text(env, 'BERTH_CORS_ORIGINS', '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '')
  for (const origin of origins) {
    let url: URL | undefined
    try {
      url = new URL(origin)
    } catch {}
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== origin) {
      throw new ConfigError(`BERTH_CORS_ORIGINS must list origins like https://console.example.com (no path, no trailing slash), got "${origin}"`)
    }
  }
  return origins
}

/** A host name under which services get theirs: lower-case DNS labels. */
function appsDomain(env: Env): string {
  const raw = text(env, 'BERTH_APPS_DOMAIN', 'localhost').trim().toLowerCase().replace(/\.$/, '')
  if (!/^(?=.{1,200}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(raw))
    throw new ConfigError(`BERTH_APPS_DOMAIN must be a domain name such as apps.example.com, got "${raw}"`)
  return raw
}

/** An http(s) URL setting without credentials, query or fragment; undefined when unset. */
function httpUrl(env: Env, name: string): string | undefined {
  const raw = text(env, name, '').trim()
  if (raw === '') return undefined
  let url: URL | undefined
  try {
    url = new URL(raw)
  } catch {}
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '' || url.hash !== '')
    throw new ConfigError(`${name} must be an http(s) URL without credentials, got "${raw}"`)
  return raw
}

/** BERTH_OWN_HOST_NAMES and BERTH_DOCKER_PUBLIC_HOST, lower case, without duplicates. */
function ownHostNames(env: Env): string[] {
  const names = text(env, 'BERTH_OWN_HOST_NAMES', '')
    .split(',')
    .map((name) => name.trim().toLowerCase().replace(/\.$/, ''))
    .filter((name) => name !== '')
  for (const name of names)
    if (!/^[a-z0-9*]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(name))
      throw new ConfigError(`BERTH_OWN_HOST_NAMES must be comma-separated host names, got "${name}"`)
  const publicHost = text(env, 'BERTH_DOCKER_PUBLIC_HOST', 'localhost').trim().toLowerCase()
  return [...new Set([...names, publicHost])]
}

/** BERTH_PROXY_LISTEN_HOST: an IP address the front door binds to; empty: every interface. */
function listenHost(env: Env): string | undefined {
  const raw = text(env, 'BERTH_PROXY_LISTEN_HOST', '').trim()
  if (raw === '') return undefined
  if (isIP(raw) === 0) throw new ConfigError(`BERTH_PROXY_LISTEN_HOST must be an IP address (127.0.0.1 for loopback only), got "${raw}"`)
  return raw
}

function proxySettings(env: Env, executor: string): ProxySettings {
  const mode = text(env, 'BERTH_PROXY', 'auto')
  if (mode !== 'auto' && mode !== 'off') throw new ConfigError(`BERTH_PROXY must be auto or off, got "${mode}"`)
  const acmeCaRoot = text(env, 'BERTH_ACME_CA_ROOT', '').trim()
  const acmeEmail = text(env, 'BERTH_ACME_EMAIL', '').trim()
  if (acmeEmail !== '' && !/^[^\s@]+@[^\s@]+$/.test(acmeEmail)) throw new ConfigError(`BERTH_ACME_EMAIL must be an email address, got "${acmeEmail}"`)
  return Object.freeze({
    enabled: mode === 'auto' && executor === 'docker',
    adminUrl: httpUrl(env, 'BERTH_PROXY_ADMIN_URL')?.replace(/\/+$/, ''),
    adminPort: integer(env, 'BERTH_PROXY_ADMIN_PORT', 2019, 1, 65535),
    httpPort: integer(env, 'BERTH_PROXY_HTTP_PORT', 8880, 1, 65535),
    httpsPort: integer(env, 'BERTH_PROXY_HTTPS_PORT', 8443, 1, 65535),
    listenHost: listenHost(env),
    appsDomain: appsDomain(env),
    acmeDirectory: httpUrl(env, 'BERTH_ACME_DIRECTORY'),
    acmeEmail: acmeEmail === '' ? undefined : acmeEmail,
    acmeCaRoot: acmeCaRoot === '' ? undefined : path.resolve(acmeCaRoot),
    caddyPath: text(env, 'BERTH_CADDY_PATH', 'caddy'),
  })
}

/** Reads and validates the environment; throws `ConfigError` naming the bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = env.DATABASE_URL === '' ? undefined : env.DATABASE_URL
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL')
  }
  const level = text(env, 'BERTH_LOG_LEVEL', 'info')
  if (!LOG_LEVELS.has(level)) throw new ConfigError(`BERTH_LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}`)
  const executor = text(env, 'BERTH_EXECUTOR', 'simulated')
  if (executor !== 'simulated' && executor !== 'docker') throw new ConfigError(`BERTH_EXECUTOR must be simulated or docker, got "${executor}"`)
  const logFormat = text(env, 'BERTH_LOG_FORMAT', 'auto') as LogFormatSetting
  if (!LOG_FORMATS.includes(logFormat)) throw new ConfigError(`BERTH_LOG_FORMAT must be auto, json or pretty, got "${logFormat}"`)
  const enumWords = text(env, 'BERTH_ENUM_WORDS', 'contract') as EnumWords
  if (!ENUM_WORDS.includes(enumWords)) throw new ConfigError(`BERTH_ENUM_WORDS must be contract or reference, got "${enumWords}"`)
  const secretKeyText = text(env, 'BERTH_SECRET_KEY', '')
  const secretKey = secretKeyText === '' ? undefined : parseSecretKey(secretKeyText)
  if (secretKeyText !== '' && !secretKey) {
    throw new ConfigError('BERTH_SECRET_KEY must be 32 bytes written as 64 hex digits or as base64 (e.g. `openssl rand -hex 32`)')
  }
  return Object.freeze({
    http: Object.freeze({
      host: text(env, 'HOST', '127.0.0.1'),
      port: integer(env, 'PORT', 8080, 0, 65535),
      bodyLimit: 1024 * 1024,
      shutdownGraceMs: integer(env, 'BERTH_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
      historyCacheBytes: integer(env, 'BERTH_HISTORY_CACHE_MB', 32, 0, 100_000) * 1024 * 1024,
      historyVersionTtlMs: integer(env, 'BERTH_HISTORY_VERSION_TTL_MS', 1_000, 0, 3_600_000),
      listLimit: integer(env, 'BERTH_LIST_LIMIT', 1000, 1, 100_000),
      listMaxBytes: integer(env, 'BERTH_LIST_MAX_BYTES', 8 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      trustProxy: trustProxy(env),
      corsOrigins: Object.freeze(corsOrigins(env)),
      enumWords,
      rateLimits: Object.freeze({
        windowMs: integer(env, 'BERTH_RATE_LIMIT_WINDOW_MS', 60_000, 1_000, 86_400_000),
        perCredential: integer(env, 'BERTH_RATE_LIMIT_PER_CREDENTIAL', 6_000, 0, 100_000_000),
        perAddress: integer(env, 'BERTH_RATE_LIMIT_PER_ADDRESS', 20_000, 0, 100_000_000),
        failedAuthPerAddress: integer(env, 'BERTH_RATE_LIMIT_FAILED_AUTH', 60, 0, 100_000_000),
        mintsPerMinute: integer(env, 'BERTH_TOKEN_MINTS_PER_MINUTE', 30, 0, 1_000_000),
      }),
      followStreams: Object.freeze({
        perCredential: integer(env, 'BERTH_FOLLOW_STREAMS_PER_CREDENTIAL', 20, 1, 1_000_000),
        perOrganization: integer(env, 'BERTH_FOLLOW_STREAMS_PER_ORGANIZATION', 50, 1, 1_000_000),
        perProcess: integer(env, 'BERTH_FOLLOW_STREAMS_PER_PROCESS', 500, 1, 1_000_000),
      }),
    }),
    database: Object.freeze({
      url: databaseUrl,
      dataDir: path.resolve(text(env, 'BERTH_DATA_DIR', '.berth')),
      poolSize: integer(env, 'BERTH_DB_POOL_SIZE', 10, 1, 1000),
      connectTimeoutMs: integer(env, 'BERTH_DB_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
      queryTimeoutMs: integer(env, 'BERTH_DB_QUERY_TIMEOUT_MS', 30_000, 100, 3_600_000),
      embeddedPorts: portRange(env, 'BERTH_EMBEDDED_DB_PORTS'),
    }),
    auth: Object.freeze({
      tokenUsageFlushMs: integer(env, 'BERTH_TOKEN_USAGE_FLUSH_MS', 10_000, 10, 3_600_000),
      tokenCacheTtlMs: integer(env, 'BERTH_TOKEN_CACHE_TTL_MS', 10_000, 0, 3_600_000),
      tokenCacheMaxEntries: integer(env, 'BERTH_TOKEN_CACHE_MAX_ENTRIES', 10_000, 1, 10_000_000),
      oidc: oidcSettings(env),
    }),
    log: Object.freeze({ level, format: logFormat }),
    secrets: Object.freeze({ key: secretKey }),
    variables: Object.freeze({
      perScope: integer(env, 'BERTH_VARIABLES_PER_SCOPE', DEFAULT_VARIABLE_LIMITS.perScope, 1, 100_000),
      bytesPerScope: integer(env, 'BERTH_VARIABLE_BYTES_PER_SCOPE', DEFAULT_VARIABLE_LIMITS.bytesPerScope, 1024, 1024 * 1024 * 1024),
    }),
    runner: Object.freeze({
      inServe: flag(env, 'BERTH_RUNNER_IN_SERVE', true),
      concurrency: integer(env, 'BERTH_RUNNER_CONCURRENCY', 4, 1, 1000),
      // Half the slots by default: whatever one organization queues, the other half serves the rest.
      slotsPerOrganization: integer(
        env,
        'BERTH_RUNNER_SLOTS_PER_ORGANIZATION',
        Math.max(1, Math.floor(integer(env, 'BERTH_RUNNER_CONCURRENCY', 4, 1, 1000) / 2)),
        1,
        1000,
      ),
      maxRunMs: integer(env, 'BERTH_RUNNER_MAX_RUN_MS', 7_200_000, 1_000, 604_800_000),
      leaseMs: integer(env, 'BERTH_RUNNER_LEASE_MS', 30_000, 1_000, 3_600_000),
      pollMs: integer(env, 'BERTH_RUNNER_POLL_MS', 500, 10, 60_000),
      simulatedStepMs: integer(env, 'BERTH_SIMULATED_STEP_MS', 1_000, 0, 3_600_000),
      logRetentionMs: integer(env, 'BERTH_LOG_RETENTION_DAYS', 30, 1, 3650) * 86_400_000,
      executor,
      dockerPublishHost: text(env, 'BERTH_DOCKER_PUBLISH_HOST', '0.0.0.0'),
      dockerPublishPorts: portRange(env, 'BERTH_DOCKER_PUBLISH_PORTS'),
      dockerDatabaseImages: text(env, 'BERTH_DOCKER_DATABASE_IMAGES', 'docker.io/library').replace(/\/+$/, ''),
      dockerPublicHost: text(env, 'BERTH_DOCKER_PUBLIC_HOST', 'localhost'),
      iacImages: text(env, 'BERTH_IAC_IMAGES', 'OPEN_TOFU=ghcr.io/opentofu/opentofu:{version},TERRAFORM=docker.io/hashicorp/terraform:{version}'),
      dockerPidsLimit: integer(env, 'BERTH_DOCKER_PIDS_LIMIT', 1024, 0, 4_194_304),
      dockerCapDrop: capabilities(env, 'BERTH_DOCKER_CAP_DROP', DEFAULT_CAP_DROP),
      buildContextMaxBytes: integer(env, 'BERTH_BUILD_CONTEXT_MAX_BYTES', 512 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
      dockerStatusTimeoutMs: integer(env, 'BERTH_DOCKER_STATUS_TIMEOUT_MS', 1_000, 50, 60_000),
      helmPath: text(env, 'BERTH_HELM_PATH', 'helm'),
      kubectlPath: text(env, 'BERTH_KUBECTL_PATH', 'kubectl'),
    }),
    services: Object.freeze({
      configurationMaxBytes: integer(env, 'BERTH_SERVICE_CONFIG_MAX_BYTES', 256 * 1024, 1024, 64 * 1024 * 1024),
      perEnvironment: integer(env, 'BERTH_SERVICES_PER_ENVIRONMENT', 200, 1, 100_000),
      organizationMaxMemoryMb: integer(env, 'BERTH_ORGANIZATION_MAX_MEMORY_MB', DEFAULT_RESOURCE_CEILINGS.organizationMaxMemoryMb, 0, 1_000_000_000),
      organizationMaxCpu: integer(env, 'BERTH_ORGANIZATION_MAX_CPU', DEFAULT_RESOURCE_CEILINGS.organizationMaxCpu, 0, 1_000_000_000),
    }),
    previews: Object.freeze({
      perEnvironment: integer(env, 'BERTH_PREVIEWS_PER_ENVIRONMENT', 10, 0, 10_000),
      idleTtlMs: integer(env, 'BERTH_PREVIEW_IDLE_TTL_MS', 7 * 24 * 3_600_000, 0, 365 * 24 * 3_600_000),
      sweepIntervalMs: integer(env, 'BERTH_PREVIEW_SWEEP_INTERVAL_MS', 60_000, 100, 24 * 3_600_000),
    }),
    environmentSchedules: Object.freeze({ tickMs: integer(env, 'BERTH_ENVIRONMENT_SCHEDULE_TICK_MS', 15_000, 0, 3_600_000) }),
    git: Object.freeze({
      timeoutMs: integer(env, 'BERTH_GIT_TIMEOUT_MS', 10_000, 1, 600_000),
      cacheTtlMs: integer(env, 'BERTH_GIT_CACHE_TTL_MS', 30_000, 0, 3_600_000),
      cacheMaxEntries: integer(env, 'BERTH_GIT_CACHE_MAX_ENTRIES', 1000, 1, 1_000_000),
    }),
    outbound: Object.freeze({ allowPrivateUrls: allowPrivateUrls(env) }),
    proxy: proxySettings(env, executor),
    domainCheck: Object.freeze({
      timeoutMs: integer(env, 'BERTH_DOMAIN_CHECK_TIMEOUT_MS', 3_000, 10, 60_000),
      servers: Object.freeze(dnsServers(env)),
      ownHostNames: Object.freeze(ownHostNames(env)),
    }),
    argocd: Object.freeze({
      pollIntervalMs: integer(env, 'BERTH_ARGOCD_POLL_INTERVAL_MS', 30_000, 100, 24 * 3_600_000),
      timeoutMs: integer(env, 'BERTH_ARGOCD_TIMEOUT_MS', 10_000, 100, 600_000),
    }),
    webhooks: Object.freeze({
      timeoutMs: integer(env, 'BERTH_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
      retryDelaysMs: Object.freeze(delays(env, 'BERTH_WEBHOOK_RETRY_DELAYS_MS', [10_000, 30_000, 120_000, 300_000, 600_000])),
      concurrency: integer(env, 'BERTH_WEBHOOK_CONCURRENCY', 8, 1, 1000),
      publicUrl: (httpUrl(env, 'BERTH_PUBLIC_URL') ?? `http://localhost:${integer(env, 'PORT', 8080, 0, 65535)}`).replace(/\/+$/, ''),
    }),
    audit: Object.freeze({ retentionDays: integer(env, 'BERTH_AUDIT_RETENTION_DAYS', 365, 1, 36_500) }),
  })
}

/** Where the server's secret key comes from, as platform/secrets takes it. */
export const secretKeySettings = (config: Config): SecretKeySettings => ({ key: config.secrets.key, dataDir: config.database.dataDir })
