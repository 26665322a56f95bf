/** A few DOM helpers shared by the settings page and the dashboard (no framework: two small pages). */

type Child = Node | string | number | null | undefined | false
type Attributes = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>

/** `h('button', { class: 'x', onclick: fn }, 'Label')`; text is always set as text, never parsed as HTML. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value)
    else if (value === true) element.setAttribute(name, '')
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value))
  }
  element.append(
    ...children
      .filter((c): c is Node | string | number => c !== null && c !== undefined && c !== false)
      .map((c) => (typeof c === 'number' ? String(c) : c))
  )
  return element
}

export const byId = <T extends HTMLElement = HTMLElement>(id: string) => {
  const element = document.getElementById(id)
  if (!element) throw new Error(`#${id} is missing from the page`)
  return element as T
}

export const show = (element: HTMLElement, visible: boolean) => {
  element.hidden = !visible
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' })
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

export const formatTime = (iso: string | null | undefined) => (iso ? timeFormat.format(new Date(iso)) : '')
export const formatDateTime = (iso: string | null | undefined) => (iso ? dateTimeFormat.format(new Date(iso)) : '—')

/** `125` → `2:05 h` */
export const formatMinutes = (minutes: number) =>
  `${Math.floor(minutes / 60)}:${String(Math.floor(minutes % 60)).padStart(2, '0')} h`
