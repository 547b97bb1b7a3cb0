import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { ApiError, api, type FieldError, getWithTag, messageOf } from './api.ts'
import { bodyErrors, Field, FieldErrorText, OtherFieldErrors } from './fields.tsx'
import { type AnyService, helmRequest } from './kinds.ts'
import type { ServiceTabProps } from './service-tab-props.ts'
import { type HelmService, hasRole, type KeyValues, type RawValuesFile } from './types.ts'
import { ErrorMessage } from './ui.tsx'

type PairField = 'set' | 'set_string' | 'set_json'
const PAIR_FIELDS: { field: PairField; title: string; hint: string }[] = [
  { field: 'set', title: 'set', hint: 'helm --set key=value' },
  { field: 'set_string', title: 'set_string', hint: 'helm --set-string key=value' },
  { field: 'set_json', title: 'set_json', hint: 'helm --set-json key=<json>' },
]

/** The values override as the form edits it. */
interface Draft {
  set: KeyValues
  set_string: KeyValues
  set_json: KeyValues
  raw: RawValuesFile[]
}

const draftOf = ({ values_override: values }: HelmService): Draft => ({
  set: values.set.map((pair) => [...pair]),
  set_string: values.set_string.map((pair) => [...pair]),
  set_json: values.set_json.map((pair) => [...pair]),
  raw: values.file?.raw?.values.map((file) => ({ ...file })) ?? [],
})

/** The JSON pointers of the request that the form has a field for: an error at any other goes above the form. */
function fieldPaths(draft: Draft): Set<string> {
  const paths = new Set<string>()
  for (const { field } of PAIR_FIELDS) {
    draft[field].forEach((_, index) => {
      for (const suffix of ['', '/0', '/1']) paths.add(`/values_override/${field}/${index}${suffix}`)
    })
  }
  draft.raw.forEach((_, index) => {
    for (const suffix of ['', '/name', '/content']) paths.add(`/values_override/file/raw/values/${index}${suffix}`)
  })
  return paths
}

/** The `PUT /helm/{id}` body: the service as read with the values override of the form. */
const editRequest = (helm: HelmService, draft: Draft) => {
  const file = helm.values_override.file
  return helmRequest(helm as unknown as AnyService, {
    set: draft.set,
    set_string: draft.set_string,
    set_json: draft.set_json,
    // Values files read from git are kept as they are; raw ones are the form's.
    file: file?.git ? undefined : draft.raw.length > 0 ? { raw: { values: draft.raw } } : null,
  })
}

/** A helm service's Values tab: its chart and its values override, which WRITE and above edit. */
export function HelmValuesTab({ service, etag, role, setService }: ServiceTabProps) {
  return (
    <HelmEditor
      key={service.id}
      initial={service as unknown as HelmService}
      initialTag={etag}
      editable={hasRole(role, 'WRITE')}
      onSaved={(saved) => setService(saved as unknown as ServiceTabProps['service'])}
    />
  )
}

function HelmEditor({
  initial,
  initialTag,
  editable,
  onSaved,
}: {
  initial: HelmService
  initialTag: string | null
  editable: boolean
  onSaved: (helm: HelmService) => void
}) {
  const [helm, setHelm] = useState(initial)
  const [etag, setEtag] = useState(initialTag)
  const [draft, setDraft] = useState(() => draftOf(initial))
  const [errors, setErrors] = useState<FieldError[]>([])
  const [error, setError] = useState<string>()
  // 412: someone else saved the service since this page read it; reloading shows their version.
  const [stale, setStale] = useState(false)
  const [saved, setSaved] = useState(false)
  const [busy, setBusy] = useState(false)

  const change = (update: (next: Draft) => unknown) => {
    const next = structuredClone(draft)
    update(next)
    setDraft(next)
    setSaved(false)
  }
  const setCell = (field: PairField, index: number, slot: 0 | 1, value: string) =>
    change((next) => {
      next[field][index]![slot] = value
    })
  const setFile = (index: number, fields: Partial<RawValuesFile>) => change((next) => Object.assign(next.raw[index]!, fields))

  async function save(event: Event) {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    setErrors([])
    setStale(false)
    try {
      // If-Match: an edit made by someone else since this page read the service is not overwritten.
      const { data, etag: tag } = await api.put<HelmService>(`/helm/${helm.id}`, editRequest(helm, draft), etag ? { 'if-match': etag } : {})
      setHelm(data)
      setEtag(tag)
      setDraft(draftOf(data))
      setSaved(true)
      onSaved(data)
    } catch (failure) {
      setError(messageOf(failure))
      setErrors(bodyErrors(failure))
      setStale(failure instanceof ApiError && failure.status === 412)
    } finally {
      setBusy(false)
    }
  }

  async function reload() {
    const { data, etag: tag } = await getWithTag<HelmService>(`/helm/${helm.id}`)
    setHelm(data)
    setEtag(tag)
    setDraft(draftOf(data))
    setErrors([])
    setError(undefined)
    setStale(false)
  }

  const known = fieldPaths(draft)
  const elsewhere = errors.filter((e) => !known.has(e.path))
  const errorAt = (path: string) => errors.find((e) => e.path === path)?.message

  return (
    <form class="values panel" onSubmit={save} data-editable={String(editable)}>
      <h2>Values override</h2>
      {editable ? null : <p class="hint">Editing needs the WRITE role.</p>}
      {PAIR_FIELDS.map(({ field, title, hint }) => (
        <fieldset key={field} data-group={field}>
          <legend>
            {title} <span class="hint">{hint}</span>
          </legend>
          {draft[field].length === 0 ? <p class="empty">none</p> : null}
          {draft[field].map((pair, index) => {
            const path = `/values_override/${field}/${index}`
            return (
              // Rows are edited in place: their position is their identity.
              <div class="row" key={index}>
                <Field
                  path={`${path}/0`}
                  label="key"
                  value={pair[0] ?? ''}
                  editable={editable}
                  error={errorAt(`${path}/0`)}
                  onInput={(v) => setCell(field, index, 0, v)}
                />
                <Field
                  path={`${path}/1`}
                  label="value"
                  value={pair[1] ?? ''}
                  editable={editable}
                  error={errorAt(`${path}/1`)}
                  onInput={(v) => setCell(field, index, 1, v)}
                />
                <EditButton editable={editable} action="remove" onClick={() => change((d) => d[field].splice(index, 1))}>
                  Remove
                </EditButton>
                <FieldErrorText path={path} message={errorAt(path)} />
              </div>
            )
          })}
          <EditButton editable={editable} action={`add-${field}`} onClick={() => change((d) => d[field].push(['', '']))}>
            Add
          </EditButton>
        </fieldset>
      ))}
      <fieldset data-group="raw">
        <legend>
          values files <span class="hint">YAML, as helm -f</span>
        </legend>
        {helm.values_override.file?.git ? (
          <p class="hint">
            From git: {helm.values_override.file.git.git_repository.url} {helm.values_override.file.git.paths.join(', ')} (not editable here)
          </p>
        ) : (
          <>
            {draft.raw.length === 0 ? <p class="empty">none</p> : null}
            {draft.raw.map((file, index) => {
              const path = `/values_override/file/raw/values/${index}`
              return (
                // Rows are edited in place: their position is their identity.
                <div class="row file" key={index}>
                  <Field
                    path={`${path}/name`}
                    label="name"
                    value={file.name}
                    editable={editable}
                    error={errorAt(`${path}/name`)}
                    onInput={(v) => setFile(index, { name: v })}
                  />
                  <Field
                    path={`${path}/content`}
                    label="content"
                    multiline
                    value={file.content}
                    editable={editable}
                    error={errorAt(`${path}/content`)}
                    onInput={(v) => setFile(index, { content: v })}
                  />
                  <EditButton editable={editable} action="remove" onClick={() => change((d) => d.raw.splice(index, 1))}>
                    Remove
                  </EditButton>
                  <FieldErrorText path={path} message={errorAt(path)} />
                </div>
              )
            })}
            <EditButton editable={editable} action="add-raw" onClick={() => change((d) => d.raw.push({ name: 'values.yaml', content: '' }))}>
              Add a values file
            </EditButton>
          </>
        )}
      </fieldset>
      <OtherFieldErrors errors={elsewhere} />
      <ErrorMessage message={error} />
      {stale ? (
        <button type="button" class="secondary" data-action="reload" onClick={() => void reload().catch((e: unknown) => setError(messageOf(e)))}>
          Reload the service
        </button>
      ) : null}
      {editable ? (
        <div class="form-actions">
          <button type="submit" data-action="save" disabled={busy}>
            Save values override
          </button>
          {saved ? (
            <span class="saved" role="status">
              Saved.
            </span>
          ) : null}
        </div>
      ) : null}
    </form>
  )
}

/** A button that adds or removes a row of the values override; there is none for a user who may not edit. */
function EditButton({
  editable,
  action,
  onClick,
  children,
}: {
  editable: boolean
  action: string
  onClick: () => void
  children: ComponentChildren
}) {
  return editable ? (
    <button type="button" class="secondary" data-action={action} onClick={onClick}>
      {children}
    </button>
  ) : null
}
