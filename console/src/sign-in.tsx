import { useState } from 'preact/hooks'
import { api, messageOf, session } from './api.ts'
import type { List, Organization } from './types.ts'
import { ErrorMessage, usePageTitle } from './ui.tsx'

export function SignIn({ reason, onSignedIn }: { reason: string | undefined; onSignedIn: () => void }) {
  const [token, setToken] = useState('')
  const [error, setError] = useState<string | undefined>(reason)
  const [busy, setBusy] = useState(false)
  usePageTitle(['Sign in'])

  async function submit(event: Event) {
    event.preventDefault()
    const candidate = token.trim()
    if (!candidate) return setError('Paste an API token first.')
    setBusy(true)
    try {
      // `GET /organization` is the contract's authentication check.
      await api.get<List<Organization>>('/organization', candidate)
      session.signIn(candidate)
      onSignedIn()
    } catch (failure) {
      setError(messageOf(failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <main class="sign-in">
      <h1>
        <span class="logo" aria-hidden="true" /> Berth
      </h1>
      <form onSubmit={submit}>
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          placeholder="berth_…"
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        <p class="hint">
          Create one with <code>berth token create --org &lt;name&gt;</code>. It is kept in this tab only (session storage) and sent as{' '}
          <code>Authorization: Token …</code>.
        </p>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <ErrorMessage message={error} />
      </form>
    </main>
  )
}
