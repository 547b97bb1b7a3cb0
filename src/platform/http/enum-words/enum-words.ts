import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { type EnumWords, PARTNER_WORD, REFERENCE_WORD } from './enum-word-pairs.ts'
import { type EnumValuesRewrite, type EnumWordChanges, inWords, rewriteEnums, type WordPlan, wordPlan } from './word-plans.ts'

// The words on the wire (docs/enum-words.md), for every route in one place: input may use the
// contract's word or the reference's wherever an enum is declared, and is handed to the route in
// the word its schema declares; with BERTH_ENUM_WORDS=reference every answer's enums carry the
// reference's words, and the route's response schemas (hence /openapi.json and the serializers)
// say so.

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * A function that gives a value of `schema` the served words (the identity with the contract's
     * words): for what a route writes itself, server-sent events, as the serializer does the rest.
     */
    servedWords<T>(schema: unknown): (value: T) => T
  }
}

const unique = (values: readonly string[]) => [...new Set(values)]

/** Input: the partner of each declared word is taken for it. */
const toDeclared: EnumWordChanges = (values) =>
  new Map(values.flatMap((word) => (PARTNER_WORD.has(word) && !values.includes(PARTNER_WORD.get(word)!) ? [[PARTNER_WORD.get(word)!, word]] : [])))
/** Input schemas list both words of each pair, the declared one first. */
const withPartners: EnumValuesRewrite = (values) => {
  const all = unique([...values, ...values.flatMap((word) => PARTNER_WORD.get(word) ?? [])])
  return all.length > values.length ? all : undefined
}
/** Answers in the reference's words. */
const toReference: EnumWordChanges = (values) =>
  new Map(values.flatMap((word) => (REFERENCE_WORD.has(word) ? [[word, REFERENCE_WORD.get(word)!]] : [])))
const referenceValues: EnumValuesRewrite = (values) =>
  values.some((word) => REFERENCE_WORD.has(word)) ? unique(values.map((word) => REFERENCE_WORD.get(word) ?? word)) : undefined

/** The request parts whose enums are read, by their schema's name, and where Fastify keeps each. */
const INPUT_PARTS = [
  ['body', 'body'],
  ['querystring', 'query'],
  ['params', 'params'],
] as const

type Hook<A extends unknown[]> = (request: FastifyRequest, reply: FastifyReply, ...rest: A) => void
const hooksOf = <H>(hooks: H | H[] | undefined): H[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks])

/** A response entry's JSON schema: the entry itself, or its `content['application/json'].schema`. */
function jsonSchemaOf(entry: unknown): unknown {
  const content = (entry as { content?: Record<string, { schema?: unknown }> } | undefined)?.content
  return content && typeof content === 'object' ? content['application/json']?.schema : entry
}

/** The plan for a reply's status: its own, else its class's (`2xx`), else `default`. */
const planForStatus = (plans: ReadonlyMap<string, WordPlan>, status: number) =>
  plans.get(String(status)) ?? plans.get(`${String(status)[0]}xx`) ?? plans.get('default')

const isJson = (reply: FastifyReply) => /^application\/(?:[\w.+-]*\+)?json\b/.test(String(reply.getHeader('content-type') ?? ''))

/**
 * Registers the words on the wire: must run before any route is added. Each route whose schemas
 * declare a word of the table gets its own hooks; the others pay nothing.
 */
export function registerEnumWords(app: FastifyInstance, words: EnumWords): void {
  // Replies whose payload was an object: preSerialization changed its words before the serializer ran.
  const serialized = new WeakSet<FastifyReply>()

  const servedPlans = new WeakMap<object, WordPlan | null>()
  app.decorate('servedWords', <T>(schema: unknown) => {
    if (words === 'contract' || typeof schema !== 'object' || schema === null) return (value: T) => value
    let plan = servedPlans.get(schema)
    if (plan === undefined) {
      plan = wordPlan(schema, toReference) ?? null
      servedPlans.set(schema, plan)
    }
    const found = plan
    return (value: T) => (found ? inWords(found, value) : value)
  })

  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as Record<string, unknown> | undefined
    if (!schema) return
    const input = takeEitherWord(route, schema)
    const response = words === 'reference' ? answerReferenceWords(route, schema.response, serialized) : undefined
    // A new schema object: the route's own may share its parts with other routes.
    if (input || response) route.schema = { ...schema, ...input, ...(response ? { response } : {}) }
  })
}

/**
 * Input: the route's request schemas list both words of a pair wherever they list one, and a
 * preValidation hook hands the route the declared word. Returns the changed request schemas.
 */
function takeEitherWord(route: RouteOptions, schema: Record<string, unknown>): Record<string, unknown> | undefined {
  const plans: [(typeof INPUT_PARTS)[number][1], WordPlan][] = []
  const changed: Record<string, unknown> = {}
  for (const [part, key] of INPUT_PARTS) {
    const plan = wordPlan(schema[part], toDeclared)
    if (!plan) continue
    plans.push([key, plan])
    changed[part] = rewriteEnums(schema[part], withPartners)
  }
  if (plans.length === 0) return undefined
  const declaredWords: Hook<[done: () => void]> = (request, _reply, done) => {
    const parts = request as unknown as Record<string, unknown>
    for (const [key, plan] of plans) if (parts[key] !== undefined) parts[key] = inWords(plan, parts[key])
    done()
  }
  route.preValidation = [...hooksOf(route.preValidation), declaredWords] as RouteOptions['preValidation']
  return changed
}

/**
 * Answers in the reference's words: the response schemas list them (for /openapi.json and the
 * serializers), preSerialization changes those of objects, onSend those of JSON sent as text or
 * bytes. Returns the changed response schemas.
 */
function answerReferenceWords(route: RouteOptions, responses: unknown, serialized: WeakSet<FastifyReply>): Record<string, unknown> | undefined {
  if (typeof responses !== 'object' || responses === null) return undefined
  const plans = new Map<string, WordPlan>()
  const served: Record<string, unknown> = { ...responses }
  for (const [status, entry] of Object.entries(responses)) {
    const plan = wordPlan(jsonSchemaOf(entry), toReference)
    if (!plan) continue
    plans.set(status, plan)
    served[status] = rewriteEnums(entry, referenceValues)
  }
  if (plans.size === 0) return undefined

  const objectWords: Hook<[payload: unknown, done: (error: null, payload: unknown) => void]> = (_request, reply, payload, done) => {
    serialized.add(reply)
    const plan = planForStatus(plans, reply.statusCode)
    done(null, plan ? inWords(plan, payload) : payload)
  }
  // Pages served again and again as the same bytes (kept history pages) are changed once.
  const changedBytes = new WeakMap<Buffer, Buffer>()
  const bytesInWords = (plan: WordPlan, bytes: Buffer) => {
    let changed = changedBytes.get(bytes)
    if (!changed) {
      changed = Buffer.from(textInWords(plan, bytes.toString('utf8')))
      changedBytes.set(bytes, changed)
    }
    return changed
  }
  const textWords: Hook<[payload: unknown, done: (error: null, payload: unknown) => void]> = (_request, reply, payload, done) => {
    const plan = planForStatus(plans, reply.statusCode)
    if (!plan || serialized.has(reply) || !(typeof payload === 'string' || Buffer.isBuffer(payload)) || !isJson(reply)) return done(null, payload)
    done(null, Buffer.isBuffer(payload) ? bytesInWords(plan, payload) : textInWords(plan, payload))
  }
  route.preSerialization = [...hooksOf(route.preSerialization), objectWords] as RouteOptions['preSerialization']
  route.onSend = [...hooksOf(route.onSend), textWords] as RouteOptions['onSend']
  return served
}

/** JSON text with its words changed; as it was when nothing changes (or it is not JSON after all). */
function textInWords(plan: WordPlan, text: string): string {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return text
  }
  const next = inWords(plan, value)
  return next === value ? text : JSON.stringify(next)
}
