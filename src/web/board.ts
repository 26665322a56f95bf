import type { AssignmentEvent, Gang, TimeEntry, TimeEntryType, User } from '../../client/src'

/**
 * The dashboard's model: today's assignment events, who is clocked in, the active users and
 * gangs, kept current from the services' created/patched/removed events. No DOM here.
 */

export type { AssignmentEvent, Gang, TimeEntry, TimeEntryType, User }

/** Today as the browser sees it: `[start, end)` from local midnight to the next one. */
export interface Today {
  start: Date
  end: Date
  key: string
}

export function today(now = new Date()): Today {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate())
  const end = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1)
  return { start, end, key: start.toDateString() }
}

/** Scheduled and touching today; an event without an end counts on its start day. */
export function isToday(event: Pick<AssignmentEvent, 'startsAt' | 'endsAt'>, day: Today) {
  if (!event.startsAt) return false
  const starts = Date.parse(event.startsAt)
  if (starts >= day.end.getTime()) return false
  return event.endsAt ? Date.parse(event.endsAt) >= day.start.getTime() : starts >= day.start.getTime()
}

/** The list queries that load today's events: those spanning into today, and those without an end. */
export function todaysEventQueries(day: Today) {
  const start = day.start.toISOString()
  const end = day.end.toISOString()
  return [
    { startsAt: { $lt: end }, endsAt: { $gte: start } },
    { startsAt: { $gte: start, $lt: end }, endsAt: null }
  ]
}

const byStart = (a: AssignmentEvent, b: AssignmentEvent) =>
  Date.parse(a.startsAt ?? '') - Date.parse(b.startsAt ?? '') || a.id - b.id

export class Board {
  users = new Map<number, User>()
  gangs = new Map<number, Gang>()
  events = new Map<number, AssignmentEvent>()
  running = new Map<number, TimeEntry>()
  entryTypes = new Map<number, TimeEntryType>()

  constructor(public day: Today) {}

  replace(data: {
    users: User[]
    gangs: Gang[]
    events: AssignmentEvent[]
    running: TimeEntry[]
    entryTypes: TimeEntryType[]
  }) {
    this.users = new Map(data.users.filter((u) => !u.deactivatedAt).map((u) => [u.id, u]))
    this.gangs = new Map(data.gangs.filter((g) => !g.deactivatedAt).map((g) => [g.id, g]))
    this.events = new Map(data.events.filter((e) => isToday(e, this.day)).map((e) => [e.id, e]))
    this.running = new Map(data.running.filter((t) => !t.endsAt).map((t) => [t.id, t]))
    this.entryTypes = new Map(data.entryTypes.map((t) => [t.id, t]))
  }

  // Each `apply*` takes a created/patched record (or a removed one with `removed`) and says whether the board changed.
  applyUser(user: User, removed = false) {
    return keep(this.users, user, !removed && !user.deactivatedAt)
  }
  applyGang(gang: Gang, removed = false) {
    return keep(this.gangs, gang, !removed && !gang.deactivatedAt)
  }
  applyEvent(event: AssignmentEvent, removed = false) {
    return keep(this.events, event, !removed && isToday(event, this.day))
  }
  applyTimeEntry(entry: TimeEntry, removed = false) {
    return keep(this.running, entry, !removed && !entry.endsAt)
  }
  applyEntryType(type: TimeEntryType) {
    return keep(this.entryTypes, type, true)
  }

  userName(id: number | null) {
    return (id !== null && this.users.get(id)?.fullName) || `User ${id}`
  }

  /** Running entries, earliest first. */
  clockedIn() {
    return [...this.running.values()].sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt) || a.id - b.id)
  }

  runningEntryOf(userId: number) {
    return [...this.running.values()].find((t) => t.userId === userId)
  }

  /** A user's events today, directly or through a gang (`via` names the gang). */
  eventsOfUser(userId: number): { event: AssignmentEvent; via?: string }[] {
    const gangsOfUser = [...this.gangs.values()].filter((g) => g.userIds.includes(userId))
    return [...this.events.values()].sort(byStart).flatMap((event) => {
      if (event.assignedUsers.includes(userId)) return [{ event }]
      const gang = gangsOfUser.find((g) => event.assignedGangs.includes(g.id))
      return gang ? [{ event, via: gang.name }] : []
    })
  }

  eventsOfGang(gangId: number) {
    return [...this.events.values()].filter((e) => e.assignedGangs.includes(gangId)).sort(byStart)
  }

  unassignedEvents() {
    return [...this.events.values()]
      .filter((e) => e.assignedUsers.length === 0 && e.assignedGangs.length === 0)
      .sort(byStart)
  }

  sortedUsers() {
    return [...this.users.values()].sort((a, b) => a.fullName.localeCompare(b.fullName) || a.id - b.id)
  }

  sortedGangs() {
    return [...this.gangs.values()].sort((a, b) => a.order - b.order || a.name.localeCompare(b.name))
  }
}

function keep<T extends { id: number }>(map: Map<number, T>, record: T, present: boolean) {
  if (present) {
    map.set(record.id, record)
    return true
  }
  return map.delete(record.id)
}
