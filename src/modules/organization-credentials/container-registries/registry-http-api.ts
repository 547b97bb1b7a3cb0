import { type Agent, fetch } from 'undici'
import { createGuardedAgent, PrivateAddressError } from '#src/modules/git-providers/address-guard.ts'
import { readCappedText } from '#src/platform/http/capped-body.ts'
import { AppError } from '#src/platform/http/errors.ts'
import type { SecretConfig } from './container-registries.rules.ts'
import type { ContainerRegistryKind } from './container-registries.schemas.ts'

// Image names and tags of a registry through the Docker Registry HTTP API v2
// (`/v2/<name>/tags/list`, `/v2/_catalog`), with the registry's credentials: HTTP Basic, or the
// bearer token its `WWW-Authenticate` challenge sends for (GHCR, Docker Hub, GitLab, Harbor…).

/** A registry as the listing needs it; `secrets` opened for the call and never logged or quoted. */
export interface RegistryToList {
  kind: ContainerRegistryKind
  url: string
  username: string | undefined
  secrets: SecretConfig
}

export interface ImageVersions {
  imageName: string
  versions: string[]
}

const MAX_BODY_BYTES = 8 * 1024 * 1024
const PAGE_SIZE = 1000
const USER_AGENT = 'berth (container registry listing)'

/** Docker Hub's registry API does not live at docker.io. */
const API_ROOTS: Partial<Record<ContainerRegistryKind, string>> = { DOCKER_HUB: 'https://registry-1.docker.io' }

/** The user name and password the kind logs in with; undefined for an anonymous call. */
export function basicCredentials(registry: RegistryToList): [string, string] | undefined {
  const { kind, secrets, username } = registry
  if (kind === 'SCALEWAY_CR') return secrets.scalewaySecretKey ? ['nologin', secrets.scalewaySecretKey] : undefined
  if (kind === 'GCP_ARTIFACT_REGISTRY') return secrets.jsonCredentials ? ['_json_key', secrets.jsonCredentials] : undefined
  return username && secrets.password ? [username, secrets.password] : undefined
}

/** Kinds whose registries speak the v2 API with static credentials; the others need their cloud's own API (docs/containers.md). */
export const LISTABLE_KINDS = new Set<ContainerRegistryKind>([
  'DOCKER_HUB',
  'GITHUB_CR',
  'GITHUB_ENTERPRISE_CR',
  'GITLAB_CR',
  'GENERIC_CR',
  'SCALEWAY_CR',
  'GCP_ARTIFACT_REGISTRY',
])

/** `Bearer realm="…",service="…",scope="…"` as its parameters; undefined for another scheme. */
function bearerChallenge(header: string | null): Record<string, string> | undefined {
  if (!header || !/^bearer\s/i.test(header)) return undefined
  const params: Record<string, string> = {}
  for (const match of header.slice(7).matchAll(/([a-z_]+)="([^"]*)"/gi)) params[match[1]!.toLowerCase()] = match[2]!
  return params
}

async function readJson(response: Awaited<ReturnType<typeof fetch>>, what: string): Promise<unknown> {
  const text = await readCappedText(response, MAX_BODY_BYTES)
  if (text === undefined) throw new AppError('bad_gateway', `the registry sent more than ${MAX_BODY_BYTES / 1024 / 1024} MiB for ${what}`)
  try {
    return JSON.parse(text)
  } catch {
    throw new AppError('bad_gateway', `the registry answered ${what} with something that is not JSON; does the URL lead to a registry?`)
  }
}

function unreachable(host: string, error: unknown): AppError {
  if (error instanceof AppError) return error
  const chain: unknown[] = []
  for (let current = error; current !== undefined && chain.length < 5; current = (current as { cause?: unknown } | null)?.cause) chain.push(current)
  const refused = chain.find((cause) => cause instanceof PrivateAddressError)
  if (refused) {
    return new AppError(
      'bad_request',
      `the registry URL leads to ${refused.host}, a loopback, private, link-local or metadata address; the server allows those only with BERTH_ALLOW_PRIVATE_URLS=true`,
    )
  }
  if (chain.some((cause) => cause instanceof Error && cause.name === 'TimeoutError')) {
    return new AppError('gateway_timeout', `the registry at ${host} did not answer within BERTH_GIT_TIMEOUT_MS; try again later`)
  }
  return new AppError('bad_gateway', `could not reach the registry at ${host}; try again later`)
}

/** Calls to registries: each within `timeoutMs` overall, through an agent that refuses private addresses unless allowed. */
export function createRegistryHttpApi(settings: { allowPrivateUrls: boolean; timeoutMs: number }) {
  let agent: Agent | undefined

  /** One GET of the registry's API, answering the bearer challenge once; `what` names it in errors. */
  async function getJson(registry: RegistryToList, path: string, scope: string, what: string, signal: AbortSignal): Promise<unknown> {
    const root = new URL(API_ROOTS[registry.kind] ?? registry.url)
    if (root.protocol !== 'https:' && !settings.allowPrivateUrls) {
      throw new AppError(
        'bad_request',
        'the registry URL is plain http: its credentials would travel in clear (BERTH_ALLOW_PRIVATE_URLS=true allows it)',
      )
    }
    agent ??= createGuardedAgent(settings.allowPrivateUrls)
    const url = new URL(path, root)
    const basic = basicCredentials(registry)
    const basicHeader: Record<string, string> = basic ? { authorization: `Basic ${Buffer.from(`${basic[0]}:${basic[1]}`).toString('base64')}` } : {}
    const get = (target: URL, headers: Record<string, string>) =>
      fetch(target, { headers: { accept: 'application/json', 'user-agent': USER_AGENT, ...headers }, dispatcher: agent, signal, redirect: 'error' })

    try {
      let response = await get(url, basicHeader)
      const challenge = response.status === 401 ? bearerChallenge(response.headers.get('www-authenticate')) : undefined
      if (challenge?.realm && URL.canParse(challenge.realm)) {
        await response.body?.cancel()
        const realm = new URL(challenge.realm)
        if (realm.protocol !== 'https:' && !settings.allowPrivateUrls)
          throw new AppError('bad_gateway', 'the registry sent its token service as plain http; refused')
        if (challenge.service) realm.searchParams.set('service', challenge.service)
        realm.searchParams.set('scope', scope)
        const tokenAnswer = await get(realm, basicHeader)
        if (!tokenAnswer.ok) {
          await tokenAnswer.body?.cancel()
          throw refusedCredentials(tokenAnswer.status)
        }
        const body = (await readJson(tokenAnswer, 'a token')) as { token?: unknown; access_token?: unknown } | null
        const token = typeof body?.token === 'string' ? body.token : typeof body?.access_token === 'string' ? body.access_token : undefined
        if (!token) throw new AppError('bad_gateway', "the registry's token service answered without a token")
        response = await get(url, { authorization: `Bearer ${token}` })
      }
      if (response.status === 404) {
        await response.body?.cancel()
        throw new AppError('not_found', `the registry has no ${what}, or its credentials cannot see it`)
      }
      if (response.status === 401 || response.status === 403) {
        await response.body?.cancel()
        throw refusedCredentials(response.status)
      }
      if (!response.ok) {
        await response.body?.cancel()
        throw new AppError('bad_gateway', `the registry answered ${response.status} for ${what}; try again later`)
      }
      return await readJson(response, what)
    } catch (error) {
      throw unreachable(url.host, error)
    }
  }

  const refusedCredentials = (status: number) =>
    new AppError(
      'bad_request',
      `the registry refused the call (${status}): its credentials are wrong, missing or lack the right to read it; edit the registry`,
    )

  return {
    /** The tags of `imageName`, or (without it) the registry's images whose name holds `search`, each without versions. */
    async listVersions(registry: RegistryToList, query: { imageName?: string; search?: string }): Promise<ImageVersions[]> {
      if (!LISTABLE_KINDS.has(registry.kind) || (registry.kind === 'GCP_ARTIFACT_REGISTRY' && !registry.secrets.jsonCredentials)) {
        throw new AppError(
          'bad_request',
          `Berth lists images of registries that speak the Docker Registry HTTP API v2 with static credentials; a ${registry.kind} registry needs its cloud's own API`,
        )
      }
      const signal = AbortSignal.timeout(settings.timeoutMs)
      if (query.imageName) {
        // Docker Hub's official images live under library/.
        const name = registry.kind === 'DOCKER_HUB' && !query.imageName.includes('/') ? `library/${query.imageName}` : query.imageName
        const path = `/v2/${name.split('/').map(encodeURIComponent).join('/')}/tags/list?n=${PAGE_SIZE}`
        const body = (await getJson(registry, path, `repository:${name}:pull`, `image "${query.imageName}"`, signal)) as { tags?: unknown } | null
        const tags = Array.isArray(body?.tags) ? body.tags.filter((tag): tag is string => typeof tag === 'string') : []
        return [{ imageName: query.imageName, versions: tags }]
      }
      const body = (await getJson(registry, `/v2/_catalog?n=${PAGE_SIZE}`, 'registry:catalog:*', 'catalog of images', signal)) as {
        repositories?: unknown
      } | null
      const names = Array.isArray(body?.repositories) ? body.repositories.filter((name): name is string => typeof name === 'string') : []
      const search = query.search?.toLowerCase() ?? ''
      return names.filter((name) => name.toLowerCase().includes(search)).map((imageName) => ({ imageName, versions: [] }))
    },

    async close(): Promise<void> {
      await agent?.destroy()
    },
  }
}

export type RegistryHttpApi = ReturnType<typeof createRegistryHttpApi>
