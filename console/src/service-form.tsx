// A service's configuration form, its fields from the kind's table (kinds.ts). Saving sends the
// whole service back as read with the fields changed (`PUT /{kind}/{id}` is a full replacement)
// and If-Match, so that an edit someone else saved meanwhile is not overwritten: a 412 says so
// and offers to reload theirs. The API's field errors show next to the fields their pointers name.
import { useState } from 'preact/hooks'
import { ApiError, api, type FieldError, getWithTag, messageOf } from './api.ts'
import { bodyErrors, FieldErrorText, OtherFieldErrors } from './fields.tsx'
import { type AnyService, fieldText, fieldValue, type KindSpec, setAt, valueAt } from './kinds.ts'
import { ErrorMessage } from './ui.tsx'

type Draft = Record<string, string>

/** The form's values as the edit request it sends holds them (the paths of the API's field errors; a read may name a field otherwise). */
const draftOf = (spec: KindSpec, service: AnyService): Draft => {
  const request = spec.editRequest(service)
  return Object.fromEntries(spec.form(service).map((field) => [field.path, fieldText(field, valueAt(request, field.path))]))
}

interface Props {
  spec: KindSpec
  initial: AnyService
  initialTag: string | null
  editable: boolean
  onSaved: (service: AnyService) => void
}

export function ServiceForm({ spec, initial, initialTag, editable, onSaved }: Props) {
  const [service, setService] = useState(initial)
  const [etag, setEtag] = useState(initialTag)
  const [draft, setDraft] = useState(() => draftOf(spec, initial))
  const [errors, setErrors] = useState<FieldError[]>([])
  const [error, setError] = useState<string>()
  const [stale, setStale] = useState(false)
  const [saved, setSaved] = useState(false)
  const [busy, setBusy] = useState(false)
  const fields = spec.form(service)

  async function save(event: Event) {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    setErrors([])
    setStale(false)
    setSaved(false)
    // A copy: the request shares objects with the service as read, which the fields must not change.
    const body = structuredClone(spec.editRequest(service))
    for (const field of fields) setAt(body, field.path, fieldValue(field, draft[field.path] ?? ''))
    try {
      const { data, etag: tag } = await api.put<AnyService>(`/${spec.segment}/${service.id}`, body, etag ? { 'if-match': etag } : {})
      setService(data)
      setEtag(tag)
      setDraft(draftOf(spec, data))
      setSaved(true)
      onSaved(data)
    } catch (failure) {
      const conflict = failure instanceof ApiError && failure.status === 412
      setError(
        conflict
          ? 'Someone else changed this service after this page read it, so your changes were not saved (nothing of theirs was overwritten). Reload to see their version, then make your changes again.'
          : messageOf(failure),
      )
      setErrors(bodyErrors(failure))
      setStale(conflict)
    } finally {
      setBusy(false)
    }
  }

  async function reload() {
    const { data, etag: tag } = await getWithTag<AnyService>(`/${spec.segment}/${service.id}`)
    setService(data)
    setEtag(tag)
    setDraft(draftOf(spec, data))
    setErrors([])
    setError(undefined)
    setStale(false)
    onSaved(data)
  }

  const known = new Set(fields.map((field) => field.path))
  const errorAt = (path: string) => errors.find((e) => e.path === path)?.message

  if (!editable) return <p class="hint">Editing the configuration needs the WRITE role.</p>
  return (
    <form class="service-form panel" onSubmit={save} data-kind={spec.segment}>
      <h2>Configuration</h2>
      <div class="form-grid">
        {fields.map((field) => {
          const message = errorAt(field.path)
          const id = `field-${field.path.slice(1).replaceAll('/', '-')}`
          return (
            <div class={`field${message ? ' invalid' : ''}${field.type === 'boolean' ? ' check' : ''}`} key={field.path}>
              <label class="label" for={id}>
                {field.label}
              </label>
              {field.type === 'boolean' ? (
                <input
                  id={id}
                  type="checkbox"
                  data-field={field.path}
                  aria-invalid={message ? 'true' : undefined}
                  checked={draft[field.path] === 'true'}
                  onChange={(event) => {
                    const value = String(event.currentTarget.checked)
                    setDraft((previous) => ({ ...previous, [field.path]: value }))
                    setSaved(false)
                  }}
                />
              ) : (
                <input
                  id={id}
                  type="text"
                  inputMode={field.type === 'number' ? 'numeric' : undefined}
                  spellcheck={false}
                  data-field={field.path}
                  aria-invalid={message ? 'true' : undefined}
                  aria-describedby={message ? `${id}-error` : undefined}
                  value={draft[field.path] ?? ''}
                  onInput={(event) => {
                    const value = event.currentTarget.value
                    setDraft((previous) => ({ ...previous, [field.path]: value }))
                    setSaved(false)
                  }}
                />
              )}
              {field.hint ? <span class="hint">{field.hint}</span> : null}
              <span id={`${id}-error`}>
                <FieldErrorText path={field.path} message={message} />
              </span>
            </div>
          )
        })}
      </div>
      <OtherFieldErrors errors={errors.filter((e) => !known.has(e.path))} />
      <ErrorMessage message={error} />
      {stale ? (
        <button type="button" class="secondary" data-action="reload" onClick={() => void reload().catch((e: unknown) => setError(messageOf(e)))}>
          Reload the service
        </button>
      ) : null}
      <div class="form-actions">
        <button type="submit" data-action="save" disabled={busy}>
          Save
        </button>
        {saved ? (
          <span class="saved" role="status">
            Saved. Deploy to run it.
          </span>
        ) : null}
      </div>
    </form>
  )
}
