// Sentences the kinds' route descriptions share (the limits, the conditional edit).

/** The size limit of a configuration. */
export const CONFIG_SIZE_LIMIT = 'a configuration over BERTH_SERVICE_CONFIG_MAX_BYTES (256 KiB of JSON by default) is a 400'

/** The limit of services in an environment. */
export const SERVICES_LIMIT = 'an environment holds at most BERTH_SERVICES_PER_ENVIRONMENT services (200 by default), a 409 past it.'

/** Both limits, as a create's description says them. */
export const BOTH_LIMITS = `${CONFIG_SIZE_LIMIT}; ${SERVICES_LIMIT}`

/** The conditional edit, for `noun` ("the service"). */
export const ifMatchEdit = (noun: string) =>
  `Berth extension: with \`If-Match: <ETag>\` the edit applies only if nobody changed ${noun} since, else 412.`

/** The text with its first letter in upper case, to start a sentence. */
export const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
