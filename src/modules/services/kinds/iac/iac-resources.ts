// The resources of a state as `show -json` describes it (the engine's JSON output format:
// `values.root_module.resources`, and `child_modules` of each module), as terraformResources serves them.

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
}

interface ShownModule {
  resources?: ShownResource[]
  child_modules?: ShownModule[]
}

/** `registry.terraform.io/hashicorp/aws` → `aws`. */
const providerOf = (name: string) => name.split('/').pop() ?? name

/** The resources of a `show -json` document; throws when the text is not one. */
export function resourcesOfShown(text: string, extractedAt: string): IacResource[] {
  const shown = JSON.parse(text) as { format_version?: unknown; values?: { root_module?: ShownModule } }
  if (typeof shown !== 'object' || shown === null || typeof shown.format_version !== 'string') {
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
        attributes: typeof resource.values === 'object' && resource.values !== null ? (resource.values as Record<string, unknown>) : {},
        extracted_at: extractedAt,
      })
    }
    for (const child of module.child_modules ?? []) visit(child)
  }
  visit(shown.values?.root_module)
  return resources
}
