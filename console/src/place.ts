// Where the reader is, as the page they look at found out: the shell's navigation follows it
// (the organization its switcher shows, the project and environment it marks). No DOM here.

export interface Place {
  organizationId?: string
  projectId?: string
  environmentId?: string
}

const LAST_ORGANIZATION = 'berth.console.organization'
let current: Place = {}
const listeners = new Set<(place: Place) => void>()

export const place = {
  get: (): Place => current,
  set(next: Place) {
    if (next.organizationId === current.organizationId && next.projectId === current.projectId && next.environmentId === current.environmentId) return
    current = next
    if (next.organizationId) sessionStorage.setItem(LAST_ORGANIZATION, next.organizationId)
    for (const listener of listeners) listener(next)
  },
  subscribe(listener: (place: Place) => void): () => void {
    listeners.add(listener)
    return () => listeners.delete(listener)
  },
  /** The organization looked at last in this tab, for the console's home. */
  lastOrganization: (): string | null => sessionStorage.getItem(LAST_ORGANIZATION),
}
