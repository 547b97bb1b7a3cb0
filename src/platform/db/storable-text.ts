const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Whether PostgreSQL can take the text as a parameter: no NUL (text and jsonb cannot hold one, and a
 * statement given one fails) and no unpaired UTF-16 surrogate (JSON can escape one; it has no UTF-8).
 * Input is checked with this where it enters (bodies, path and query values, JWT claims), so that
 * it is refused with a 4xx rather than failing a statement with a 500.
 */
export const isStorableText = (text: string): boolean => !text.includes('\0') && !LONE_SURROGATE.test(text)
