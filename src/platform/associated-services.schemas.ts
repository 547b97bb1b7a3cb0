import { type TSchema, Type } from 'typebox'
import { Uuid } from '#src/platform/http/common-schemas.ts'

// The services that use one of an organization's resources (a git token, a registry, a helm
// repository, an Argo CD), each with its project and environment: what a delete would leave broken.

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
