// Why a run's work stopped before its end (the reason its AbortController is aborted with), and
// the error a step the database refused throws.

export const CANCEL = 'cancel'
export const LOST = 'lost'
export const HAND_BACK = 'hand back'
export const TIMED_OUT = 'timed out'
export type StopReason = typeof CANCEL | typeof LOST | typeof HAND_BACK | typeof TIMED_OUT

/** A step the database refused: the run was lost, or a cancel came first. */
export class StepRefused extends Error {}
