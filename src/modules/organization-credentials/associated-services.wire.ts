import type { AssociatedServiceRow } from './associated-services.repository.ts'

/** A service that uses a credential, as the reference's associated-services lists give it. */
export const toAssociatedServiceResponse = (row: AssociatedServiceRow) => ({
  project_id: row.projectId,
  project_name: row.projectName,
  environment_id: row.environmentId,
  environment_name: row.environmentName,
  service_id: row.serviceId,
  service_name: row.serviceName,
  service_type: row.serviceType,
})
