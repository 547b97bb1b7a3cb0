import type { DemoService } from './service-kinds.ts'

// What `berth seed --demo` makes: an organization a person can click through in the console, and
// the days of deployments it shows. Everything is found by name, so that seeding again adds only
// what is missing.

export const DEMO_ORGANIZATION = 'Demo'
/** Marks the API tokens the demo mints for its user, so that a new run revokes the one before. */
export const DEMO_TOKEN_DESCRIPTION = 'the demo sign-in token, minted by berth seed --demo'

export interface DemoHelmRepository {
  name: string
  url: string
  description: string
}

/**
 * A variable of a project, environment or service: a value (a secret, a file at `file`), an
 * override of the parent scope's variable of that key, or an alias of the variable `aliases` names.
 */
export type DemoVariable =
  | { key: string; value: string; secret?: boolean; file?: string }
  | { key: string; overrides: string }
  | { key: string; aliases: string }

export interface DemoEnvironment {
  name: string
  mode: 'DEVELOPMENT' | 'STAGING' | 'PRODUCTION'
  services: DemoService[]
  variables: DemoVariable[]
  /** Each service's own variables, by service name. */
  serviceVariables: Record<string, DemoVariable[]>
  /** What happens to it, one step a round (see DEMO_ROUNDS); undefined: nothing that round. */
  history: (DemoAction | undefined)[]
}

export interface DemoProject {
  name: string
  description: string
  variables: DemoVariable[]
  environments: DemoEnvironment[]
}

/** Who triggers the history's deployments: API tokens of the DEPLOY role, made for the seeding and revoked after it. */
export const DEMO_ACTORS = ['ci-pipeline', 'alice', 'bob'] as const
export type DemoActor = (typeof DEMO_ACTORS)[number]

/**
 * One step of an environment's history. `service` names one of its services for a service-level
 * trigger; without, the trigger is the environment's.
 */
export type DemoAction =
  | { do: 'deploy'; by: DemoActor; service?: string; version?: string }
  /** A deploy of the environment in which `service` fails (the simulated executor's failure switch, set for this deploy only). */
  | { do: 'fail'; by: DemoActor; service: string }
  | { do: 'restart'; by: DemoActor; service?: string }
  | { do: 'stop'; by: DemoActor; service?: string }
  /** A deploy of the environment, canceled while still queued, or once it runs. */
  | { do: 'cancel'; by: DemoActor; while: 'queued' | 'running' }

/** How many rounds the history has, spread evenly over DEMO_HISTORY_DAYS. */
export const DEMO_ROUNDS = 8
export const DEMO_HISTORY_DAYS = 4

export const DEMO_HELM_REPOSITORIES: DemoHelmRepository[] = [
  { name: 'bitnami', url: 'https://charts.bitnami.com/bitnami', description: 'Bitnami charts' },
  { name: 'podinfo', url: 'https://stefanprodan.github.io/podinfo', description: 'a small Go web service for trying things out' },
  { name: 'grafana', url: 'https://grafana.github.io/helm-charts', description: 'Grafana Labs charts' },
]

const helm = (name: string, repository: string, chart: string, version: string, values: [string, string][] = []): DemoService => ({
  kind: 'helm',
  name,
  repository,
  chart,
  version,
  values,
})

const storefrontServices = [
  helm('web', 'bitnami', 'nginx', '18.2.4', [['replicaCount', '2']]),
  helm('api', 'podinfo', 'podinfo', '6.7.1', [['ui.message', 'Hello from the demo']]),
  helm('cache', 'bitnami', 'redis', '20.6.2', [['architecture', 'standalone']]),
]

export const DEMO_PROJECTS: DemoProject[] = [
  {
    name: 'storefront',
    description: 'the shop: its web front, its API and their cache',
    variables: [
      { key: 'LOG_LEVEL', value: 'info' },
      { key: 'SENTRY_DSN', value: 'https://demo-key@sentry.example.com/42', secret: true },
    ],
    environments: [
      {
        name: 'production',
        mode: 'PRODUCTION',
        services: storefrontServices,
        variables: [
          { key: 'LOG_LEVEL', overrides: 'warn' },
          { key: 'PUBLIC_URL', value: 'https://shop.example.com' },
        ],
        serviceVariables: {
          api: [
            { key: 'API_BASE_URL', aliases: 'PUBLIC_URL' },
            { key: 'PODINFO_CONFIG', value: 'ui:\n  color: "#34577c"\n', file: '/etc/podinfo/config.yaml' },
          ],
          cache: [{ key: 'REDIS_PASSWORD', value: 'demo-redis-password', secret: true }],
        },
        history: [
          { do: 'deploy', by: 'ci-pipeline' },
          { do: 'deploy', by: 'alice', service: 'web', version: '18.3.0' },
          { do: 'fail', by: 'ci-pipeline', service: 'api' },
          { do: 'deploy', by: 'ci-pipeline' },
          { do: 'restart', by: 'alice' },
          { do: 'cancel', by: 'bob', while: 'queued' },
          { do: 'restart', by: 'alice', service: 'cache' },
          { do: 'deploy', by: 'ci-pipeline' },
        ],
      },
      {
        name: 'staging',
        mode: 'STAGING',
        services: storefrontServices,
        variables: [{ key: 'PUBLIC_URL', value: 'https://staging.shop.example.com' }],
        serviceVariables: { api: [{ key: 'API_BASE_URL', aliases: 'PUBLIC_URL' }] },
        history: [
          { do: 'deploy', by: 'ci-pipeline' },
          { do: 'deploy', by: 'ci-pipeline' },
          { do: 'stop', by: 'bob' },
          { do: 'deploy', by: 'ci-pipeline' },
          { do: 'fail', by: 'ci-pipeline', service: 'web' },
          { do: 'deploy', by: 'ci-pipeline' },
          { do: 'cancel', by: 'alice', while: 'running' },
          { do: 'deploy', by: 'ci-pipeline' },
        ],
      },
    ],
  },
  {
    name: 'data-platform',
    description: 'the database and the dashboards the analysts use',
    variables: [{ key: 'ANALYTICS_DB_PASSWORD', value: 'demo-analytics-password', secret: true }],
    environments: [
      {
        name: 'development',
        mode: 'DEVELOPMENT',
        variables: [{ key: 'GRAFANA_ROOT_URL', value: 'http://grafana.dev.example.com' }],
        serviceVariables: { grafana: [{ key: 'GF_DATABASE_PASSWORD', aliases: 'ANALYTICS_DB_PASSWORD' }] },
        services: [
          helm('postgres', 'bitnami', 'postgresql', '16.4.5', [['primary.persistence.size', '8Gi']]),
          helm('grafana', 'grafana', 'grafana', '8.8.2', [['adminUser', 'admin']]),
        ],
        history: [
          { do: 'deploy', by: 'alice' },
          { do: 'fail', by: 'alice', service: 'postgres' },
          { do: 'deploy', by: 'alice' },
          { do: 'stop', by: 'bob', service: 'grafana' },
          { do: 'restart', by: 'bob' },
          { do: 'deploy', by: 'alice', service: 'postgres', version: '16.5.0' },
          { do: 'stop', by: 'bob' },
          { do: 'deploy', by: 'alice' },
        ],
      },
    ],
  },
]
