import { parse } from 'yaml'
import { createGuardedAgent } from '#src/modules/git-providers/address-guard.ts'
import type { RegistryHttpApi } from '#src/modules/organization-credentials/container-registries/registry-http-api.ts'
import { AppError } from '#src/platform/http/errors.ts'

// The charts a helm repository really offers, read from it: an HTTPS repository's index.yaml
// (through the address guard, with its credentials, a timeout and a size cap), an OCI repository's
// tags of `<path>/<chart>` through the registry API (registry-http-api.ts: the same guard). Used by
// checkHelmRepository and getHelmCharts.

export interface ChartRepository {
  kind: string
  url: string
  username: string | undefined
  password: string | undefined
  /** The repository's `skip_tls_verification`: its certificate is not checked (the address still is). */
  skipTlsVerification: boolean
}

export interface ChartIndexSettings {
  allowPrivateUrls: boolean
  timeoutMs: number
  registries: Pick<RegistryHttpApi, 'listVersions'>
}

/** An index.yaml larger than this is refused rather than read. */
const MAX_INDEX_BYTES = 32 * 1024 * 1024

async function readCapped(response: Response): Promise<string> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_INDEX_BYTES) {
      await reader.cancel()
      throw new AppError('bad_gateway', 'the helm repository index is larger than Berth reads')
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

export function createChartIndex(settings: ChartIndexSettings) {
  const agents = new Map<boolean, ReturnType<typeof createGuardedAgent>>()
  const agentFor = (skipTlsVerification: boolean) => {
    let agent = agents.get(skipTlsVerification)
    if (!agent) {
      agent = createGuardedAgent(settings.allowPrivateUrls, skipTlsVerification ? { rejectUnauthorized: false } : {})
      agents.set(skipTlsVerification, agent)
    }
    return agent
  }

  async function httpsCharts(repository: ChartRepository): Promise<Map<string, string[]>> {
    const base = new URL(repository.url.endsWith('/') ? repository.url : `${repository.url}/`)
    const withCredentials = repository.username !== undefined && repository.password !== undefined
    if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new AppError('bad_request', 'the helm repository URL must be http(s)')
    if (base.protocol === 'http:' && !settings.allowPrivateUrls)
      throw new AppError('bad_request', 'the helm repository URL is plain http (BERTH_ALLOW_PRIVATE_URLS=true allows it)')
    if (base.protocol === 'http:' && withCredentials)
      throw new AppError('bad_request', 'the helm repository URL is plain http: its credentials would travel in clear')
    const headers: Record<string, string> = { accept: 'application/x-yaml, text/yaml, */*' }
    if (withCredentials) headers.authorization = `Basic ${Buffer.from(`${repository.username}:${repository.password}`).toString('base64')}`
    let response: Response
    try {
      response = await fetch(new URL('index.yaml', base), {
        headers,
        dispatcher: agentFor(repository.skipTlsVerification),
        redirect: 'error',
        signal: AbortSignal.timeout(settings.timeoutMs),
      } as RequestInit)
    } catch (error) {
      const cause = (error as { cause?: { message?: string; code?: string } }).cause
      // A host name that does not exist is the repository's URL at fault, not an upstream failure.
      if (cause?.code === 'ENOTFOUND') throw new AppError('bad_request', `the helm repository's host ${base.hostname} does not resolve: edit its URL`)
      throw new AppError('bad_gateway', `the helm repository at ${base.host} could not be reached: ${cause?.message ?? (error as Error).message}`)
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel()
      throw new AppError('bad_request', `the helm repository refused its credentials (${response.status}); edit the repository`)
    }
    if (!response.ok) {
      await response.body?.cancel()
      throw new AppError('bad_gateway', `the helm repository answered ${response.status} for its index.yaml`)
    }
    let index: { entries?: Record<string, { version?: unknown }[]> }
    try {
      index = (parse(await readCapped(response), { maxAliasCount: 100 }) ?? {}) as typeof index
    } catch (error) {
      if (error instanceof AppError) throw error
      throw new AppError('bad_gateway', 'the helm repository index.yaml is not YAML')
    }
    const charts = new Map<string, string[]>()
    for (const [name, versions] of Object.entries(index.entries ?? {})) {
      if (!Array.isArray(versions)) continue
      charts.set(
        name,
        versions.map((entry) => entry?.version).filter((version): version is string => typeof version === 'string'),
      )
    }
    return charts
  }

  /** OCI: the tags of `<path>/<chart>` at the registry the oci:// URL names. */
  async function ociChart(repository: ChartRepository, chartName: string): Promise<Map<string, string[]>> {
    const url = new URL(repository.url.replace(/^oci:\/\//, 'https://'))
    const path = url.pathname.replace(/^\/+|\/+$/g, '')
    const imageName = path ? `${path}/${chartName}` : chartName
    const listed = await settings.registries.listVersions(
      { kind: 'GENERIC_CR', url: `https://${url.host}`, username: repository.username, secrets: { password: repository.password } },
      { imageName },
    )
    return new Map([[chartName, listed[0]?.versions ?? []]])
  }

  return {
    /**
     * Each chart's versions: every chart of an HTTPS repository's index (or the one named), the
     * named chart's tags for an OCI repository (an OCI repository cannot list its charts).
     */
    async charts(repository: ChartRepository, chartName?: string): Promise<Map<string, string[]>> {
      if (repository.kind === 'HTTPS') {
        const all = await httpsCharts(repository)
        return chartName === undefined ? all : new Map(all.has(chartName) ? [[chartName, all.get(chartName)!]] : [])
      }
      if (chartName === undefined) throw new AppError('bad_request', 'an OCI helm repository lists no charts: name the chart (chartName)')
      try {
        return await ociChart(repository, chartName)
      } catch (error) {
        if (error instanceof AppError && error.code === 'not_found') return new Map()
        throw error
      }
    },
    async close(): Promise<void> {
      await Promise.all([...agents.values()].map((agent) => agent.destroy()))
    },
  }
}

export type ChartIndex = ReturnType<typeof createChartIndex>
