// "Failing backups" on the overview (docs/backups.md): each database whose newest backup ended
// ERROR, with the store's or the tool's words, until a later backup ends DONE.
import { api } from './api.ts'
import type { AttentionItem, AttentionSource } from './attention-source.ts'
import { servicePage } from './kinds.ts'
import type { EnvironmentGlance } from './overview-data.ts'
import { usePolled } from './polled.ts'

interface NewestBackup {
  results: { id: string; name: string; backup_status: string; error_message: string | null }[]
}

/** The databases of every environment shown, asked for their newest backup once a minute. */
async function failingBackups(glances: EnvironmentGlance[]): Promise<AttentionItem[]> {
  const databases = glances.flatMap((glance) =>
    glance.services.filter((service) => service.type === 'DATABASE').map((service) => ({ glance, service })),
  )
  const newest = await Promise.all(
    databases.map(({ service }) => api.get<NewestBackup>(`/database/${service.id}/backup?pageSize=1`).then((page) => page.results[0])),
  )
  return databases.flatMap(({ glance, service }, index) => {
    const backup = newest[index]
    if (backup?.backup_status !== 'ERROR') return []
    return [
      {
        key: `backup-${backup.id}`,
        text: `${service.name}: backup ${backup.name} failed${backup.error_message ? `: ${backup.error_message}` : ''}`,
        badge: { text: 'backup failed', tone: 'error' as const },
        href: servicePage(service.type, service.id, 'backups'),
        where: `${glance.project.name} / ${glance.environment.name}`,
      },
    ]
  })
}

export const failingBackupsSource: AttentionSource = {
  id: 'failing-backups',
  title: 'Failing backups',
  useItems: (organizationId, glances) => {
    const key = `${organizationId}:${glances.flatMap((glance) => glance.services.filter((s) => s.type === 'DATABASE').map((s) => s.id)).join(',')}`
    const polled = usePolled(() => failingBackups(glances), key, 60_000)
    return { ...(polled.data ? { items: polled.data } : {}), ...(polled.error ? { error: polled.error } : {}) }
  },
}
