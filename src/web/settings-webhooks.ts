import { byId, formatDateTime, h, show } from './dom'

/**
 * The webhooks part of the settings page (CONTRACT §13.3): the company's subscriptions with their
 * latest deliveries; adding one (its signing secret is shown once, to copy into the receiver),
 * deactivating and reactivating one, replaying the events after an id, deleting one.
 */

interface Delivery {
  id: number
  eventId: string
  type: string
  attempts: number
  lastStatus: number | null
  lastError: string | null
  nextAttemptAt: string | null
  deliveredAt: string | null
  createdAt: string
}

/** A subscription as `settings/webhook-subscriptions` lists it: the /v1 record with its latest deliveries. */
interface Subscription {
  id: number
  url: string
  types: string[]
  description: string | null
  deactivatedAt: string | null
  deliveries: Delivery[]
}

export interface WebhooksPage {
  api: <T>(method: string, path: string, body?: unknown) => Promise<T>
  notice: (id: string, text: string | null) => void
  /** Marks the fields a 400 names; returns the messages it could not place. */
  showFieldErrors: (form: HTMLElement, errors: Record<string, string>) => string[]
  errorText: (error: unknown) => { message: string; validationErrors: Record<string, string> }
}

let page: WebhooksPage

export async function loadWebhooks() {
  const subscriptions = await page.api<Subscription[]>('GET', '/settings/webhook-subscriptions')
  byId('webhooks')
    .querySelector('tbody')!
    .replaceChildren(
      ...(subscriptions.length
        ? subscriptions.map(subscriptionRow)
        : [h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'No webhooks yet.'))])
    )
}

function deliveryLine(delivery: Delivery) {
  const state = delivery.deliveredAt
    ? h('span', { class: 'badge ok' }, `${delivery.lastStatus}`)
    : delivery.nextAttemptAt
      ? h(
          'span',
          { class: 'badge warn' },
          delivery.attempts ? `retry ${formatDateTime(delivery.nextAttemptAt)}` : 'queued'
        )
      : h('span', { class: 'badge' }, 'given up')
  const detail = delivery.deliveredAt ? '' : (delivery.lastError ?? '')
  return h(
    'li',
    { 'data-event-id': delivery.eventId },
    state,
    ' ',
    h('code', {}, `#${delivery.eventId}`),
    ` ${delivery.type}`,
    delivery.attempts > 1 ? h('span', { class: 'muted' }, ` (${delivery.attempts} attempts)`) : null,
    detail ? h('div', { class: 'muted' }, detail) : null
  )
}

function subscriptionRow(subscription: Subscription) {
  const active = !subscription.deactivatedAt
  const replayInput = h('input', {
    class: 'replay-after',
    inputmode: 'numeric',
    size: 8,
    placeholder: 'after event id',
    'aria-label': `Replay the events after this id to ${subscription.url}`
  })
  return h(
    'tr',
    { 'data-webhook-id': subscription.id, class: active ? '' : 'revoked' },
    h(
      'td',
      { 'data-label': 'URL' },
      h('code', {}, subscription.url),
      subscription.description ? h('div', { class: 'muted' }, subscription.description) : null
    ),
    h(
      'td',
      { 'data-label': 'Events', class: 'scopes' },
      ...(subscription.types.length
        ? subscription.types.map((type) => h('code', {}, type))
        : [h('span', { class: 'muted' }, 'all events')])
    ),
    h(
      'td',
      { 'data-label': 'Status' },
      active
        ? h('span', { class: 'badge ok' }, 'active')
        : h('span', { class: 'badge' }, `deactivated ${formatDateTime(subscription.deactivatedAt)}`)
    ),
    h(
      'td',
      { 'data-label': 'Latest deliveries', class: 'deliveries' },
      subscription.deliveries.length
        ? h('ul', { class: 'plain' }, ...subscription.deliveries.map(deliveryLine))
        : h('span', { class: 'muted' }, 'none yet')
    ),
    h(
      'td',
      { class: 'actions' },
      active
        ? h(
            'button',
            { type: 'button', class: 'deactivate', onclick: () => setActive(subscription, false) },
            'Deactivate'
          )
        : h('button', { type: 'button', class: 'activate', onclick: () => setActive(subscription, true) }, 'Activate'),
      active && replayInput,
      active &&
        h(
          'button',
          { type: 'button', class: 'replay', onclick: () => replay(subscription, replayInput.value) },
          'Replay'
        ),
      h('button', { type: 'button', class: 'danger delete', onclick: () => remove(subscription) }, 'Delete')
    )
  )
}

const typesOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((type) => type.trim())
    .filter(Boolean)

async function addWebhook(event: SubmitEvent) {
  event.preventDefault()
  const form = byId('webhook-form')
  page.notice('webhook-error', null)
  page.showFieldErrors(form, {})
  show(byId('new-webhook'), false)
  const value = (id: string) => byId<HTMLInputElement>(id)
  const description = value('webhook-description').value.trim()
  const body = {
    url: value('webhook-url').value.trim(),
    types: typesOf(value('webhook-types').value),
    ...(description ? { description } : {})
  }
  try {
    const created = await page.api<{ secret: string }>('POST', '/settings/webhook-subscriptions', body)
    for (const id of ['webhook-url', 'webhook-types', 'webhook-description']) value(id).value = ''
    value('new-webhook-secret').value = created.secret
    show(byId('new-webhook'), true)
    await loadWebhooks()
  } catch (error) {
    const { message, validationErrors } = page.errorText(error)
    // `types.2` is marked at the types field.
    const byField = Object.fromEntries(
      Object.entries(validationErrors).map(([field, text]) => [field.split('.')[0], text])
    )
    const unplaced = page.showFieldErrors(form, byField)
    page.notice(
      'webhook-error',
      Object.keys(validationErrors).length ? ['Please correct the marked fields.', ...unplaced].join(' ') : message
    )
  }
}

async function setActive(subscription: Subscription, active: boolean) {
  page.notice('webhooks-error', null)
  page.notice('webhooks-status', null)
  try {
    await page.api('PATCH', `/settings/webhook-subscriptions/${subscription.id}`, {
      deactivatedAt: active ? null : new Date().toISOString()
    })
    await loadWebhooks()
  } catch (error) {
    page.notice('webhooks-error', page.errorText(error).message)
  }
}

async function replay(subscription: Subscription, after: string) {
  page.notice('webhooks-error', null)
  page.notice('webhooks-status', null)
  try {
    const { queued } = await page.api<{ queued: number }>('POST', '/settings/webhook-replays', {
      subscriptionId: subscription.id,
      after: after.trim() || '0'
    })
    page.notice(
      'webhooks-status',
      `Queued ${queued} ${queued === 1 ? 'delivery' : 'deliveries'} to ${subscription.url}.`
    )
    await loadWebhooks()
  } catch (error) {
    const { message, validationErrors } = page.errorText(error)
    page.notice('webhooks-error', validationErrors.after ? `Event id ${validationErrors.after}` : message)
  }
}

async function remove(subscription: Subscription) {
  if (!confirm(`Delete the webhook to ${subscription.url}? Its delivery history goes with it.`)) return
  page.notice('webhooks-error', null)
  try {
    await page.api('DELETE', `/settings/webhook-subscriptions/${subscription.id}`)
    await loadWebhooks()
  } catch (error) {
    page.notice('webhooks-error', page.errorText(error).message)
  }
}

async function copySecret() {
  const field = byId<HTMLInputElement>('new-webhook-secret')
  field.select()
  try {
    await navigator.clipboard.writeText(field.value)
    page.notice('webhooks-status', 'Copied to the clipboard.')
  } catch {
    page.notice('webhooks-status', 'Select the secret and copy it.')
  }
}

export function startWebhooks(context: WebhooksPage) {
  page = context
  byId('webhook-form').addEventListener('submit', addWebhook)
  byId('new-webhook-copy').addEventListener('click', copySecret)
}
