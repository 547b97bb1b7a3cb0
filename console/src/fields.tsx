// Form fields that show the API's field errors next to the inputs their JSON pointers name, for
// every form of the console (the helm values override, variables).
import { ApiError, type FieldError } from './api.ts'

/** The field errors of a refused call that a form can place: those of the request body. */
export const bodyErrors = (failure: unknown): FieldError[] =>
  failure instanceof ApiError ? failure.errors.filter((e) => e.location === undefined || e.location === 'body') : []

interface FieldProps {
  path: string
  label: string
  value: string
  editable: boolean
  error: string | undefined
  multiline?: boolean
  /** A secret's input: its characters are not shown, and the browser offers to remember none. */
  secret?: boolean
  placeholder?: string
  onInput: (value: string) => void
}

/** One input, with the API's error for its JSON pointer right after it. */
export function Field({ path, label, value, editable, error, multiline, secret, placeholder, onInput }: FieldProps) {
  if (!editable) {
    return (
      <span class="field">
        <span class="label">{label}</span>
        {multiline ? <pre data-field={path}>{value}</pre> : <code data-field={path}>{value}</code>}
      </span>
    )
  }
  const props = {
    'data-field': path,
    'aria-label': label,
    'aria-invalid': error ? ('true' as const) : undefined,
    value,
    placeholder,
    onInput: (event: Event) => onInput((event.currentTarget as HTMLInputElement | HTMLTextAreaElement).value),
  }
  return (
    <span class={`field${error ? ' invalid' : ''}`}>
      <span class="label">{label}</span>
      {multiline ? (
        // A secret file's content is masked where the browser can (autocomplete does not apply to a textarea).
        <textarea rows={6} spellcheck={false} class={secret ? 'secret' : undefined} {...props} />
      ) : secret ? (
        <input type="password" autocomplete="new-password" spellcheck={false} {...props} />
      ) : (
        <input type="text" spellcheck={false} {...props} />
      )}
      <FieldErrorText path={path} message={error} />
    </span>
  )
}

export function FieldErrorText({ path, message }: { path: string; message: string | undefined }) {
  if (!message) return null
  return (
    <span class="field-error" data-error-for={path}>
      {message}
    </span>
  )
}

/** The field errors a form has no field for, each with its JSON pointer. */
export function OtherFieldErrors({ errors }: { errors: FieldError[] }) {
  if (errors.length === 0) return null
  return (
    <ul class="field-errors" role="alert">
      {errors.map((e) => (
        <li key={e.path}>
          <code>{e.path || '/'}</code> {e.message}
        </li>
      ))}
    </ul>
  )
}
