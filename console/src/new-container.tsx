// Creating a container from the environment page (WRITE and above): an image of one of the
// organization's registries, and optionally a public HTTP port that also serves as its readiness
// check. `POST /environment/{id}/container`; the API's field errors show next to the fields.
import { useState } from 'preact/hooks'
import { api, type FieldError, messageOf } from './api.ts'
import { bodyErrors, FieldErrorText, OtherFieldErrors } from './fields.tsx'
import { ErrorMessage, Show, useLoad } from './pages.tsx'
import type { List } from './types.ts'

interface Registry {
  id: string
  name: string
  kind: string
  url: string
}

const FIELDS = [
  { path: '/name', label: 'Name' },
  { path: '/image_name', label: 'Image', hint: 'without the registry host: image or namespace/image' },
  { path: '/tag', label: 'Tag' },
  { path: '/ports/0/internal_port', label: 'HTTP port (optional)', hint: 'published, and checked for readiness' },
] as const

export function NewContainer({ environmentId, organizationId }: { environmentId: string; organizationId: string }) {
  const registries = useLoad(() => api.get<List<Registry>>(`/organization/${organizationId}/containerRegistry`), organizationId)
  const [open, setOpen] = useState(false)
  const [values, setValues] = useState<Record<string, string>>({ '/name': '', '/image_name': '', '/tag': '', '/ports/0/internal_port': '' })
  const [registryId, setRegistryId] = useState('')
  const [errors, setErrors] = useState<FieldError[]>([])
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)

  async function create(event: Event, fallbackRegistry: string) {
    event.preventDefault()
    setBusy(true)
    setErrors([])
    setError(undefined)
    const typedPort = values['/ports/0/internal_port']!.trim()
    const port = typedPort === '' ? undefined : Number.isFinite(Number(typedPort)) ? Number(typedPort) : typedPort
    try {
      const created = await api.post<{ id: string }>(`/environment/${environmentId}/container`, {
        name: values['/name'],
        registry_id: registryId || fallbackRegistry,
        image_name: values['/image_name'],
        tag: values['/tag'],
        arguments: [],
        min_running_instances: 1,
        max_running_instances: 1,
        ports: port === undefined ? [] : [{ name: 'http', internal_port: port, external_port: 443, publicly_accessible: true, protocol: 'HTTP' }],
        healthchecks:
          typeof port === 'number'
            ? {
                readiness_probe: {
                  type: { http: { path: '/', port } },
                  initial_delay_seconds: 0,
                  period_seconds: 2,
                  timeout_seconds: 2,
                  failure_threshold: 15,
                },
              }
            : {},
      })
      if (created) location.hash = `#/container/${created.id}`
    } catch (failure) {
      setError(messageOf(failure))
      setErrors(bodyErrors(failure))
    } finally {
      setBusy(false)
    }
  }

  if (!open) {
    return (
      <button type="button" class="secondary" data-action="new-container" onClick={() => setOpen(true)}>
        New container…
      </button>
    )
  }
  const known = new Set<string>([...FIELDS.map((f) => f.path), '/registry_id'])
  return (
    <Show loaded={registries}>
      {({ results }) =>
        results.length === 0 ? (
          <p class="empty">The organization has no container registry: add one first (POST /organization/{'{id}'}/containerRegistry).</p>
        ) : (
          <form class="service-form new-container" onSubmit={(event) => create(event, results[0]!.id)}>
            <h3>New container</h3>
            <div class="form-grid">
              <div class="field">
                <label class="label" for="new-registry">
                  Registry
                </label>
                <select
                  id="new-registry"
                  data-field="/registry_id"
                  value={registryId || results[0]!.id}
                  onChange={(e) => setRegistryId(e.currentTarget.value)}
                >
                  {results.map((registry) => (
                    <option key={registry.id} value={registry.id}>
                      {registry.name} ({registry.url})
                    </option>
                  ))}
                </select>
                <FieldErrorText path="/registry_id" message={errors.find((e) => e.path === '/registry_id')?.message} />
              </div>
              {FIELDS.map((field) => {
                const id = `new-${field.path.slice(1).replaceAll('/', '-')}`
                const message = errors.find((e) => e.path === field.path)?.message
                return (
                  <div class={`field${message ? ' invalid' : ''}`} key={field.path}>
                    <label class="label" for={id}>
                      {field.label}
                    </label>
                    <input
                      id={id}
                      type="text"
                      spellcheck={false}
                      data-field={field.path}
                      aria-invalid={message ? 'true' : undefined}
                      value={values[field.path]}
                      onInput={(e) => {
                        const value = e.currentTarget.value
                        setValues((previous) => ({ ...previous, [field.path]: value }))
                      }}
                    />
                    {'hint' in field ? <span class="hint">{field.hint}</span> : null}
                    <FieldErrorText path={field.path} message={message} />
                  </div>
                )
              })}
            </div>
            <OtherFieldErrors errors={errors.filter((e) => !known.has(e.path))} />
            <ErrorMessage message={error} />
            <div class="form-actions">
              <button type="submit" data-action="create-container" disabled={busy}>
                Create container
              </button>
              <button type="button" class="secondary" onClick={() => setOpen(false)}>
                Cancel
              </button>
            </div>
          </form>
        )
      }
    </Show>
  )
}
