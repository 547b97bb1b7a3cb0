import { associatedServicePlace } from '#src/platform/associated-services.ts'
import type { AssociatedServiceRow } from './associated-services.repository.ts'

/** A service that uses a credential, as the reference's associated-services lists give it. */
export const toAssociatedServiceResponse = (row: AssociatedServiceRow) => ({ ...associatedServicePlace(row), service_type: row.serviceType })
