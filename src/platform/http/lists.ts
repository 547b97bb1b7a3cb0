import { type TSchema, Type } from 'typebox'

/** How many items a list answers with at most, unless BERTH_LIST_LIMIT says otherwise. */
export const DEFAULT_LIST_LIMIT = 1000

/** How many bytes of stored service configurations a list of services answers with at most, unless BERTH_LIST_MAX_BYTES says otherwise. */
export const DEFAULT_LIST_MAX_BYTES = 8 * 1024 * 1024

/** A list read up to a limit: its first rows in the list's order, and whether more were left out. */
export interface CappedList<T> {
  rows: T[]
  hasMore: boolean
}

/**
 * Reads at most `limit` rows with `read` (given one more than the limit, to tell whether the list
 * was cut), so that no list answer grows with what a caller, or a leaked credential, has created.
 */
export async function capped<T>(limit: number, read: (limit: number) => Promise<T[]>): Promise<CappedList<T>> {
  const rows = await read(limit + 1)
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit }
}

const CUT_AT_LIMIT = "Berth extension: true when the list was cut at the server's list limit (BERTH_LIST_LIMIT, 1000 by default)"

/**
 * The response of a capped list: the reference's `results`, and the extension `has_more`, which
 * `hasMore` describes when the list is cut by more than BERTH_LIST_LIMIT.
 */
export const ListResponse = <T extends TSchema>(item: T, title: string, hasMore = CUT_AT_LIMIT) =>
  Type.Object({ results: Type.Array(item), has_more: Type.Boolean({ description: hasMore }) }, { title })

/** The body of a capped list, each row in its wire shape. */
export const listBody = <R, W>(list: CappedList<R>, wire: (row: R) => W) => ({ results: list.rows.map(wire), has_more: list.hasMore })
