// Caddy's admin API, as the front door uses it: load a whole configuration, and tell whether it answers.

const ADMIN_TIMEOUT_MS = 15_000

export class CaddyRefused extends Error {}

/** Replaces Caddy's whole configuration; rejects with what Caddy said when it refuses it. */
export async function loadConfig(adminUrl: string, config: object): Promise<void> {
  const res = await fetch(`${adminUrl}/load`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(config),
    signal: AbortSignal.timeout(ADMIN_TIMEOUT_MS),
  })
  const text = await res.text()
  if (!res.ok) throw new CaddyRefused(`Caddy's admin API at ${adminUrl} refused the configuration (${res.status}): ${text.slice(0, 500)}`)
}

/** Whether a Caddy answers at the admin address. */
export async function answers(adminUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${adminUrl}/config/`, { signal: AbortSignal.timeout(2_000) })
    await res.body?.cancel()
    return res.ok
  } catch {
    return false
  }
}

/** The admin API's `listen` of the Caddy at this URL as it runs now; `host:port` of the URL when it says none. */
export async function adminListen(adminUrl: string): Promise<string> {
  try {
    const res = await fetch(`${adminUrl}/config/admin/listen`, { signal: AbortSignal.timeout(2_000) })
    if (res.ok) {
      const listen = (await res.json()) as unknown
      if (typeof listen === 'string' && listen !== '') return listen
    }
  } catch {}
  return new URL(adminUrl).host
}

/**
 * The storage root of the Caddy answering at the admin address: the identity of a Caddy Berth runs
 * (each data dir has its own), undefined when none answers or it says none.
 */
export async function storageRoot(adminUrl: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${adminUrl}/config/storage/root`, { signal: AbortSignal.timeout(2_000) })
    if (!res.ok) {
      await res.body?.cancel()
      return undefined
    }
    const root = (await res.json()) as unknown
    return typeof root === 'string' ? root : undefined
  } catch {
    return undefined
  }
}

/** Asks the Caddy at the admin address to exit. */
export async function stopCaddy(adminUrl: string): Promise<void> {
  try {
    const res = await fetch(`${adminUrl}/stop`, { method: 'POST', signal: AbortSignal.timeout(5_000) })
    await res.body?.cancel()
  } catch {}
}
