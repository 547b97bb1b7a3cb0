import type { RequireService } from '#src/modules/services/require-service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import type { ServiceKinds } from '../service-kinds.ts'
import type { AdvancedSettingsRepository } from './advanced-settings.repository.ts'
import { type AdvancedSettings, defaultsOf, overridesIn, type Settings, takesSetting } from './advanced-settings.schemas.ts'

// Advanced settings of every kind of service. A read is the kind's defaults overlaid with what the
// service was given; an edit sets the keys it names and leaves the others as they were (the
// Terraform provider and the platform's console send every key back, as read, with theirs changed).
// Berth keeps them and honours none yet (docs/advanced-settings.md, "Advanced settings").

export interface AdvancedSettingsDeps {
  repo: AdvancedSettingsRepository
  /** The kinds served: each one's `advancedSettings` is its table of keys. */
  kinds: ServiceKinds
  requireService: RequireService
}

/** The table of keys of `kind`; undefined for a kind without advanced settings (databases). */
const tableOf = (kinds: ServiceKinds, kind: string): Settings | undefined => kinds.get(kind as ServiceType)?.advancedSettings

/**
 * Every setting of a service with the table `settings`, given what is stored for it: the table's
 * defaults overlaid with the stored keys it has. A stored value the key no longer takes (jobs'
 * `cronjob.concurrency_policy` was any text in an earlier Berth) reads as the default instead, so
 * that a client that sends back what it read is not refused.
 */
export function effectiveSettings(settings: Settings, stored: AdvancedSettings): AdvancedSettings {
  const valid = Object.entries(stored).filter(([key, value]) => takesSetting(settings, key, value))
  return { ...defaultsOf(settings), ...overridesIn(settings, Object.fromEntries(valid)) }
}

/**
 * The settings each service deploys with, for a deployment's snapshots: every key, as of the
 * trigger, so that an executor honours what was set when the deployment was asked for; {} for a
 * kind without advanced settings.
 */
export async function settingsForDeployment(
  repo: Pick<AdvancedSettingsRepository, 'findMany'>,
  kinds: ServiceKinds,
  services: { id: string; kind: string }[],
) {
  const stored = await repo.findMany(services.filter((service) => tableOf(kinds, service.kind)).map((service) => service.id))
  return new Map(
    services.map((service) => {
      const settings = tableOf(kinds, service.kind)
      return [service.id, settings ? effectiveSettings(settings, stored.get(service.id) ?? {}) : {}]
    }),
  )
}

export function createAdvancedSettingsService(deps: AdvancedSettingsDeps) {
  const { repo, kinds } = deps

  /** The table of a kind the routes serve: one with advanced settings. */
  const table = (kind: ServiceType): Settings => {
    const settings = tableOf(kinds, kind)
    if (!settings) throw new Error(`${kind} has no advanced settings`)
    return settings
  }
  const effective = async (kind: ServiceType, serviceId: string): Promise<AdvancedSettings> =>
    effectiveSettings(table(kind), await repo.find(serviceId))

  return {
    /** The values a service of the kind has before anything was set. */
    defaults: (kind: ServiceType): AdvancedSettings => defaultsOf(table(kind)),

    async get(principal: Principal, kind: ServiceType, serviceId: string): Promise<AdvancedSettings> {
      await deps.requireService(principal, serviceId, 'READ', kind)
      return effective(kind, serviceId)
    },

    async edit(principal: Principal, kind: ServiceType, serviceId: string, changes: AdvancedSettings): Promise<AdvancedSettings> {
      await deps.requireService(principal, serviceId, 'WRITE', kind)
      const set = overridesIn(table(kind), changes)
      await repo.merge(
        serviceId,
        set,
        Object.keys(changes).filter((key) => !(key in set)),
      )
      return effective(kind, serviceId)
    },

    /** What each service deploys with, for a deployment's snapshots. */
    forDeployment: (services: { id: string; kind: string }[]) => settingsForDeployment(repo, kinds, services),
  }
}

export type AdvancedSettingsService = ReturnType<typeof createAdvancedSettingsService>
