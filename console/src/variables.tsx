// The variables a scope sees, on the environment page and on the helm service page: its own, its
// parents' and the built-in ones, grouped by scope. WRITE and above add, edit and delete the scope's
// own, override an inherited one here and alias any here; READ and DEPLOY only look (the API checks
// the role of every call in any case). A secret's value is never read: the API returns none, and a
// mask stands in for it.
import { useState } from 'preact/hooks'
import { api, type FieldError, messageOf } from './api.ts'
import { bodyErrors, Field, OtherFieldErrors } from './fields.tsx'
import { hasRole, type List, type Role, type Variable } from './types.ts'
import { ErrorMessage, Show, useLoad } from './ui.tsx'

/** The scope whose page shows this panel, as the API names it: ENVIRONMENT, or a kind's (the kinds table's `variableScope`). */
export type PanelScope = string

/** What stands in for a secret's value: the same whatever its length. */
const SECRET_MASK = '••••••••'

/** A service's groups: its own, then what it inherits from the environment and the project, then the built-in ones. */
const serviceGroups = (scope: string) => [
  { scope, title: 'This service' },
  { scope: 'ENVIRONMENT', title: 'From the environment' },
  { scope: 'PROJECT', title: 'From the project' },
  { scope: 'BUILT_IN', title: 'Built-in' },
]

/** The groups of a page's panel, its own scope first, then those it inherits from. */
const groupsOf = (scope: PanelScope) =>
  scope === 'ENVIRONMENT'
    ? [
        { scope: 'ENVIRONMENT', title: 'This environment' },
        { scope: 'PROJECT', title: 'From the project' },
        { scope: 'BUILT_IN', title: 'Built-in' },
      ]
    : serviceGroups(scope)

const TYPE_LABELS: Record<string, string> = { VALUE: 'value', FILE: 'file', ALIAS: 'alias', OVERRIDE: 'override', BUILT_IN: 'built-in' }

/** How notes name the place of a variable. */
const placeOf = (scope: string) =>
  scope === 'PROJECT' ? 'the project' : scope === 'ENVIRONMENT' ? 'the environment' : scope === 'BUILT_IN' ? 'the platform' : 'the service'

export function VariablesPanel({ scope, parentId, role }: { scope: PanelScope; parentId: string; role: Role }) {
  const listPath = `/variable?scope=${scope}&parent_id=${parentId}`
  const loaded = useLoad(() => api.get<List<Variable>>(listPath), listPath)
  const editable = hasRole(role, 'WRITE')
  return (
    <section class="variables panel" data-scope={scope} data-editable={String(editable)}>
      <h2>Variables</h2>
      {editable ? null : <p class="hint">Adding or changing variables needs the WRITE role.</p>}
      <Show loaded={loaded}>
        {({ results }) => <VariableList key={listPath} listPath={listPath} scope={scope} parentId={parentId} initial={results} editable={editable} />}
      </Show>
    </section>
  )
}

/** The form open under a variable, if any: one at a time. */
type OpenForm = { form: 'edit' | 'override' | 'alias' | 'delete'; id: string }

interface ListProps {
  listPath: string
  scope: PanelScope
  parentId: string
  initial: Variable[]
  editable: boolean
}

function VariableList({ listPath, scope, parentId, initial, editable }: ListProps) {
  const [variables, setVariables] = useState(initial)
  const [open, setOpen] = useState<OpenForm>()
  const [error, setError] = useState<string>()

  // After any change the list is read again: a delete takes the variable's aliases and overrides
  // with it, and an alias shows its target's key.
  async function refresh() {
    try {
      setVariables((await api.get<List<Variable>>(listPath)).results)
      setError(undefined)
    } catch (failure) {
      setError(messageOf(failure))
    }
  }
  // The form closes once the list shows what it changed.
  const changed = async () => {
    await refresh()
    setOpen(undefined)
  }

  // The inherited variables this scope already overrides: a second override would be refused.
  const overriddenHere = new Set(variables.flatMap((v) => (v.scope === scope && v.overridden_variable ? [v.overridden_variable.id] : [])))
  const groups = [...groupsOf(scope)]
  for (const variable of variables) {
    if (!groups.some((group) => group.scope === variable.scope)) groups.push({ scope: variable.scope, title: variable.scope })
  }

  return (
    <>
      <ErrorMessage message={error} />
      {groups.map((group) => {
        const members = variables.filter((v) => v.scope === group.scope)
        return (
          <div key={group.scope} class="variable-group" data-group={group.scope}>
            <h3>
              {group.title} <span class="count">{members.length}</span>
            </h3>
            {members.length === 0 ? (
              <p class="empty">None.</p>
            ) : (
              <ul class="variable-list">
                {members.map((variable) => (
                  <VariableRow
                    key={variable.id}
                    variable={variable}
                    scope={scope}
                    parentId={parentId}
                    editable={editable}
                    overriddenHere={overriddenHere.has(variable.id)}
                    open={open?.id === variable.id ? open.form : undefined}
                    onOpen={(form) =>
                      setOpen(form === undefined || (open?.id === variable.id && open.form === form) ? undefined : { form, id: variable.id })
                    }
                    onChanged={changed}
                  />
                ))}
              </ul>
            )}
          </div>
        )
      })}
      {editable ? <AddForm scope={scope} parentId={parentId} onAdded={refresh} /> : null}
    </>
  )
}

interface RowProps {
  variable: Variable
  scope: PanelScope
  parentId: string
  editable: boolean
  /** An override of it is among this scope's variables. */
  overriddenHere: boolean
  open: OpenForm['form'] | undefined
  /** Opens a form under the row (closes it when open), or closes any with undefined. */
  onOpen: (form: OpenForm['form'] | undefined) => void
  onChanged: () => Promise<void>
}

function VariableRow({ variable, scope, parentId, editable, overriddenHere, open, onOpen, onChanged }: RowProps) {
  const type = variable.variable_type
  const own = variable.scope === scope && type !== 'BUILT_IN'
  const actions = editable
    ? [
        ...(own ? [{ form: 'edit' as const, label: 'Edit' }] : []),
        ...(!own && (type === 'VALUE' || type === 'FILE') && !overriddenHere ? [{ form: 'override' as const, label: 'Override here' }] : []),
        // An alias of an alias is refused: alias what it aliases.
        ...(type === 'ALIAS' ? [] : [{ form: 'alias' as const, label: 'Alias here' }]),
        ...(own ? [{ form: 'delete' as const, label: 'Delete' }] : []),
      ]
    : []
  const close = () => onOpen(undefined)
  return (
    <li class="variable" data-id={variable.id} data-key={variable.key} data-type={type} data-secret={String(variable.is_secret)}>
      <div class="variable-line">
        <code class="variable-key">{variable.key}</code>
        <ShownValue variable={variable} />
        <span class="chip" data-testid="variable-type">
          {TYPE_LABELS[type] ?? type.toLowerCase()}
        </span>
        {variable.is_secret ? (
          <span class="chip tone-queued" data-testid="secret">
            secret
          </span>
        ) : null}
        <span class="variable-note" data-testid="variable-note">
          {noteOf(variable, overriddenHere, scope)}
        </span>
        {actions.length > 0 ? (
          <span class="variable-actions">
            {actions.map(({ form, label }) => (
              <button
                key={form}
                type="button"
                class="secondary small"
                data-action={`${form}-variable`}
                aria-expanded={open === form}
                onClick={() => onOpen(form)}
              >
                {label}
              </button>
            ))}
          </span>
        ) : null}
      </div>
      {variable.description ? <p class="hint variable-description">{variable.description}</p> : null}
      {open === 'edit' ? <EditForm variable={variable} onDone={onChanged} onCancel={close} /> : null}
      {open === 'override' ? <OverrideForm variable={variable} scope={scope} parentId={parentId} onDone={onChanged} onCancel={close} /> : null}
      {open === 'alias' ? <AliasForm variable={variable} scope={scope} parentId={parentId} onDone={onChanged} onCancel={close} /> : null}
      {open === 'delete' ? <DeleteForm variable={variable} onDone={onChanged} onCancel={close} /> : null}
    </li>
  )
}

/** A variable's value as the list shows it: a mask for a secret, the target's key for an alias. */
function ShownValue({ variable }: { variable: Variable }) {
  if (variable.variable_type === 'ALIAS') {
    return (
      <span class="variable-value" data-testid="variable-value">
        → <code>{variable.aliased_variable?.key ?? variable.value}</code>
      </span>
    )
  }
  if (variable.is_secret || variable.value === null) {
    return (
      <span class="variable-value mask" data-testid="variable-value" title="a secret: its value is never shown">
        {SECRET_MASK}
      </span>
    )
  }
  return (
    <span class="variable-value" data-testid="variable-value" title={variable.value}>
      {variable.value === '' ? <span class="empty">empty</span> : <code>{variable.value}</code>}
    </span>
  )
}

function noteOf(variable: Variable, overriddenHere: boolean, scope: PanelScope): string {
  const notes: string[] = []
  if (variable.mount_path) notes.push(`file at ${variable.mount_path}`)
  if (variable.variable_type === 'ALIAS' && variable.aliased_variable)
    notes.push(`alias of ${placeOf(variable.aliased_variable.scope)}'s ${variable.aliased_variable.key}`)
  if (variable.variable_type === 'OVERRIDE' && variable.overridden_variable)
    notes.push(`overrides ${placeOf(variable.overridden_variable.scope)}'s value`)
  if (overriddenHere) notes.push(`overridden in this ${scope === 'HELM' ? 'service' : 'environment'}`)
  return notes.join(' · ')
}

/** A form's call to the API: busy while it runs, then the API's message and field errors if refused. */
function useCall() {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const [errors, setErrors] = useState<FieldError[]>([])
  async function run(event: Event, work: () => Promise<unknown>, then: () => Promise<void> | void) {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    setErrors([])
    try {
      await work()
    } catch (failure) {
      setError(messageOf(failure))
      setErrors(bodyErrors(failure))
      return
    } finally {
      setBusy(false)
    }
    await then()
  }
  return { busy, run, error, errors, errorAt: (path: string) => errors.find((e) => e.path === path)?.message }
}

/** Below a form: the API's field errors at none of its `fields`, and its message. */
function FormErrors({ call, fields }: { call: ReturnType<typeof useCall>; fields: string[] }) {
  return (
    <>
      <OtherFieldErrors errors={call.errors.filter((e) => !fields.includes(e.path))} />
      <ErrorMessage message={call.error} />
    </>
  )
}

interface Draft {
  key: string
  value: string
  isSecret: boolean
  mountPath: string
}

const EMPTY: Draft = { key: '', value: '', isSecret: false, mountPath: '' }

function AddForm({ scope, parentId, onAdded }: { scope: PanelScope; parentId: string; onAdded: () => Promise<void> }) {
  const [draft, setDraft] = useState(EMPTY)
  const call = useCall()
  const set = (fields: Partial<Draft>) => setDraft({ ...draft, ...fields })
  const file = draft.mountPath !== ''
  const create = () =>
    api.post<Variable>('/variable', {
      key: draft.key,
      value: draft.value,
      is_secret: draft.isSecret,
      variable_scope: scope,
      variable_parent_id: parentId,
      ...(file ? { mount_path: draft.mountPath } : {}),
    })
  return (
    <form
      class="variable-form add"
      data-form="add"
      onSubmit={(event) =>
        call.run(event, create, async () => {
          setDraft(EMPTY)
          await onAdded()
        })
      }
    >
      <h3>Add a variable</h3>
      <div class="row">
        <Field path="/key" label="key" value={draft.key} editable error={call.errorAt('/key')} onInput={(key) => set({ key })} />
        <Field
          path="/value"
          label={file ? 'file content' : 'value'}
          value={draft.value}
          editable
          multiline={file}
          secret={draft.isSecret}
          error={call.errorAt('/value')}
          onInput={(value) => set({ value })}
        />
        <Field
          path="/mount_path"
          label="file mount path (optional)"
          placeholder="/etc/app/config.json"
          value={draft.mountPath}
          editable
          error={call.errorAt('/mount_path')}
          onInput={(mountPath) => set({ mountPath })}
        />
        <label class="check">
          <input
            type="checkbox"
            data-field="/is_secret"
            checked={draft.isSecret}
            onChange={(event) => set({ isSecret: event.currentTarget.checked })}
          />{' '}
          secret <span class="hint">(sealed, never shown again)</span>
        </label>
      </div>
      <FormErrors call={call} fields={['/key', '/value', '/mount_path']} />
      <div class="form-actions">
        <button type="submit" data-action="add-variable" disabled={call.busy}>
          {draft.isSecret ? 'Add secret' : 'Add variable'}
        </button>
      </div>
    </form>
  )
}

interface FormProps {
  variable: Variable
  onDone: () => Promise<void>
  onCancel: () => void
}

function FormButtons({ label, action, busy, onCancel }: { label: string; action: string; busy: boolean; onCancel: () => void }) {
  return (
    <div class="form-actions">
      <button type="submit" data-action={action} disabled={busy}>
        {label}
      </button>
      <button type="button" class="secondary" data-action="cancel" onClick={onCancel}>
        Cancel
      </button>
    </div>
  )
}

/**
 * Edits a variable of this scope: its key (an override keeps its parent's) and its value (an
 * alias has its target's). A secret's value is not shown: a new one replaces it, a blank keeps it.
 */
function EditForm({ variable, onDone, onCancel }: FormProps) {
  const type = variable.variable_type
  const [key, setKey] = useState(variable.key)
  const [value, setValue] = useState(variable.is_secret ? '' : (variable.value ?? ''))
  const call = useCall()
  const keepsValue = type === 'ALIAS' || (variable.is_secret && value === '')
  const edit = () => api.put<Variable>(`/variable/${variable.id}`, keepsValue ? { key } : { key, value })
  return (
    <form class="variable-form" data-form="edit" onSubmit={(event) => call.run(event, edit, onDone)}>
      <div class="row">
        <Field path="/key" label="key" value={key} editable={type !== 'OVERRIDE'} error={call.errorAt('/key')} onInput={setKey} />
        {type === 'ALIAS' ? (
          <p class="hint">An alias has the value of {variable.aliased_variable?.key ?? 'the variable it aliases'}.</p>
        ) : (
          <Field
            path="/value"
            label={variable.is_secret ? 'new value (blank keeps the current one)' : 'value'}
            value={value}
            editable
            multiline={type === 'FILE' || (type === 'OVERRIDE' && variable.mount_path !== null)}
            secret={variable.is_secret}
            error={call.errorAt('/value')}
            onInput={setValue}
          />
        )}
      </div>
      <FormErrors call={call} fields={['/key', '/value']} />
      <FormButtons label="Save" action="save-variable" busy={call.busy} onCancel={onCancel} />
    </form>
  )
}

/** A value, in this scope, for a variable of a scope above it: same key, same secrecy. */
function OverrideForm({ variable, scope, parentId, onDone, onCancel }: FormProps & { scope: PanelScope; parentId: string }) {
  const [value, setValue] = useState('')
  const call = useCall()
  const override = () => api.post<Variable>(`/variable/${variable.id}/override`, { value, override_scope: scope, override_parent_id: parentId })
  return (
    <form class="variable-form" data-form="override" onSubmit={(event) => call.run(event, override, onDone)}>
      <div class="row">
        <Field
          path="/value"
          label={`value of ${variable.key} here`}
          value={value}
          editable
          multiline={variable.mount_path !== null}
          secret={variable.is_secret}
          error={call.errorAt('/value')}
          onInput={setValue}
        />
      </div>
      <FormErrors call={call} fields={['/value']} />
      <FormButtons label="Override" action="save-override" busy={call.busy} onCancel={onCancel} />
    </form>
  )
}

/** Another name, in this scope, for a variable it sees. */
function AliasForm({ variable, scope, parentId, onDone, onCancel }: FormProps & { scope: PanelScope; parentId: string }) {
  const [key, setKey] = useState('')
  const call = useCall()
  const alias = () => api.post<Variable>(`/variable/${variable.id}/alias`, { key, alias_scope: scope, alias_parent_id: parentId })
  return (
    <form class="variable-form" data-form="alias" onSubmit={(event) => call.run(event, alias, onDone)}>
      <div class="row">
        <Field path="/key" label={`new name for ${variable.key}`} value={key} editable error={call.errorAt('/key')} onInput={setKey} />
      </div>
      <FormErrors call={call} fields={['/key']} />
      <FormButtons label="Create alias" action="save-alias" busy={call.busy} onCancel={onCancel} />
    </form>
  )
}

function DeleteForm({ variable, onDone, onCancel }: FormProps) {
  const call = useCall()
  return (
    <form class="variable-form" data-form="delete" onSubmit={(event) => call.run(event, () => api.delete(`/variable/${variable.id}`), onDone)}>
      <p>
        Delete <code>{variable.key}</code>? Its aliases and overrides are deleted with it.
      </p>
      <FormErrors call={call} fields={[]} />
      <FormButtons label="Delete" action="confirm-delete" busy={call.busy} onCancel={onCancel} />
    </form>
  )
}
