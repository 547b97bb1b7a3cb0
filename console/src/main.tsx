import { type JSX, render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { session } from './api.ts'
import { DatabaseBackups } from './database-backups.tsx'
import { EnvironmentPage } from './environment.tsx'
import { HelmPage } from './helm.tsx'
import { TerraformResources } from './iac.tsx'
import { EnvironmentsPage, OrganizationsPage, ProjectsPage, SignIn } from './pages.tsx'
import { ServicePage } from './service-page.tsx'
import './console.css'

// Hash routes (`#/environment/<id>`): the server serves one page and needs no routing of its own.
const ROUTES: [RegExp, (id: string) => JSX.Element][] = [
  [/^#\/organization\/([\w-]+)$/, (id) => <ProjectsPage organizationId={id} />],
  [/^#\/project\/([\w-]+)$/, (id) => <EnvironmentsPage projectId={id} />],
  [/^#\/environment\/([\w-]+)$/, (id) => <EnvironmentPage environmentId={id} />],
  [/^#\/helm\/([\w-]+)$/, (id) => <HelmPage helmId={id} />],
  // Every other kind has the same page (kinds.ts says what differs).
  [/^#\/application\/([\w-]+)$/, (id) => <ServicePage kind="application" id={id} />],
  [
    /^#\/database\/([\w-]+)$/,
    (id) => (
      <ServicePage
        kind="database"
        id={id}
        extra={(service, role) => <DatabaseBackups databaseId={id} databaseName={service.name} environmentId={service.environment.id} role={role} />}
      />
    ),
  ],
  [/^#\/container\/([\w-]+)$/, (id) => <ServicePage kind="container" id={id} />],
  [/^#\/job\/([\w-]+)$/, (id) => <ServicePage kind="job" id={id} />],
  [/^#\/terraform\/([\w-]+)$/, (id) => <ServicePage kind="terraform" id={id} extra={() => <TerraformResources serviceId={id} />} />],
]

function useHash(): string {
  const [hash, setHash] = useState(location.hash)
  useEffect(() => {
    const update = () => setHash(location.hash)
    window.addEventListener('hashchange', update)
    return () => window.removeEventListener('hashchange', update)
  }, [])
  return hash
}

function Page({ hash }: { hash: string }) {
  for (const [pattern, page] of ROUTES) {
    const match = pattern.exec(hash)
    if (match) return page(match[1]!)
  }
  return <OrganizationsPage />
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
  return (
    <>
      <header class="top">
        <a class="brand" href="#/">
          Berth
        </a>
        <button type="button" class="secondary" data-action="sign-out" onClick={() => session.signOut()}>
          Sign out
        </button>
      </header>
      <main>
        <Page key={hash} hash={hash} />
      </main>
    </>
  )
}

render(<App />, document.getElementById('app')!)
