/**
 * Waits until `check` holds, looking every 25 ms. It has no deadline of its own: the test's mocha
 * timeout (.mocharc.json) is the only bound, so a busy machine makes a test slower, never red.
 */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 25))
}

/** Asks `probe` again (every 100 ms) until its answer `holds`, and returns that answer; bounded like `until`. */
export async function eventually<T>(probe: () => Promise<T>, holds: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await probe()
    if (holds(value)) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Fails when `work` has not settled within `ms`: for a read that would hang queued behind writes instead of answering. */
export async function within<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}
