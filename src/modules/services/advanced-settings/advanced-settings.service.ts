import type { ServiceType } from '#src/modules/deployments/deployment-states.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import type { AdvancedSettingsRepository } from './advanced-settings.repository.ts'
import {
  type AdvancedSettings,
  defaultSettings,
  isValidSetting,
  overridesIn,
  SETTINGS_KINDS,
  type SettingsKind,
} from './advanced-settings.schemas.ts'

// Advanced settings of every kind of service. A read is the kind's defaults overlaid with what the
// service was given; an edit sets the keys it names and leaves the others as they were (the
// Terraform provider and the platform's console send every key back, as read, with theirs changed).
// Berth keeps them and honours none yet (docs/advanced-settings.md, "Advanced settings").

export interface AdvancedSettingsDeps {
  repo: AdvancedSettingsRepository
  requireService(principal: Principal, serviceId: string, needed: Role, type?: ServiceType): Promise<{ service: { id: string } }>
}

/** The keys of `settings` whose value is not the kind's default: what is worth storing. */
const overridesOf = (kind: SettingsKind, settings: AdvancedSettings): AdvancedSettings => overridesIn(SETTINGS_KINDS[kind].settings, settings)

const hasSettings = (kind: string): kind is SettingsKind => Object.hasOwn(SETTINGS_KINDS, kind)

/**
 * Every setting of a service of `kind`, given what is stored for it: its kind's defaults overlaid
 * with the stored keys the kind has. A kind without advanced settings (databases) has none.
 */
export function effectiveSettings(kind: string, stored: AdvancedSettings): AdvancedSettings {
  if (!hasSettings(kind)) return {}
  const valid = Object.entries(stored).filter(([key, value]) => isValidSetting(kind, key, value))
  return { ...defaultSettings(kind), ...overridesOf(kind, Object.fromEntries(valid)) }
}

/**
 * The settings each service deploys with, for a deployment's snapshots: every key, as of the
 * trigger, so that an executor honours what was set when the deployment was asked for.
 */
export async function settingsForDeployment(repo: Pick<AdvancedSettingsRepository, 'findMany'>, services: { id: string; kind: string }[]) {
  const stored = await repo.findMany(services.filter((service) => hasSettings(service.kind)).map((service) => service.id))
  return new Map(services.map((service) => [service.id, effectiveSettings(service.kind, stored.get(service.id) ?? {})]))
}

export function createAdvancedSettingsService(deps: AdvancedSettingsDeps) {
  const { repo } = deps

  const effective = async (kind: SettingsKind, serviceId: string): Promise<AdvancedSettings> => effectiveSettings(kind, await repo.find(serviceId))

  return {
    defaults: (kind: SettingsKind): AdvancedSettings => defaultSettings(kind),

    async get(principal: Principal, kind: SettingsKind, serviceId: string): Promise<AdvancedSettings> {
      await deps.requireService(principal, serviceId, 'READ', kind)
      return effective(kind, serviceId)
    },

    async edit(principal: Principal, kind: SettingsKind, serviceId: string, changes: AdvancedSettings): Promise<AdvancedSettings> {
      await deps.requireService(principal, serviceId, 'WRITE', kind)
      const set = overridesOf(kind, changes)
      await repo.merge(
        serviceId,
        set,
        Object.keys(changes).filter((key) => !(key in set)),
      )
      return effective(kind, serviceId)
    },

    /** What each service deploys with, for a deployment's snapshots. */
    forDeployment: (services: { id: string; kind: string }[]) => settingsForDeployment(repo, services),
  }
}

export type AdvancedSettingsService = ReturnType<typeof createAdvancedSettingsService>
