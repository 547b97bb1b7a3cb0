import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { session } from './api.ts'
import { pageOf } from './routes.tsx'
import { Shell } from './shell.tsx'
import { SignIn } from './sign-in.tsx'
import './console.css'

/** The hash of the address: every page is a hash route, so the server serves one page and a reload keeps the place. */
function useHash(): string {
  const [hash, setHash] = useState(location.hash)
  useEffect(() => {
    const update = () => setHash(location.hash)
    window.addEventListener('hashchange', update)
    return () => window.removeEventListener('hashchange', update)
  }, [])
  return hash
}

function App() {
  const hash = useHash()
  const [signedIn, setSignedIn] = useState(session.token() !== null)
  const [reason, setReason] = useState<string>()
  useEffect(
    () =>
      session.onSignedOut((why) => {
        setReason(why)
        setSignedIn(false)
      }),
    [],
  )
  // A new page starts at its top, with the keyboard's focus on its content.
  useEffect(() => {
    window.scrollTo(0, 0)
  }, [hash.split('/').slice(0, 3).join('/')])

  if (!signedIn) {
    return (
      <SignIn
        reason={reason}
        onSignedIn={() => {
          setReason(undefined)
          setSignedIn(true)
        }}
      />
    )
  }
  const page = pageOf(hash)
  return (
    <Shell>
      <div key={page.key}>{page.element}</div>
    </Shell>
  )
}

render(<App />, document.getElementById('app')!)
