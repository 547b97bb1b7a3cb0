import { randomUUID } from 'node:crypto'
import type { HelmConfig } from '#src/modules/services/kinds/helm/helm.types.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'

// A helm service's deployment snapshot as the runner hands it to the Kubernetes executor, for the
// tests that call the executor directly: a chart of a helm repository, nothing overridden.

/** The snapshot of a new helm service `Web App` (chart `webapp` 1.2.3); `configuration` and `snapshot` override its parts. */
export function helmSnapshot(
  configuration: Partial<HelmConfig> = {},
  snapshot: Partial<Omit<ServiceSnapshot<HelmConfig>, 'configuration'>> = {},
): ServiceSnapshot<HelmConfig> {
  return {
    serviceId: randomUUID(),
    kind: 'HELM',
    name: 'Web App',
    version: 1,
    configuration: {
      description: null,
      timeoutSec: 120,
      autoPreview: false,
      autoDeploy: false,
      source: { helmRepository: { repositoryId: 'repo-1', chartName: 'webapp', chartVersion: '1.2.3' } },
      arguments: [],
      allowClusterWideResources: false,
      valuesOverride: { set: [], setString: [], setJson: [], file: null },
      ports: [],
      iconUri: '',
      blueprintId: null,
      ...configuration,
    },
    overrides: {},
    variables: [],
    variablesFingerprint: '',
    advancedSettings: {},
    ...snapshot,
  }
}
