import { MASK } from '#src/platform/secrets/secret-masking.ts'

// The resources of a state as `show -json` describes it (the engine's JSON output format:
// `values.root_module.resources`, and `child_modules` of each module), as terraformResources serves them.
// What the engine marks sensitive and every secret variable's value are masked before they are
// kept: any role reads the resources, and the logs mask the same values.

/** The key of ServiceOutcome.output that holds the resources of an apply. */
export const RESOURCES_OUTPUT = 'terraform_resources'

/** One resource as the reference's TerraformResourceResponse. */
export interface IacResource {
  id: string
  resource_type: string
  name: string
  address: string
  provider: string
  mode: 'managed' | 'data'
  attributes: Record<string, unknown>
  extracted_at: string
}

interface ShownResource {
  address?: unknown
  mode?: unknown
  type?: unknown
  name?: unknown
  provider_name?: unknown
  values?: unknown
  /** The engine's marks: `true` where `values` holds a sensitive value, the same shape around it. */
  sensitive_values?: unknown
}

interface ShownModule {
  resources?: ShownResource[]
  child_modules?: ShownModule[]
}

/** `registry.terraform.io/hashicorp/aws` → `aws`. */
const providerOf = (name: string) => name.split('/').pop() ?? name

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

/**
 * `value` with MASK wherever `sensitive` marks it (`true`, or `true` in the same place of its
 * shape), and every string passed through `mask` (the secret variables' values): the engine marks
 * an attribute sensitive only when its provider or module says so, a secret variable copied into a
 * plain attribute is not.
 */
export function maskedValue(value: unknown, sensitive: unknown, mask: (text: string) => string): unknown {
  if (sensitive === true) return MASK
  if (typeof value === 'string') return mask(value)
  if (Array.isArray(value)) return value.map((item, index) => maskedValue(item, Array.isArray(sensitive) ? sensitive[index] : undefined, mask))
  if (isObject(value)) {
    const marks = isObject(sensitive) ? sensitive : {}
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskedValue(item, marks[key], mask)]))
  }
  return value
}

/** A mask of the secret variables' values: where they appear in a text, and any text equal to one however short. */
export function secretValuesMask(secrets: readonly string[], mask: (text: string) => string): (text: string) => string {
  const whole = new Set(secrets.filter((secret) => secret !== ''))
  return (text) => (whole.has(text) ? MASK : mask(text))
}

/** The resources of a `show -json` document, sensitive values and `mask`ed secrets masked; throws when the text is not one. */
export function resourcesOfShown(text: string, extractedAt: string, mask: (text: string) => string): IacResource[] {
  const shown = JSON.parse(text) as { format_version?: unknown; values?: { root_module?: ShownModule } }
  if (!isObject(shown) || typeof shown.format_version !== 'string') {
    throw new Error('not the JSON output of show: no format_version')
  }
  const resources: IacResource[] = []
  const visit = (module: ShownModule | undefined) => {
    if (!module) return
    for (const resource of module.resources ?? []) {
      if (typeof resource.address !== 'string' || typeof resource.type !== 'string' || typeof resource.name !== 'string') continue
      resources.push({
        id: crypto.randomUUID(),
        resource_type: resource.type,
        name: resource.name,
        address: resource.address,
        provider: providerOf(typeof resource.provider_name === 'string' ? resource.provider_name : ''),
        mode: resource.mode === 'data' ? 'data' : 'managed',
        attributes: isObject(resource.values) ? (maskedValue(resource.values, resource.sensitive_values, mask) as Record<string, unknown>) : {},
        extracted_at: extractedAt,
      })
    }
    for (const child of module.child_modules ?? []) visit(child)
  }
  visit(shown.values?.root_module)
  return resources
}
