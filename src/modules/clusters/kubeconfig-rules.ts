import { parse } from 'yaml'
import { resolveHost } from '#src/modules/git-providers/address-guard.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import { hasUrlCredentials } from '#src/platform/http/url-credentials.ts'

// A kubeconfig is checked when it is stored, not when helm first reads it: a WRITE token could
// otherwise point the runner's helm and kubectl at the server's own network (its loopback, the
// cloud's metadata address) or store text that fails every deployment later.

const fail = (path: string, message: string): FieldError => ({ path, message, location: 'body' })

/**
 * Every reason `text` is no usable kubeconfig: not YAML, no cluster, a cluster without a server, a
 * server that is not an https URL, or one that leads into the server's own network (unless
 * `allowPrivateAddresses`, BERTH_ALLOW_PRIVATE_URLS). Paths point into the YAML document.
 * Messages never quote the document: it holds credentials.
 */
export async function kubeconfigErrors(text: string, allowPrivateAddresses: boolean): Promise<FieldError[]> {
  let document: unknown
  try {
    document = parse(text)
  } catch {
    return [fail('', 'is not YAML')]
  }
  const clusters = (document as { clusters?: unknown } | null)?.clusters
  if (typeof document !== 'object' || document === null || !Array.isArray(clusters) || clusters.length === 0) {
    return [fail('/clusters', 'must list at least one cluster')]
  }
  const errors: FieldError[] = []
  for (const [index, entry] of clusters.entries()) {
    const path = `/clusters/${index}/cluster/server`
    const server = (entry as { cluster?: { server?: unknown } } | null)?.cluster?.server
    if (typeof server !== 'string' || server === '') {
      errors.push(fail(path, 'is required: the address of the cluster'))
      continue
    }
    const url = URL.canParse(server) ? new URL(server) : undefined
    if (!url || !['https:', 'http:'].includes(url.protocol) || url.hostname === '') {
      errors.push(fail(path, 'must be an absolute https URL'))
    } else if (hasUrlCredentials(server)) {
      errors.push(fail(path, 'must not hold credentials: they go in users'))
    } else if (!allowPrivateAddresses) {
      if (url.protocol !== 'https:') errors.push(fail(path, 'must be https (the server allows http only with BERTH_ALLOW_PRIVATE_URLS=true)'))
      const check = await resolveHost(url.hostname)
      if (!check.ok) {
        errors.push(fail(path, `must lead to a public address: ${check.reason} (allowed only with BERTH_ALLOW_PRIVATE_URLS=true)`))
      }
    }
  }
  return errors
}
