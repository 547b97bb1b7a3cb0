// What a source of the overview's "Needs attention" gives (attention.tsx lists the sources).
import type { Tone } from './format.ts'
import type { EnvironmentGlance } from './overview-data.ts'

export interface AttentionItem {
  key: string
  /** What is wrong, in a few words. */
  text: string
  /** A status badge before it. */
  badge?: { text: string; tone: Tone }
  href?: string | undefined
  /** Where: project and environment. */
  where: string
}

export interface AttentionSource {
  id: string
  title: string
  /** A hook: called on every render of the overview, in this table's order. */
  useItems(organizationId: string, glances: EnvironmentGlance[]): { items?: AttentionItem[]; error?: string }
}
