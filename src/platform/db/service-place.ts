/**
 * A service's id and name with its environment's and its project's, as lists of services that use
 * something name them: for a query that joins `services as s`, `environments as e` and `projects as p`.
 */
export const SERVICE_PLACE_COLUMNS = [
  'p.id as projectId',
  'p.name as projectName',
  'e.id as environmentId',
  'e.name as environmentName',
  's.id as serviceId',
  's.name as serviceName',
] as const

/** `query` ordered as lists of services are: by project, environment and service name, then id. */
export function orderedByPlace<Q extends { orderBy(column: 'p.name' | 'e.name' | 's.name' | 's.id'): Q }>(query: Q): Q {
  return query.orderBy('p.name').orderBy('e.name').orderBy('s.name').orderBy('s.id')
}
