import type { AdminItem } from '../settings/admins'
import { byId, formatDateTime, h } from './dom'

/**
 * The administrators part of the settings page (CONTRACT §10.1): the list, adding one,
 * deactivating one (never the last active one: the server answers 409) and changing one's own
 * password. A password change and deactivating oneself end this session: the page signs out.
 */

/** As the settings endpoint answers it (the type only: nothing of the server is bundled). */
type Admin = AdminItem

export interface AdminsPage {
  api: <T>(method: string, path: string, body?: unknown) => Promise<T>
  notice: (id: string, text: string | null) => void
  /** Marks the fields a 400 names; returns the messages it could not place. */
  showFieldErrors: (form: HTMLElement, errors: Record<string, string>) => string[]
  errorText: (error: unknown) => { message: string; validationErrors: Record<string, string> }
  signOut: (message?: string) => void
}

let page: AdminsPage

export async function loadAdmins() {
  const admins = await page.api<Admin[]>('GET', '/settings/admins')
  byId('admins')
    .querySelector('tbody')!
    .replaceChildren(...admins.map(adminRow))
}

function adminRow(admin: Admin) {
  const active = !admin.deactivatedAt
  return h(
    'tr',
    { 'data-admin-id': admin.id, class: active ? '' : 'revoked' },
    h('td', { 'data-label': 'Name' }, admin.fullName, admin.isCurrentUser && h('span', { class: 'muted' }, ' (you)')),
    h('td', { 'data-label': 'Email' }, admin.email),
    h(
      'td',
      { 'data-label': 'Status' },
      active
        ? h('span', { class: 'badge ok' }, 'active')
        : h('span', { class: 'badge' }, `deactivated ${formatDateTime(admin.deactivatedAt)}`)
    ),
    h(
      'td',
      { class: 'actions' },
      active &&
        h('button', { type: 'button', class: 'danger deactivate', onclick: () => deactivate(admin) }, 'Deactivate')
    )
  )
}

async function deactivate(admin: Admin) {
  const question = admin.isCurrentUser
    ? 'Deactivate your own account? You are signed out at once and cannot sign in again.'
    : `Deactivate ${admin.fullName}? They can no longer sign in, and their API keys stop working.`
  if (!confirm(question)) return
  page.notice('admins-error', null)
  try {
    await page.api('DELETE', `/settings/admins/${admin.id}`)
    if (admin.isCurrentUser) return page.signOut('Your account has been deactivated.')
    await loadAdmins()
  } catch (error) {
    page.notice('admins-error', page.errorText(error).message)
  }
}

async function addAdmin(event: SubmitEvent) {
  event.preventDefault()
  const form = byId('admin-form')
  page.notice('admin-error', null)
  page.notice('admin-status', null)
  page.showFieldErrors(form, {})
  const value = (id: string) => byId<HTMLInputElement>(id)
  const body = {
    email: value('admin-email').value.trim(),
    fullName: value('admin-name').value.trim(),
    password: value('admin-password').value
  }
  try {
    const created = await page.api<Admin>('POST', '/settings/admins', body)
    for (const id of ['admin-email', 'admin-name', 'admin-password']) value(id).value = ''
    page.notice('admin-status', `${created.fullName} can now sign in.`)
    await loadAdmins()
  } catch (error) {
    const { message, validationErrors } = page.errorText(error)
    const unplaced = page.showFieldErrors(form, validationErrors)
    page.notice(
      'admin-error',
      Object.keys(validationErrors).length ? ['Please correct the marked fields.', ...unplaced].join(' ') : message
    )
  }
}

async function changePassword(event: SubmitEvent) {
  event.preventDefault()
  const form = byId('password-form')
  page.notice('password-error', null)
  page.showFieldErrors(form, {})
  const current = byId<HTMLInputElement>('current-password')
  const next = byId<HTMLInputElement>('new-password')
  try {
    const me = (await page.api<Admin[]>('GET', '/settings/admins')).find((admin) => admin.isCurrentUser)
    await page.api('PATCH', `/settings/admins/${me!.id}`, { currentPassword: current.value, password: next.value })
    current.value = next.value = ''
    // The change ends every session of this admin, this one included.
    page.signOut('Your password has been changed. Sign in with the new password.')
  } catch (error) {
    const { message, validationErrors } = page.errorText(error)
    const unplaced = page.showFieldErrors(form, validationErrors)
    page.notice(
      'password-error',
      Object.keys(validationErrors).length ? ['Please correct the marked fields.', ...unplaced].join(' ') : message
    )
  }
}

export function startAdmins(context: AdminsPage) {
  page = context
  byId('admin-form').addEventListener('submit', addAdmin)
  byId('password-form').addEventListener('submit', changePassword)
}
