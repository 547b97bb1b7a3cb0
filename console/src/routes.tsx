// The console's hash routes: which page a `#/…` address shows. Service pages come from the kinds
// table (every kind the server has, `#/<segment>/<id>/<tab>`), organization pages from their own
// table (organization-pages.tsx).
import type { JSX } from 'preact'
import { NewServicePage } from './create/new-service.tsx'
import { EnvironmentPage } from './environment.tsx'
import { KINDS, kindOfSegment } from './kinds.ts'
import { HomePage, OrganizationPage, OrganizationsPage } from './organization-pages.tsx'
import { ProjectPage } from './project.tsx'
import { ServicePage } from './service-page.tsx'

interface Route {
  pattern: RegExp
  /** The page for the match; `key` is what a new page is mounted for (a service's tabs share one). */
  page(match: string[]): { key: string; element: JSX.Element }
}

const ID = '([\\w-]+)'
const segments = KINDS.map((kind) => kind.segment).join('|')

const ROUTES: Route[] = [
  { pattern: /^#\/organizations$/, page: () => ({ key: 'organizations', element: <OrganizationsPage /> }) },
  {
    pattern: new RegExp(`^#/organization/${ID}(?:/([\\w-]+))?$`),
    page: ([, id, page]) => ({
      key: `organization/${id}/${page ?? ''}`,
      element: <OrganizationPage organizationId={id!} page={page ?? 'overview'} />,
    }),
  },
  { pattern: new RegExp(`^#/project/${ID}$`), page: ([, id]) => ({ key: `project/${id}`, element: <ProjectPage projectId={id!} /> }) },
  {
    pattern: new RegExp(`^#/environment/${ID}/new(?:/([\\w-]+))?$`),
    page: ([, id, segment]) => ({ key: `new/${id}/${segment ?? ''}`, element: <NewServicePage environmentId={id!} segment={segment} /> }),
  },
  {
    pattern: new RegExp(`^#/environment/${ID}(?:/([\\w-]+))?$`),
    page: ([, id, tab]) => ({ key: `environment/${id}`, element: <EnvironmentPage environmentId={id!} tab={tab ?? 'services'} /> }),
  },
  {
    pattern: new RegExp(`^#/(${segments})/${ID}(?:/([\\w-]+))?$`),
    page: ([, segment, id, tab]) => ({
      key: `${segment}/${id}`,
      element: <ServicePage kind={kindOfSegment(segment!)!} id={id!} tab={tab ?? 'overview'} />,
    }),
  },
]

export function pageOf(hash: string): { key: string; element: JSX.Element } {
  for (const route of ROUTES) {
    const match = route.pattern.exec(hash)
    if (match) return route.page([...match] as string[])
  }
  return { key: 'home', element: <HomePage /> }
}
