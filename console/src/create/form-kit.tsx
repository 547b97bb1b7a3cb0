// The pieces every create form is made of: a field with the API's error for its JSON pointer next
// to it, and the submit that posts the body and opens the new service's page.
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { api, type FieldError, messageOf } from '../api.ts'
import { bodyErrors, FieldErrorText, OtherFieldErrors } from '../fields.tsx'
import { ErrorMessage } from '../ui.tsx'

export type Values = Record<string, string>

export interface Option {
  value: string
  label: string
}

interface FieldProps {
  /** The JSON pointer of the value in the request: where the API's field errors point. */
  path: string
  label: string
  values: Values
  set: (path: string, value: string) => void
  errors: FieldError[]
  hint?: ComponentChildren
  /** A select of these; a text input without. */
  options?: Option[] | undefined
  /** While the options load: the select says so. */
  loading?: boolean
  placeholder?: string
}

const idOf = (path: string) => `new-${path.slice(1).replaceAll('/', '-')}`

export function FormField({ path, label, values, set, errors, hint, options, loading, placeholder }: FieldProps) {
  const message = errors.find((e) => e.path === path)?.message
  const id = idOf(path)
  const common = {
    id,
    'data-field': path,
    'aria-invalid': message ? ('true' as const) : undefined,
    'aria-describedby': message ? `${id}-error` : undefined,
  }
  return (
    <div class={`field${message ? ' invalid' : ''}`}>
      <label class="label" for={id}>
        {label}
      </label>
      {options !== undefined || loading ? (
        <select {...common} value={values[path] ?? ''} disabled={loading} onChange={(event) => set(path, event.currentTarget.value)}>
          {loading ? <option value="">Loading…</option> : null}
          {(options ?? []).map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          type="text"
          spellcheck={false}
          placeholder={placeholder}
          value={values[path] ?? ''}
          onInput={(event) => set(path, event.currentTarget.value)}
        />
      )}
      {hint ? <span class="hint">{hint}</span> : null}
      <span id={`${id}-error`}>
        <FieldErrorText path={path} message={message} />
      </span>
    </div>
  )
}

/** A number when the text is one, else the text: the API then says what is wrong with it. */
export const numberOr = (text: string | undefined) => {
  const trimmed = (text ?? '').trim()
  return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed
}

/** The state of a create form: its values, the API's errors, and its submit. */
export function useCreateForm(initial: Values) {
  const [values, setValues] = useState<Values>(initial)
  const [errors, setErrors] = useState<FieldError[]>([])
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const set = (path: string, value: string) => setValues((previous) => ({ ...previous, [path]: value }))

  /** Posts `body` to `path`; on success opens `#/<segment>/<id>`. */
  async function submit(path: string, body: unknown, segment: string) {
    setBusy(true)
    setErrors([])
    setError(undefined)
    try {
      const created = await api.post<{ id: string }>(path, body)
      if (created) location.hash = `#/${segment}/${created.id}`
    } catch (failure) {
      setError(messageOf(failure))
      setErrors(bodyErrors(failure))
    } finally {
      setBusy(false)
    }
  }
  return { values, set, errors, error, busy, submit }
}

/** The form's frame: its fields, the field errors it has no field for, the API's message, and its buttons. */
export function CreateForm({
  kind,
  known,
  form,
  onSubmit,
  children,
}: {
  kind: string
  /** The pointers the form has a field for. */
  known: string[]
  form: ReturnType<typeof useCreateForm>
  onSubmit: () => void
  children: ComponentChildren
}) {
  const known_ = new Set(known)
  return (
    <form
      class="service-form create-form"
      data-kind={kind}
      onSubmit={(event) => {
        event.preventDefault()
        onSubmit()
      }}
    >
      <div class="form-grid">{children}</div>
      <OtherFieldErrors errors={form.errors.filter((e) => !known_.has(e.path))} />
      <ErrorMessage message={form.error} />
      <div class="form-actions">
        <button type="submit" data-action="create" disabled={form.busy}>
          Create
        </button>
        <a class="button secondary" href={`#${location.hash.slice(1).replace(/\/new(\/.*)?$/, '')}`}>
          Cancel
        </a>
      </div>
    </form>
  )
}
