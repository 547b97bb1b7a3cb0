import { gitRepositoryInput, toGitRepositoryResponse } from '#src/modules/services/git-repositories/git-repositories.ts'
import { coreResponseFields } from '#src/modules/services/service-responses.ts'
import type { HelmRequest, HelmResponse } from './helm.schemas.ts'
import type { HelmServiceInput, HelmServiceRecord, KeyValue } from './helm.types.ts'

/** What a helm service shows when the request gives no icon. */
export const DEFAULT_HELM_ICON_URI = 'app://berth/helm'
const DEFAULT_TIMEOUT_SEC = 600
/** The reference: "If not set a default port will be used". */
const DEFAULT_EXTERNAL_PORT = 443

const pairs = (values: string[][] | undefined): KeyValue[] => (values ?? []).map(([key, value]) => [key!, value!])

/** A helm request that passed its schema and helmRequestErrors, as the service's input. */
export function helmInput(body: HelmRequest): HelmServiceInput {
  const { source, values_override: values } = body
  const file = values.file
  return {
    name: body.name.trim(),
    description: body.description ?? null,
    timeoutSec: body.timeout_sec ?? DEFAULT_TIMEOUT_SEC,
    autoPreview: body.auto_preview ?? null,
    autoDeploy: body.auto_deploy,
    source: source.git_repository
      ? { git: gitRepositoryInput(source.git_repository) }
      : {
          helmRepository: {
            repositoryId: source.helm_repository!.repository,
            chartName: source.helm_repository!.chart_name,
            chartVersion: source.helm_repository!.chart_version,
          },
        },
    arguments: body.arguments,
    allowClusterWideResources: body.allow_cluster_wide_resources ?? false,
    valuesOverride: {
      set: pairs(values.set),
      setString: pairs(values.set_string),
      setJson: pairs(values.set_json),
      file: file?.git
        ? { git: { repository: gitRepositoryInput(file.git.git_repository), paths: file.git.paths } }
        : file?.raw
          ? { raw: { values: file.raw.values.map(({ name, content }) => ({ name, content })) } }
          : null,
    },
    ports: (body.ports ?? []).map((port) => ({
      name: port.name ?? `p${port.internal_port}`,
      internalPort: port.internal_port,
      externalPort: port.external_port ?? DEFAULT_EXTERNAL_PORT,
      namespace: port.namespace ?? null,
      protocol: port.protocol ?? 'HTTP',
      isDefault: port.is_default ?? false,
      serviceName: port.service_name ?? null,
      serviceSelectors: port.service_name === undefined ? (port.service_selectors ?? null) : null,
    })),
    iconUri: body.icon_uri ?? DEFAULT_HELM_ICON_URI,
    blueprintId: body.blueprint_id ?? null,
  }
}

/** A helm service as the reference's `HelmResponse` (contract 2.10). */
export function toHelmResponse(record: HelmServiceRecord): HelmResponse {
  const { source, valuesOverride: values } = record
  const file = values.file
  return {
    ...coreResponseFields(record),
    timeout_sec: record.timeoutSec,
    auto_preview: record.autoPreview,
    auto_deploy: record.autoDeploy,
    ports: record.ports.map((port) => ({
      id: port.id,
      port_type: port.serviceName === null ? 'SERVICE_SELECTORS' : 'SERVICE_NAME',
      name: port.name,
      internal_port: port.internalPort,
      external_port: port.externalPort,
      ...(port.namespace === null ? {} : { namespace: port.namespace }),
      protocol: port.protocol,
      is_default: port.isDefault,
      ...(port.serviceName === null ? { service_selectors: port.serviceSelectors ?? [] } : { service_name: port.serviceName }),
    })),
    source:
      'git' in source
        ? { git: { git_repository: toGitRepositoryResponse(source.git, record.gitTokenNames) } }
        : {
            repository: {
              chart_name: source.helmRepository.chartName,
              chart_version: source.helmRepository.chartVersion,
              repository: {
                id: source.helmRepository.repositoryId,
                name: record.helmRepository?.name ?? '',
                url: record.helmRepository?.url ?? null,
              },
            },
          },
    arguments: record.arguments,
    allow_cluster_wide_resources: record.allowClusterWideResources,
    values_override: {
      set: values.set,
      set_string: values.setString,
      set_json: values.setJson,
      file:
        file === null
          ? null
          : 'git' in file
            ? { git: { git_repository: toGitRepositoryResponse(file.git.repository, record.gitTokenNames), paths: file.git.paths } }
            : { raw: { values: file.raw.values } },
    },
    icon_uri: record.iconUri,
    service_type: 'HELM',
    blueprint_id: record.blueprintId,
  }
}
