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
