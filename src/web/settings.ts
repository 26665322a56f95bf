import { byId, formatDateTime, h, show } from './dom'
import { DASHBOARD_KEY_STORAGE } from './handover'
import { loadAdmins, startAdmins } from './settings-admins'
import { chosenScopes, renderScopeChoices, resetScopeChoices, ScopeChoices, scopesCell } from './settings-scopes'
import { setCompanyTimezone, showWorkingTimes, startWorkingTimes } from './settings-working-times'
import { loadWebhooks, startWebhooks } from './settings-webhooks'
import type { CompanySettings } from '../settings/company'

/**
 * The settings page: admin login, API keys with their scopes, per-key usage, webhooks, administrators,
 * company and its working-time versions.
 */

const TOKEN_STORAGE = 'crewclock.settings.token'

interface ApiKey {
  id: number
  name: string | null
  maskedKey: string
  userId: number
  scopes?: string[]
  createdAt: string
  revokedAt: string | null
  key?: string | null
}
interface Usage {
  apiKeyId: number
  version: string
  requestCount: number
  lastUsedAt: string
}

class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly validationErrors: Record<string, string> = {},
    /** The error body's `data` (a 409 names what it refers to: `months`, `userIds`, …). */
    readonly data: { months?: string[]; userIds?: number[] } = {}
  ) {
    super(message)
  }
}

// sessionStorage: the login lasts as long as the tab, not across browser restarts.
let token = sessionStorage.getItem(TOKEN_STORAGE)

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const data = res.status === 204 ? null : await res.json().catch(() => null)
  if (res.status === 401 && path !== '/authentication') {
    signOut('Your session has ended; please sign in again.')
  }
  if (!res.ok)
    throw new ApiError(
      res.status,
      data?.message ?? `HTTP ${res.status}`,
      data?.data?.validationErrors,
      data?.data ?? undefined
    )
  return data as T
}

function notice(id: string, text: string | null) {
  const element = byId(id)
  element.textContent = text ?? ''
  show(element, Boolean(text))
}

// ---------------------------------------------------------------------------------------------
// Login

async function signIn(event: SubmitEvent) {
  event.preventDefault()
  notice('login-error', null)
  const email = byId<HTMLInputElement>('login-email').value.trim()
  const password = byId<HTMLInputElement>('login-password').value
  try {
    const result = await api<{ accessToken: string }>('POST', '/authentication', { strategy: 'local', email, password })
    token = result.accessToken
    sessionStorage.setItem(TOKEN_STORAGE, token)
    byId<HTMLInputElement>('login-password').value = ''
    await openSettings()
  } catch (error) {
    const code = (error as ApiError).code
    notice(
      'login-error',
      code === 401
        ? 'Sign-in failed: wrong email or password, or not an administrator.'
        : code === 429
          ? 'Too many attempts; wait a minute.'
          : (error as Error).message
    )
  }
}

/** Ends the session on the server too (the token stops working everywhere), then forgets it. */
async function logOut() {
  if (token) await api('DELETE', '/authentication').catch(() => undefined)
  signOut()
}

function signOut(message?: string) {
  token = null
  sessionStorage.removeItem(TOKEN_STORAGE)
  show(byId('settings-view'), false)
  show(byId('logout'), false)
  byId('who').textContent = ''
  show(byId('login-view'), true)
  notice('login-error', message ?? null)
}

async function openSettings() {
  const company = await api<CompanySettings>('GET', '/settings/company')
  show(byId('login-view'), false)
  show(byId('settings-view'), true)
  show(byId('logout'), true)
  byId('who').textContent = company.name
  fillCompanyForm(company)
  showWorkingTimes(company)
  const [scopeChoices] = await Promise.all([
    api<ScopeChoices>('GET', '/settings/scopes'),
    loadKeys(),
    loadWebhooks(),
    loadAdmins()
  ])
  renderScopeChoices(scopeChoices)
}

// ---------------------------------------------------------------------------------------------
// API keys

async function loadKeys() {
  const [keys, usage] = await Promise.all([
    api<ApiKey[]>('GET', '/settings/api-keys'),
    api<Usage[]>('GET', '/settings/usage')
  ])
  const body = byId('keys').querySelector('tbody') as HTMLTableSectionElement
  body.replaceChildren(
    ...keys.map((key) =>
      keyRow(
        key,
        usage.filter((u) => u.apiKeyId === key.id)
      )
    )
  )
}

function keyRow(key: ApiKey, usage: Usage[]) {
  const keyCell = h('td', { 'data-label': 'Key' }, h('code', { class: 'masked' }, key.maskedKey))
  const active = !key.revokedAt
  const usageText = usage.length
    ? usage.map((u) =>
        h(
          'div',
          {},
          `${u.version}: ${u.requestCount.toLocaleString()} request${u.requestCount === 1 ? '' : 's'}, last ${formatDateTime(u.lastUsedAt)}`
        )
      )
    : [h('span', { class: 'muted' }, 'not used yet')]
  return h(
    'tr',
    { 'data-key-id': key.id, class: active ? '' : 'revoked' },
    h('td', { 'data-label': 'Name' }, key.name ?? h('span', { class: 'muted' }, 'unnamed')),
    keyCell,
    scopesCell(key.scopes),
    h('td', { 'data-label': 'Created' }, formatDateTime(key.createdAt)),
    h(
      'td',
      { 'data-label': 'Status' },
      active
        ? h('span', { class: 'badge ok' }, 'active')
        : h('span', { class: 'badge' }, `revoked ${formatDateTime(key.revokedAt)}`)
    ),
    h('td', { 'data-label': 'Usage', class: 'usage' }, ...usageText),
    h(
      'td',
      { class: 'actions' },
      active && h('button', { type: 'button', class: 'copy', onclick: () => copyKey(key, keyCell) }, 'Copy'),
      active &&
        h('button', { type: 'button', class: 'open-dashboard', onclick: () => openDashboard(key) }, 'Dashboard'),
      active && h('button', { type: 'button', class: 'danger revoke', onclick: () => revoke(key) }, 'Revoke')
    )
  )
}

async function createKey(event: SubmitEvent) {
  event.preventDefault()
  notice('key-error', null)
  const input = byId<HTMLInputElement>('key-name')
  try {
    const scopes = chosenScopes()
    // Full access is the server's default: the body stays what it was for the common case.
    const body =
      scopes.length === 1 && scopes[0] === '*:write'
        ? { name: input.value.trim() || null }
        : { name: input.value.trim() || null, scopes }
    const created = await api<ApiKey>('POST', '/settings/api-keys', body)
    input.value = ''
    resetScopeChoices()
    byId('new-key-name').textContent = created.name ?? created.maskedKey
    byId<HTMLInputElement>('new-key-value').value = created.key ?? ''
    show(byId('new-key'), true)
    await loadKeys()
  } catch (error) {
    const fields = error instanceof ApiError ? Object.entries(error.validationErrors) : []
    notice(
      'key-error',
      fields.length ? fields.map(([field, message]) => `${field} ${message}`).join('; ') : messageOf(error)
    )
  }
}

/** Clipboard where the browser allows it; the key is shown selected in the row either way (phones, plain http). */
async function copyText(text: string, reveal?: HTMLElement) {
  if (reveal) {
    const field = h('input', { class: 'secret', readonly: true, value: text, 'aria-label': 'API key' })
    reveal.replaceChildren(field)
    field.select()
  }
  try {
    await navigator.clipboard.writeText(text)
    byId('copy-status').textContent = 'Copied to the clipboard.'
  } catch {
    byId('copy-status').textContent = 'Select the key and copy it.'
  }
}

async function copyKey(key: ApiKey, cell: HTMLElement) {
  try {
    const full = await api<ApiKey>('GET', `/settings/api-keys/${key.id}`)
    if (full.key) await copyText(full.key, cell)
  } catch (error) {
    notice('key-error', messageOf(error))
  }
}

/** Hands the key to the dashboard through this origin's storage, not through the URL (no history, no logs). */
async function openDashboard(key: ApiKey) {
  const full = await api<ApiKey>('GET', `/settings/api-keys/${key.id}`)
  if (!full.key) return
  localStorage.setItem(DASHBOARD_KEY_STORAGE, full.key)
  location.assign('/dashboard')
}

async function revoke(key: ApiKey) {
  if (!confirm(`Revoke the key ${key.name ?? key.maskedKey}? Integrations using it stop working at once.`)) return
  try {
    await api('DELETE', `/settings/api-keys/${key.id}`)
    await loadKeys()
  } catch (error) {
    notice('key-error', messageOf(error))
  }
}

// ---------------------------------------------------------------------------------------------
// Company: country and timezone (the working-time versions: settings-working-times.ts)

function fillCompanyForm(company: CompanySettings) {
  byId<HTMLInputElement>('country').value = company.country
  byId<HTMLInputElement>('timezone').value = company.timezone
}

function readCompanyForm() {
  const value = (id: string) => byId<HTMLInputElement>(id).value.trim()
  return { country: value('country').toUpperCase(), timezone: value('timezone') }
}

function showFieldErrors(form: HTMLElement, errors: Record<string, string>) {
  form.querySelectorAll('.field-error').forEach((e) => e.remove())
  form.querySelectorAll('[aria-invalid]').forEach((e) => e.removeAttribute('aria-invalid'))
  const unplaced: string[] = []
  for (const [field, message] of Object.entries(errors)) {
    const input = form.querySelector<HTMLElement>(`[data-field="${CSS.escape(field)}"]`)
    if (!input) {
      unplaced.push(`${field} ${message}`)
      continue
    }
    input.setAttribute('aria-invalid', 'true')
    input.closest('label')?.append(h('small', { class: 'field-error' }, message))
  }
  return unplaced
}

async function saveCompany(event: SubmitEvent) {
  event.preventDefault()
  const form = byId('company-form')
  notice('company-error', null)
  notice('company-status', null)
  showFieldErrors(form, {})
  try {
    const saved = await api<CompanySettings>('PATCH', '/settings/company', readCompanyForm())
    fillCompanyForm(saved)
    setCompanyTimezone(saved.timezone)
    notice('company-status', 'Saved.')
  } catch (error) {
    const unplaced = error instanceof ApiError ? showFieldErrors(form, error.validationErrors) : []
    notice(
      'company-error',
      error instanceof ApiError && Object.keys(error.validationErrors).length
        ? ['Please correct the marked fields.', ...unplaced].join(' ')
        : messageOf(error)
    )
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

const errorText = (error: unknown) =>
  error instanceof ApiError
    ? { message: messageOf(error), validationErrors: error.validationErrors, code: error.code, data: error.data }
    : { message: messageOf(error), validationErrors: {} }

// ---------------------------------------------------------------------------------------------

function start() {
  byId('login-form').addEventListener('submit', signIn)
  byId('logout').addEventListener('click', () => logOut())
  byId('key-form').addEventListener('submit', createKey)
  byId('new-key-copy').addEventListener('click', () => copyText(byId<HTMLInputElement>('new-key-value').value))
  byId('company-form').addEventListener('submit', saveCompany)
  startAdmins({ api, notice, showFieldErrors, signOut, errorText })
  startWebhooks({ api, notice, showFieldErrors, errorText })
  startWorkingTimes({ api, notice, showFieldErrors, errorText })
  byId('timezones').replaceChildren(...Intl.supportedValuesOf('timeZone').map((zone) => h('option', { value: zone })))
  if (token) openSettings().catch(() => signOut())
  else signOut()
}

start()
