import type { KindWorkload } from '#src/modules/executors/workload.ts'
import type { HelmConfig } from './helm.types.ts'
import { type HelmDeployOverrides, resolvePlaceholders } from './helm-deployments.ts'

/**
 * What a helm service runs (docs/kubernetes.md): its own chart, from a helm repository (at the
 * deploy's chart version) or git (at the deploy's commit), with its values override, its
 * `qovery.env.NAME` placeholders resolved.
 */
export const helmWorkload: KindWorkload<HelmConfig> = {
  describe({ configuration: config, overrides }) {
    const given = overrides as HelmDeployOverrides
    const { source, valuesOverride } = config
    const { file } = valuesOverride
    return {
      type: 'chart',
      source:
        'helmRepository' in source
          ? {
              repository: {
                repositoryId: source.helmRepository.repositoryId,
                chartName: source.helmRepository.chartName,
                version: given.chartVersion ?? source.helmRepository.chartVersion,
              },
            }
          : { git: { repository: source.git, commit: given.gitCommitId } },
      values: {
        files: file === null ? null : 'raw' in file ? { raw: file.raw.values } : { git: { ...file.git, commit: given.valuesOverrideGitCommitId } },
        set: valuesOverride.set,
        setString: valuesOverride.setString,
        setJson: valuesOverride.setJson,
        resolve: resolvePlaceholders,
      },
      allowClusterWide: config.allowClusterWideResources,
      timeoutSeconds: config.timeoutSec,
      // A client may send a flag and its value as one string.
      extraArguments: config.arguments.flatMap((argument) => argument.trim().split(/\s+/)).filter((word) => word !== ''),
    }
  },
}
