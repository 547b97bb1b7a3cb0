// "Needs attention" on an organization's overview, as one table of sources: each finds what it
// knows is wrong. A feature adds its source (alerts firing, backups failing) as one entry here, its
// reading in a file of its own; a source may read more of the API with `useItems`' hooks.

import { firingAlertsSource } from './alert-attention.ts'
import type { AttentionItem, AttentionSource } from './attention-source.ts'
import { failingBackupsSource } from './backup-attention.ts'
import { isFailed, toneOf, words } from './format.ts'
import { servicePage } from './kinds.ts'
import type { EnvironmentGlance } from './overview-data.ts'
import { servicesIn, triggerWords } from './trigger-words.ts'

export type { AttentionItem, AttentionSource }

const whereOf = (glance: EnvironmentGlance) => `${glance.project.name} / ${glance.environment.name}`

export const ATTENTION_SOURCES: AttentionSource[] = [
  {
    id: 'failed-deployments',
    title: 'Failed deployments',
    // An environment whose newest deployment failed (a later success clears it).
    useItems: (_organizationId, glances) => ({
      items: glances.flatMap((glance) => {
        const newest = glance.deployments[0]
        if (!newest || !isFailed(newest.status)) return []
        const failed = newest.stages.flatMap((stage) => stage.services).filter((service) => isFailed(service.status))
        const what = failed.length > 0 ? failed.map((service) => service.identifier.name).join(', ') : servicesIn(newest)
        return [
          {
            key: `deployment-${newest.identifier.execution_id}`,
            text: `${triggerWords(newest).label}${what ? ` of ${what}` : ''}`,
            badge: { text: words(newest.status), tone: toneOf(newest.status) },
            href: `#/environment/${glance.environment.id}/deployments`,
            where: whereOf(glance),
          },
        ]
      }),
    }),
  },
  {
    id: 'failing-services',
    title: 'Failing services',
    useItems: (_organizationId, glances) => ({
      items: glances.flatMap((glance) =>
        glance.services
          .filter((service) => isFailed(service.state))
          .map((service) => ({
            key: `failing-${service.id}`,
            text: service.name,
            badge: { text: words(service.state), tone: toneOf(service.state) },
            href: servicePage(service.type, service.id),
            where: whereOf(glance),
          })),
      ),
    }),
  },
  {
    id: 'stopped-services',
    title: 'Stopped services',
    useItems: (_organizationId, glances) => ({
      items: glances.flatMap((glance) =>
        glance.services
          .filter((service) => service.state === 'STOPPED')
          .map((service) => ({
            key: `stopped-${service.id}`,
            text: service.name,
            badge: { text: 'stopped', tone: 'canceled' as const },
            href: servicePage(service.type, service.id),
            where: whereOf(glance),
          })),
      ),
    }),
  },
  failingBackupsSource,
  firingAlertsSource,
]
