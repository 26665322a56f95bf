import { io } from 'socket.io-client'
import { createSocketClient } from '../../client/src'
import type { CrewclockClient, Page } from '../../client/src'
import { AssignmentEvent, Board, today, todaysEventQueries } from './board'
import { byId, formatMinutes, formatTime, h, show } from './dom'
import { DASHBOARD_KEY_STORAGE } from './handover'

/**
 * The live board: connects with an API key over socket.io through @crewclock/client, loads
 * today's state once and then follows the services' events. The client reconnects and
 * re-authenticates by itself (after a server restart too); after such a gap, events may have been
 * missed, so the board reloads (`reconnected`), as it does at midnight.
 */

const RETRY_AFTER_FAILED_CONNECT_MS = 10_000

let board = new Board(today())
let client: CrewclockClient<'socket'> | null = null
let renderQueued = false

type Connection = 'offline' | 'connecting' | 'live' | 'reconnecting'
function setConnection(state: Connection, text: string = state) {
  const element = byId('connection')
  element.dataset.state = state
  element.textContent = text
}

function boardError(text: string | null) {
  const element = byId('board-error')
  element.textContent = text ?? ''
  show(element, Boolean(text))
}

// ---------------------------------------------------------------------------------------------
// Loading and following

/** Every page of a list (the API gives at most 20 items a page). */
async function findAll<T, Q>(
  service: { find(params: { query: Q & { page: number; size: number } }): Promise<Page<T>> },
  query: Q
) {
  const items: T[] = []
  for (let page = 0, pages = 1; page < pages; page++) {
    const result = await service.find({ query: { ...query, page, size: 20 } })
    items.push(...result.items)
    pages = result.pages
  }
  return items
}

async function reload() {
  const c = client
  if (!c) return
  const day = today()
  const [users, gangs, running, entryTypes, ...eventLists] = await Promise.all([
    findAll(c.service('v1/users'), { deactivatedAt: null }),
    findAll(c.service('v1/gangs'), {}),
    findAll(c.service('v1/time-entries'), { endsAt: null }),
    findAll(c.service('v1/time-entry-types'), {}),
    ...todaysEventQueries(day).map((query) =>
      findAll<AssignmentEvent, typeof query>(c.service('v1/assignment-events'), query)
    )
  ])
  if (c !== client) return
  board = new Board(day)
  board.replace({ users, gangs, running, entryTypes, events: eventLists.flat() })
  boardError(null)
  render()
}

const reloadOrSay = () => reload().catch((e: Error) => boardError(`Reload failed: ${e.message}`))

function follow(c: CrewclockClient<'socket'>) {
  const on = <T>(
    service: { on(event: 'created' | 'patched' | 'removed', listener: (record: T) => void): unknown },
    apply: (record: T, removed?: boolean) => boolean
  ) => {
    service.on('created', (record) => apply(record) && scheduleRender())
    service.on('patched', (record) => apply(record) && scheduleRender())
    service.on('removed', (record) => apply(record, true) && scheduleRender())
  }
  on(c.service('v1/users'), (r, removed) => board.applyUser(r, removed))
  on(c.service('v1/gangs'), (r, removed) => board.applyGang(r, removed))
  on(c.service('v1/assignment-events'), (r, removed) => board.applyEvent(r, removed))
  on(c.service('v1/time-entries'), (r, removed) => board.applyTimeEntry(r, removed))
  on(c.service('v1/time-entry-types'), (r) => board.applyEntryType(r))
  c.on('disconnected', () => setConnection('reconnecting', 'reconnecting…'))
  c.on('reconnected', () => {
    setConnection('live')
    void reloadOrSay()
  })
  // The key was revoked (the server closes its sockets) or its owner deactivated.
  c.on('unauthorized', () => {
    if (client === c) askForKey('The key was not accepted: it is mistyped or has been revoked.')
  })
}

async function connect(apiKey: string) {
  disconnect()
  setConnection('connecting', 'connecting…')
  // WebSocket only: long-polling needs sticky sessions, which N instances behind one port lack.
  const socket = io(location.origin, { transports: ['websocket'] })
  let c: CrewclockClient<'socket'>
  try {
    c = await createSocketClient(socket, apiKey)
  } catch (raw) {
    const error = raw as { code?: unknown; message?: unknown } | null | undefined
    if (error?.code === 401) return askForKey('The key was not accepted: it is mistyped or has been revoked.')
    setConnection('offline')
    boardError(`Cannot connect: ${error?.message ?? error}. Retrying…`)
    setTimeout(() => retry(apiKey), RETRY_AFTER_FAILED_CONNECT_MS)
    return
  }
  client = c
  follow(c)
  showBoard()
  await reloadOrSay()
  if (c.state === 'live') setConnection('live')
}

/** Unless the key was changed in the meantime. */
const retry = (apiKey: string) => localStorage.getItem(DASHBOARD_KEY_STORAGE) === apiKey && connect(apiKey)

function disconnect() {
  client?.close()
  client = null
}

// ---------------------------------------------------------------------------------------------
// Rendering

function scheduleRender() {
  if (renderQueued) return
  renderQueued = true
  requestAnimationFrame(() => {
    renderQueued = false
    render()
  })
}

function eventItem(event: AssignmentEvent, via?: string) {
  const when = event.isAllDay
    ? 'all day'
    : `${formatTime(event.startsAt!)}${event.endsAt ? `–${formatTime(event.endsAt)}` : ''}`
  return h(
    'li',
    { class: event.completedAt ? 'event done' : 'event', 'data-event-id': event.id },
    h('span', { class: 'when' }, when),
    h('span', { class: 'what' }, event.name),
    via && h('span', { class: 'via' }, `via ${via}`),
    event.completedAt && h('span', { class: 'badge ok' }, 'done')
  )
}

const elapsedMinutes = (since: string | null) => Math.max(0, (Date.now() - Date.parse(since ?? '')) / 60000)

function renderClockedIn() {
  const entries = board.clockedIn()
  byId('clocked-in-count').textContent = String(entries.length)
  const tiles = entries.map((entry) => {
    const event = entry.eventId ? board.events.get(entry.eventId) : undefined
    return h(
      'li',
      { class: entry.pausedAt ? 'tile paused' : 'tile', 'data-entry-id': entry.id, 'data-user-id': entry.userId },
      h('strong', { class: 'who' }, board.userName(entry.userId)),
      h(
        'span',
        { class: 'since' },
        `since ${formatTime(entry.startsAt)} · ${formatMinutes(elapsedMinutes(entry.startsAt))}`
      ),
      h('span', { class: 'what' }, [board.entryTypes.get(entry.typeId)?.name, event?.name].filter(Boolean).join(' · ')),
      entry.pausedAt && h('span', { class: 'badge warn' }, `paused since ${formatTime(entry.pausedAt)}`)
    )
  })
  byId('clocked-in').replaceChildren(
    ...(tiles.length ? tiles : [h('li', { class: 'empty muted' }, 'Nobody is clocked in.')])
  )
}

function renderWorkers() {
  const lanes = board.sortedUsers().map((user) => {
    const entry = board.runningEntryOf(user.id)
    const events = board.eventsOfUser(user.id)
    return h(
      'li',
      { class: 'lane', 'data-user-id': user.id },
      h(
        'div',
        { class: 'lane-head' },
        h('strong', {}, user.fullName),
        entry
          ? h(
              'span',
              { class: entry.pausedAt ? 'badge warn' : 'badge ok' },
              entry.pausedAt ? 'paused' : `in since ${formatTime(entry.startsAt)}`
            )
          : h('span', { class: 'badge' }, 'off')
      ),
      h(
        'ul',
        { class: 'events' },
        ...(events.length
          ? events.map(({ event, via }) => eventItem(event, via))
          : [h('li', { class: 'empty muted' }, 'nothing planned')])
      )
    )
  })
  byId('workers').replaceChildren(...(lanes.length ? lanes : [h('li', { class: 'empty muted' }, 'No active users.')]))
}

function renderGangs() {
  const lanes = board.sortedGangs().map((gang) => {
    const events = board.eventsOfGang(gang.id)
    return h(
      'li',
      { class: 'lane', 'data-gang-id': gang.id },
      h(
        'div',
        { class: 'lane-head' },
        h('strong', {}, gang.name),
        h('span', { class: 'muted' }, gang.userIds.map((id) => board.userName(id)).join(', ') || 'no members')
      ),
      h(
        'ul',
        { class: 'events' },
        ...(events.length
          ? events.map((event) => eventItem(event))
          : [h('li', { class: 'empty muted' }, 'nothing planned')])
      )
    )
  })
  byId('gangs').replaceChildren(...(lanes.length ? lanes : [h('li', { class: 'empty muted' }, 'No gangs.')]))
}

function render() {
  byId('today').textContent = board.day.start.toLocaleDateString(undefined, {
    weekday: 'long',
    day: 'numeric',
    month: 'long'
  })
  renderClockedIn()
  renderWorkers()
  renderGangs()
  const unassigned = board.unassignedEvents()
  byId('unassigned').replaceChildren(
    ...(unassigned.length
      ? unassigned.map((event) => eventItem(event))
      : [h('li', { class: 'empty muted' }, 'Everything today is assigned.')])
  )
}

// ---------------------------------------------------------------------------------------------
// Key handling

function showBoard() {
  show(byId('key-view'), false)
  show(byId('board'), true)
  show(byId('change-key'), true)
}

function askForKey(message?: string) {
  disconnect()
  localStorage.removeItem(DASHBOARD_KEY_STORAGE)
  setConnection('offline')
  show(byId('board'), false)
  show(byId('change-key'), false)
  show(byId('key-view'), true)
  const error = byId('key-error')
  error.textContent = message ?? ''
  show(error, Boolean(message))
}

function start() {
  byId('key-form').addEventListener('submit', (event) => {
    event.preventDefault()
    const key = byId<HTMLInputElement>('api-key').value.trim()
    if (!key) return
    localStorage.setItem(DASHBOARD_KEY_STORAGE, key)
    byId<HTMLInputElement>('api-key').value = ''
    void connect(key)
  })
  byId('change-key').addEventListener('click', () => askForKey())
  // Elapsed times move on, and at midnight the board becomes the next day's.
  setInterval(() => {
    if (!client) return
    if (today().key !== board.day.key) void reloadOrSay()
    else scheduleRender()
  }, 30_000)
  const key = localStorage.getItem(DASHBOARD_KEY_STORAGE)
  if (key) void connect(key)
  else askForKey()
}

start()
