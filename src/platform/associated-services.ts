import { type TSchema, Type } from 'typebox'
import { Uuid } from '#src/platform/http/common-schemas.ts'

// The wire shape of the services that use one of an organization's resources (a git token, a
// registry, a helm repository, an Argo CD), each with its project and environment: what a delete
// would leave broken.

/** One such service; `serviceType` says which kinds can use the resource. */
export const associatedService = (serviceType: TSchema, title: string) =>
  Type.Object(
    {
      project_id: Uuid,
      project_name: Type.String(),
      environment_id: Uuid,
      environment_name: Type.String(),
      service_id: Uuid,
      service_name: Type.String(),
      service_type: serviceType,
    },
    { title },
  )

/** All of them, uncapped: `FooAssociatedServicesResponseList` of `FooAssociatedServicesResponse`. */
export const associatedServicesList = (serviceType: TSchema, title: string) =>
  Type.Object({ results: Type.Array(associatedService(serviceType, title.replace(/List$/, ''))) }, { title })

/** Where an associated service is, as the repositories read it. */
export interface AssociatedServicePlace {
  projectId: string
  projectName: string
  environmentId: string
  environmentName: string
  serviceId: string
  serviceName: string
}

/** An associated service's fields on the wire but its `service_type`, which the caller adds. */
export const associatedServicePlace = (row: AssociatedServicePlace) => ({
  project_id: row.projectId,
  project_name: row.projectName,
  environment_id: row.environmentId,
  environment_name: row.environmentName,
  service_id: row.serviceId,
  service_name: row.serviceName,
})
