// A service's actions, for DEPLOY and above (the page offers none to READ; the API checks every
// call anyway): deploy at a chosen version or dry-run it, redeploy, restart, stop, delete (WRITE,
// after typing the name), and roll back to a deployment that succeeded.
import { useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import type { AnyService, KindSpec } from './kinds.ts'
import { hasRole, type Role } from './types.ts'
import { ErrorMessage } from './ui.tsx'

interface Props {
  spec: KindSpec
  service: AnyService
  role: Role
  /** Versions to offer in the chooser (those deployed before, newest first). */
  suggestions: string[]
  onTriggered: () => void
}

export function ServiceActions({ spec, service, role, suggestions, onTriggered }: Props) {
  const base = `/${spec.segment}/${service.id}`
  const version = spec.versionField(service)
  const [chosen, setChosen] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const [done, setDone] = useState<string>()
  const [confirming, setConfirming] = useState(false)
  const [typed, setTyped] = useState('')

  async function run(label: string, call: () => Promise<unknown>) {
    setBusy(true)
    setError(undefined)
    setDone(undefined)
    try {
      await call()
      setDone(`${label}: queued.`)
      onTriggered()
    } catch (failure) {
      setError(messageOf(failure))
    } finally {
      setBusy(false)
    }
  }

  const deployBody = () => (version && chosen.trim() ? { [version.field]: chosen.trim() } : {})

  async function remove(event: Event) {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      await api.delete(base)
      location.hash = `#/environment/${service.environment.id}`
    } catch (failure) {
      setError(messageOf(failure))
      setBusy(false)
    }
  }

  return (
    <section class="service-actions panel" aria-label="Actions">
      <h2>Actions</h2>
      <form
        class="deploy"
        onSubmit={(event) => {
          event.preventDefault()
          void run('Deploy', () => api.post(`${base}/deploy`, deployBody()))
        }}
      >
        {version ? (
          <label class="field">
            <span class="label">{version.label}</span>
            <input
              type="text"
              data-field="version"
              spellcheck={false}
              placeholder={version.placeholder}
              list="version-choices"
              value={chosen}
              onInput={(event) => setChosen(event.currentTarget.value)}
            />
            <datalist id="version-choices">
              {suggestions.map((choice) => (
                <option key={choice} value={choice} />
              ))}
            </datalist>
          </label>
        ) : null}
        <button type="submit" data-action="deploy" disabled={busy}>
          Deploy
        </button>
        <button
          type="button"
          class="secondary"
          data-action="dry-run"
          disabled={busy}
          onClick={() => run('Dry run', () => api.post(`${base}/deploy?dry_run=true`, deployBody()))}
        >
          Dry run
        </button>
      </form>
      <div class="buttons">
        <button
          type="button"
          class="secondary"
          data-action="redeploy"
          disabled={busy}
          onClick={() => run('Redeploy', () => api.post(`${base}/redeploy`))}
        >
          Redeploy
        </button>
        {spec.restart ? (
          <button
            type="button"
            class="secondary"
            data-action="restart"
            disabled={busy}
            onClick={() => run('Restart', () => api.post(`${base}/restart-service`))}
          >
            Restart
          </button>
        ) : null}
        <button type="button" class="secondary" data-action="stop" disabled={busy} onClick={() => run('Stop', () => api.post(`${base}/stop`))}>
          Stop
        </button>
        {hasRole(role, 'WRITE') ? (
          <button
            type="button"
            class="danger"
            data-action="delete"
            disabled={busy}
            aria-expanded={confirming}
            onClick={() => setConfirming((open) => !open)}
          >
            Delete…
          </button>
        ) : null}
      </div>
      {confirming ? (
        <form class="confirm-delete" onSubmit={remove}>
          <p>
            Deleting stops and removes <strong class="wrap">{service.name}</strong>; its history stays. Type its name to confirm.
          </p>
          <input
            type="text"
            data-field="confirm-name"
            aria-label="The service's name, to confirm"
            spellcheck={false}
            value={typed}
            onInput={(event) => setTyped(event.currentTarget.value)}
          />
          <button type="submit" class="danger" data-action="confirm-delete" disabled={busy || typed !== service.name}>
            Delete {spec.title.toLowerCase()}
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </form>
      ) : null}
      {done ? (
        <p class="saved" role="status">
          {done}
        </p>
      ) : null}
      <ErrorMessage message={error} />
    </section>
  )
}

/** "Roll back to this" on a deployment of the service that succeeded: its snapshot is deployed again. */
export function RollbackButton({
  spec,
  serviceId,
  executionId,
  onTriggered,
}: {
  spec: KindSpec
  serviceId: string
  executionId: string
  onTriggered: () => void
}) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  return (
    <>
      <button
        type="button"
        class="secondary small"
        data-action="rollback"
        disabled={busy}
        onClick={async () => {
          setBusy(true)
          setError(undefined)
          try {
            await api.post(`/${spec.segment}/${serviceId}/rollback`, { execution_id: executionId })
            onTriggered()
          } catch (failure) {
            setError(messageOf(failure))
          } finally {
            setBusy(false)
          }
        }}
      >
        Roll back to this
      </button>
      <ErrorMessage message={error} />
    </>
  )
}
