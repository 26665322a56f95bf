/** A small typed event emitter: the package runs in browsers too, without Node's `events`. */
export class Listeners<Events extends { [E in keyof Events]: (...args: never[]) => void }> {
  private readonly byEvent = new Map<keyof Events, Set<Events[keyof Events]>>()

  on<E extends keyof Events>(event: E, listener: Events[E]) {
    const set = this.byEvent.get(event) ?? new Set()
    set.add(listener)
    this.byEvent.set(event, set)
  }

  off<E extends keyof Events>(event: E, listener: Events[E]) {
    this.byEvent.get(event)?.delete(listener)
  }

  /** Calls every listener; one that throws does not keep the others (or the caller) from running. */
  emit<E extends keyof Events>(event: E, ...args: Parameters<Events[E]>) {
    for (const listener of [...(this.byEvent.get(event) ?? [])]) {
      try {
        ;(listener as (...values: Parameters<Events[E]>) => void)(...args)
      } catch (error) {
        setTimeout(() => {
          throw error
        })
      }
    }
  }
}
