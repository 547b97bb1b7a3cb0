// A service's Settings tab: the whole edit form of its kind (kinds.ts), saved with If-Match.
import { ServiceForm } from './service-form.tsx'
import type { ServiceTabProps } from './service-tab-props.ts'
import { hasRole } from './types.ts'
import { Empty } from './ui.tsx'

export function ServiceSettings({ spec, service, etag, role, setService }: ServiceTabProps) {
  if (spec.form(service).length === 0) {
    return (
      <Empty
        next={spec.segment === 'helm' ? <a href={`#/helm/${service.id}/values`}>Edit its values override</a> : 'Edit it with the API or the CLI.'}
      >
        The console has no form for this kind's configuration.
      </Empty>
    )
  }
  return <ServiceForm spec={spec} initial={service} initialTag={etag} editable={hasRole(role, 'WRITE')} onSaved={setService} />
}
