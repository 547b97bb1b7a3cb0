// Server-sent events read from a fetch body. EventSource cannot send the Authorization header the
// API needs, so the console reads the stream itself: SseParser turns text into events as the
// HTML standard's "event stream interpretation" does, and readEventStream feeds it a body.
// No DOM here: test/console-sse.test.ts runs it in node.

/** One dispatched event. */
export interface SseEvent {
  /** `event:`, or `message` when the event named none. */
  type: string
  /** The `data:` lines, joined with line feeds. */
  data: string
  /** The last event id as it stood when the event was dispatched (ids carry over to later events). */
  id: string
}

const LINE_END = /\r\n|\r|\n/g

/**
 * Parses an event stream given in pieces of any size: a line, a field or a line ending (CR LF) may
 * be split between two pieces. An event is dispatched by a blank line: an unfinished one at the end
 * of the stream is dropped, as the standard says.
 */
export class SseParser {
  /** The id of the last event, which a reconnection sends as Last-Event-ID. */
  lastEventId = ''
  /** The reconnection time the stream asked for with `retry:`, in milliseconds. */
  retry: number | undefined
  private pending = ''
  private started = false
  private afterCarriageReturn = false
  private type = ''
  private data = ''
  private idBuffer = ''

  /** Takes the next piece of text; answers the events it completed, in order. */
  push(piece: string): SseEvent[] {
    let text = piece
    if (this.afterCarriageReturn && text.startsWith('\n')) text = text.slice(1)
    this.afterCarriageReturn = false
    if (!this.started && text.length > 0) {
      this.started = true
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    const events: SseEvent[] = []
    const buffer = this.pending + text
    let start = 0
    LINE_END.lastIndex = 0
    for (let match = LINE_END.exec(buffer); match; match = LINE_END.exec(buffer)) {
      // A CR last in the piece may be the first half of a CR LF: the line ends here all the same, and a LF next is skipped.
      if (match[0] === '\r' && match.index === buffer.length - 1) this.afterCarriageReturn = true
      this.line(buffer.slice(start, match.index), events)
      start = match.index + match[0].length
    }
    this.pending = buffer.slice(start)
    return events
  }

  private line(line: string, events: SseEvent[]) {
    if (line === '') return this.dispatch(events)
    if (line.startsWith(':')) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    switch (field) {
      case 'event':
        this.type = value
        break
      case 'data':
        this.data += `${value}\n`
        break
      case 'id':
        if (!value.includes('\0')) this.idBuffer = value
        break
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value)
        break
      // Any other field is ignored.
    }
  }

  private dispatch(events: SseEvent[]) {
    this.lastEventId = this.idBuffer
    // An event without data is not dispatched: only its id is kept.
    if (this.data !== '') events.push({ type: this.type || 'message', data: this.data.slice(0, -1), id: this.lastEventId })
    this.type = ''
    this.data = ''
  }
}

/**
 * Reads `body` as an event stream through `parser`, giving `onEvents` the events of each piece
 * read. Returns when the stream ends (true) or when `onEvents` answers false (false), the rest of
 * the body then cancelled. Throws what reading throws (a dropped connection, an abort).
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  parser: SseParser,
  onEvents: (events: SseEvent[]) => boolean | undefined,
): Promise<boolean> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let finished = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      const events = parser.push(done ? decoder.decode() : decoder.decode(value, { stream: true }))
      if (events.length > 0 && onEvents(events) === false) return false
      if (done) {
        finished = true
        return true
      }
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}
