// How statuses, durations and times read on screen.

/** The colour family of any status word of the API (state, stage, action and service action statuses). */
export type Tone = 'success' | 'error' | 'running' | 'queued' | 'canceled' | 'neutral'

export function toneOf(status: string): Tone {
  if (status.endsWith('_ERROR') || status === 'ERROR') return 'error'
  if (status.endsWith('_QUEUED') || status === 'QUEUED') return 'queued'
  if (['DEPLOYED', 'RESTARTED', 'DELETED', 'DONE', 'SUCCESS'].includes(status)) return 'success'
  if (['CANCELED', 'SKIPPED', 'NEVER'].includes(status)) return 'canceled'
  if (/ING$/.test(status) || status.startsWith('WAITING_') || status === 'ONGOING') return 'running'
  return 'neutral'
}

export const isFailed = (status: string) => toneOf(status) === 'error'

/** Action statuses of a deployment that still has work to do. */
export const isUnfinished = (actionStatus: string) => ['QUEUED', 'ONGOING', 'CANCELING'].includes(actionStatus)

/** `PT1.503S` → `1.5 s`, `PT2M3S` → `2 min 3 s`, `PT1H4M` → `1 h 4 min`. */
export function formatDuration(duration: string | undefined): string {
  const match = duration ? /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(duration) : null
  if (!match) return duration ?? ''
  const [hours, minutes, seconds] = [Number(match[1] ?? 0), Number(match[2] ?? 0), Number(match[3] ?? 0)]
  if (hours > 0) return `${hours} h ${minutes} min`
  if (minutes > 0) return `${minutes} min ${Math.round(seconds)} s`
  return `${seconds < 10 ? Math.round(seconds * 10) / 10 : Math.round(seconds)} s`
}

/** `Dec 7, 11:30:12`, the year added when it is not this one. */
export function formatTime(iso: string): string {
  const date = new Date(iso)
  const thisYear = date.getFullYear() === new Date().getFullYear()
  return date.toLocaleString(undefined, {
    ...(thisYear ? {} : { year: 'numeric' }),
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  })
}

/** `12 s ago`, `3 min ago`, `5 h ago`, then the date: how long ago `iso` was, at `now`. */
export function timeAgo(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000))
  if (seconds < 60) return `${seconds} s ago`
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`
  return formatTime(iso)
}

/** `DEPLOYMENT_QUEUED` → `deployment queued`. */
export const words = (status: string) => status.toLowerCase().replaceAll('_', ' ')
