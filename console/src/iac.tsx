// What an IAC service's page shows besides every kind's: the resources its last apply left
// (`GET /terraform/{id}/terraformResources`, from the engine's `show -json`).
import { api } from './api.ts'
import { formatTime } from './format.ts'
import type { List, TerraformResource } from './types.ts'
import { Empty, Show, useLoad } from './ui.tsx'

export function TerraformResources({ serviceId }: { serviceId: string }) {
  const resources = useLoad(() => api.get<List<TerraformResource>>(`/terraform/${serviceId}/terraformResources`), serviceId)
  return (
    <section class="terraform-resources panel" aria-label="Resources">
      <h2>Resources of the last apply</h2>
      <Show loaded={resources}>
        {({ results }) =>
          results.length === 0 ? (
            <Empty next="Deploy it from its Overview: the apply's resources show here.">No resource applied yet.</Empty>
          ) : (
            <div class="table-wrap">
              <table class="data stack">
                <thead>
                  <tr>
                    <th scope="col">Address</th>
                    <th scope="col">Type</th>
                    <th scope="col">Provider</th>
                    <th scope="col">Read</th>
                  </tr>
                </thead>
                <tbody>
                  {results.map((resource) => (
                    <tr key={resource.id}>
                      <td data-label="Address" class="wrap">
                        {resource.address}
                        {resource.mode === 'data' ? <span class="note"> (data)</span> : null}
                      </td>
                      <td data-label="Type" class="wrap">
                        {resource.resource_type}
                      </td>
                      <td data-label="Provider" class="wrap">
                        {resource.provider}
                      </td>
                      <td data-label="Read">{formatTime(resource.extracted_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
    </section>
  )
}
