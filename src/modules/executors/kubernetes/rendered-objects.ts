import { parse } from 'yaml'

// The guard that runs on a chart's rendered output before anything reaches the cluster: a helm
// service without allow_cluster_wide_resources may only make namespaced objects in its
// environment's namespace. Without an API server to ask, scope comes from this list of the
// cluster-scoped kinds of Kubernetes itself and of the common operators; a custom kind not on it is
// judged by its metadata.namespace alone.

export const CLUSTER_SCOPED_KINDS = new Set([
  'APIService',
  'CertificateSigningRequest',
  'ClusterIssuer',
  'ClusterRole',
  'ClusterRoleBinding',
  'ClusterSecretStore',
  'ComponentStatus',
  'CSIDriver',
  'CSINode',
  'CustomResourceDefinition',
  'FlowSchema',
  'IngressClass',
  'MutatingWebhookConfiguration',
  'Namespace',
  'Node',
  'PersistentVolume',
  'PodSecurityPolicy',
  'PriorityClass',
  'PriorityLevelConfiguration',
  'RuntimeClass',
  'StorageClass',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'ValidatingWebhookConfiguration',
  'VolumeAttachment',
])

export interface RenderedObject {
  kind: string
  name: string
  namespace: string | undefined
  /** The template it came from (`# Source:` comment of helm template), when said. */
  source: string | undefined
}

/** The objects of `helm template` output, in order; empty documents skipped. */
export function renderedObjects(manifest: string): RenderedObject[] {
  const objects: RenderedObject[] = []
  for (const text of manifest.split(/^---[ \t]*$/m)) {
    let value: { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } } | null
    try {
      value = parse(text) as typeof value
    } catch (error) {
      throw new Error(`the chart rendered invalid YAML: ${(error as Error).message.split('\n')[0]}`)
    }
    if (!value || typeof value !== 'object') continue
    objects.push({
      kind: String(value.kind ?? ''),
      name: String(value.metadata?.name ?? ''),
      namespace: typeof value.metadata?.namespace === 'string' ? value.metadata.namespace : undefined,
      source: /^# Source: (.+)$/m.exec(text)?.[1]?.trim(),
    })
  }
  return objects
}

const describe = (object: RenderedObject) =>
  `${object.kind}/${object.name}${object.namespace ? ` in namespace ${object.namespace}` : ''}${object.source ? ` (${object.source})` : ''}`

/**
 * Why the rendered objects may not be installed in `namespace`, one line per object, or [] when they
 * may: cluster-scoped kinds, and objects in another namespace.
 */
export function clusterWideObjects(objects: RenderedObject[], namespace: string): string[] {
  const refused: string[] = []
  for (const object of objects) {
    if (CLUSTER_SCOPED_KINDS.has(object.kind)) refused.push(`${describe(object)} is cluster-scoped`)
    else if (object.namespace !== undefined && object.namespace !== namespace)
      refused.push(`${describe(object)} is outside the namespace ${namespace}`)
  }
  return refused
}
