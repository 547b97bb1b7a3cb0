// What the demo needs to know of each kind of service, through the public API only: where the
// kind's services are listed and created, their request body, and their trigger routes. Helm
// services are the only kind Berth has today; another kind is one more entry in SERVICE_KINDS and
// one more member of DemoService.

/** The simulated executor fails a service whose values override sets this key (docs/deployments.md, "Simulated deployments"). */
const SIMULATE_FAILURE_KEY = 'berth.simulate.fail'

export interface DemoHelmService {
  kind: 'helm'
  name: string
  /** The name of one of the demo's helm repositories. */
  repository: string
  chart: string
  version: string
  values: [string, string][]
}

export type DemoService = DemoHelmService

/** Ids of what the organization holds that services refer to, by name. */
export interface DemoReferences {
  helmRepositories: ReadonlyMap<string, string>
}

export interface ServiceKind<S extends DemoService> {
  /** The scope its variables are created in (`variable_scope`). */
  variableScope: string
  /** Where the environment's services of this kind are listed (GET) and created (POST). */
  collection(environmentId: string): string
  /** The service itself: PUT replaces it; `/deploy`, `/redeploy`, `/stop` below it trigger. */
  resource(serviceId: string): string
  /** The create and full-replacement body; `failing` makes the simulated executor fail the service's deployments. */
  body(service: S, references: DemoReferences, options: { failing: boolean }): object
  /** The body of a deploy of this one service, at `version` when given. */
  deployBody(version: string | undefined): object
}

const helmKind: ServiceKind<DemoHelmService> = {
  variableScope: 'HELM',
  collection: (environmentId) => `/environment/${environmentId}/helm`,
  resource: (serviceId) => `/helm/${serviceId}`,
  body(service, references, { failing }) {
    const repository = references.helmRepositories.get(service.repository)
    if (!repository) throw new Error(`the demo's helm service "${service.name}" names an unknown helm repository "${service.repository}"`)
    return {
      name: service.name,
      description: `${service.chart} from ${service.repository}`,
      auto_deploy: false,
      source: { helm_repository: { repository, chart_name: service.chart, chart_version: service.version } },
      arguments: ['--wait', '--timeout', '5m'],
      values_override: { set: [...service.values, ...(failing ? [[SIMULATE_FAILURE_KEY, 'true']] : [])] },
    }
  },
  deployBody: (version) => (version === undefined ? {} : { chart_version: version }),
}

export const SERVICE_KINDS: { [K in DemoService['kind']]: ServiceKind<Extract<DemoService, { kind: K }>> } = {
  helm: helmKind,
}

export const kindOf = (service: DemoService): ServiceKind<DemoService> => SERVICE_KINDS[service.kind]
