import type { WorkingTimeVersion } from '../settings/company'
import { byId, formatMinutes, h, show } from './dom'

/**
 * The working-time part of the settings page (CONTRACT §11.2): the company's model as versions,
 * each valid from a day until the next one. The list shows each version's day and a summary; the
 * form adds a version from a chosen day (default: tomorrow in the company's timezone), prefilled
 * with the version in effect that day, or changes a listed one; a listed version other than the
 * first can be deleted. A refusal because of a locked month or a taken day is shown at the day.
 */

/** As the settings endpoint answers it (the type only: nothing of the server is bundled). */
type Version = WorkingTimeVersion

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const
const FIRST_VERSION_DAY = '1970-01-01'

export interface WorkingTimesPage {
  api: <T>(method: string, path: string, body?: unknown) => Promise<T>
  notice: (id: string, text: string | null) => void
  /** Marks the fields an error names; returns the messages it could not place. */
  showFieldErrors: (form: HTMLElement, errors: Record<string, string>) => string[]
  errorText: (error: unknown) => {
    message: string
    validationErrors: Record<string, string>
    code?: number
    data?: { months?: string[]; userIds?: number[] }
  }
}

let page: WorkingTimesPage
let versions: Version[] = []
let timezone = 'UTC'
/** The version the form changes; null: the form adds one. */
let editing: Version | null = null
/** Whether the admin typed into the model's fields since they were last filled (a new day then keeps them). */
let touched = false

// ---------------------------------------------------------------------------------------------
// Days

const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' })
const monthFormat = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' })

const formatDay = (day: string) => dayFormat.format(new Date(`${day}T00:00:00Z`))
const formatMonth = (month: string) => monthFormat.format(new Date(`${month}T00:00:00Z`))
const describeDay = (day: string) => (day === FIRST_VERSION_DAY ? 'the start' : formatDay(day))

/** Today in the company's timezone, `YYYY-MM-DD`. */
function todayInCompany() {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' })
      .formatToParts(new Date())
      .map((p) => [p.type, p.value])
  )
  return `${parts.year}-${parts.month}-${parts.day}`
}

const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/** The version in effect on `day`: the latest that begins on or before it. */
function versionOn(day: string): Version {
  let found = versions[0]
  for (const version of versions) if (version.validFrom <= day) found = version
  return found
}

// ---------------------------------------------------------------------------------------------
// The list

/** `Mon–Fri 8:00 h, Sat–Sun 0:00 h`: runs of weekdays with the same target. */
function targetsSummary(targets: Version['targetMinutes']) {
  const runs: { from: number; to: number; minutes: number }[] = []
  WEEKDAYS.forEach((day, i) => {
    const last = runs[runs.length - 1]
    if (last && last.minutes === targets[day]) last.to = i
    else runs.push({ from: i, to: i, minutes: targets[day] })
  })
  const name = (i: number) => WEEKDAYS[i][0].toUpperCase() + WEEKDAYS[i].slice(1, 3)
  return runs
    .map((run) => `${name(run.from)}${run.to > run.from ? `–${name(run.to)}` : ''} ${formatMinutes(run.minutes)}`)
    .join(', ')
}

const weekTotal = (targets: Version['targetMinutes']) => WEEKDAYS.reduce((sum, day) => sum + targets[day], 0)

const breakRulesSummary = (rules: Version['breakRules']) =>
  rules.length
    ? rules.map((rule) => `over ${formatMinutes(rule.afterMinutes)}: ${rule.minBreakMinutes} min`).join('; ')
    : 'none'

function versionRow(version: Version, inEffect: boolean) {
  const first = version.validFrom === FIRST_VERSION_DAY
  const when = describeDay(version.validFrom)
  return h(
    'tr',
    {
      'data-version-id': version.id,
      'data-valid-from': version.validFrom,
      class: editing?.id === version.id ? 'editing' : ''
    },
    h(
      'td',
      { 'data-label': 'Valid from' },
      first ? 'the start' : h('time', { datetime: version.validFrom }, when),
      inEffect && ' ',
      inEffect && h('span', { class: 'badge ok' }, 'in effect today')
    ),
    h(
      'td',
      { 'data-label': 'Targets', class: 'targets' },
      targetsSummary(version.targetMinutes),
      h('div', { class: 'muted' }, `${formatMinutes(weekTotal(version.targetMinutes))} a week`)
    ),
    h('td', { 'data-label': 'Break rules' }, breakRulesSummary(version.breakRules)),
    h('td', { 'data-label': 'Maximum a day' }, formatMinutes(version.maxDailyMinutes)),
    h(
      'td',
      { 'data-label': 'Carry-over cap' },
      version.carryOverCapMinutes === null ? 'no cap' : formatMinutes(version.carryOverCapMinutes)
    ),
    h(
      'td',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'edit',
          'aria-label': `Edit the version from ${when}`,
          onclick: () => startEditing(version)
        },
        'Edit'
      ),
      !first &&
        h(
          'button',
          {
            type: 'button',
            class: 'danger delete',
            'aria-label': `Delete the version from ${when}`,
            onclick: () => deleteVersion(version)
          },
          'Delete'
        )
    )
  )
}

function renderList() {
  const current = versionOn(todayInCompany())
  byId('working-times')
    .querySelector('tbody')!
    .replaceChildren(...versions.map((version) => versionRow(version, version.id === current?.id)))
}

async function reload() {
  versions = await page.api<Version[]>('GET', '/settings/working-times')
  renderList()
}

// ---------------------------------------------------------------------------------------------
// The form

const numberInput = (field: string, value: number | null, attributes: Record<string, string | number> = {}) =>
  h('input', {
    type: 'number',
    step: 1,
    min: 0,
    max: 1440,
    inputmode: 'numeric',
    'data-field': field,
    value: value ?? '',
    required: true,
    ...attributes
  })

function breakRuleRow(rule: { afterMinutes: number; minBreakMinutes: number }, index: number) {
  const row = h(
    'div',
    { class: 'break-rule' },
    h(
      'label',
      {},
      'After (min)',
      numberInput(`breakRules.${index}.afterMinutes`, rule.afterMinutes, { class: 'after' })
    ),
    h(
      'label',
      {},
      'Break (min)',
      numberInput(`breakRules.${index}.minBreakMinutes`, rule.minBreakMinutes, { class: 'break', min: 1 })
    ),
    h(
      'button',
      { type: 'button', class: 'link', onclick: () => (row.remove(), renumberBreakRules(), (touched = true)) },
      'Remove'
    )
  )
  return row
}

function renumberBreakRules() {
  byId('break-rules')
    .querySelectorAll('.break-rule')
    .forEach((row, i) => {
      row.querySelector('.after')!.setAttribute('data-field', `breakRules.${i}.afterMinutes`)
      row.querySelector('.break')!.setAttribute('data-field', `breakRules.${i}.minBreakMinutes`)
    })
}

/** Fills the model's fields (not the day) from `model`. */
function fillModel(model: Version) {
  byId('targets').replaceChildren(
    ...WEEKDAYS.map((day) => {
      const input = numberInput(`targetMinutes.${day}`, model.targetMinutes[day], { id: `target-${day}` })
      const hint = h('small', { class: 'muted' }, formatMinutes(model.targetMinutes[day]))
      input.addEventListener(
        'input',
        () => (hint.textContent = input.value === '' ? '' : formatMinutes(Number(input.value)))
      )
      return h('label', {}, day[0].toUpperCase() + day.slice(1, 3), input, hint)
    })
  )
  byId<HTMLInputElement>('max-daily').value = String(model.maxDailyMinutes)
  byId<HTMLInputElement>('carry-cap').value =
    model.carryOverCapMinutes === null ? '' : String(model.carryOverCapMinutes)
  byId('break-rules').replaceChildren(...model.breakRules.map(breakRuleRow))
  touched = false
}

function clearMessages() {
  page.notice('working-time-error', null)
  page.notice('working-times-error', null)
  page.notice('working-times-status', null)
  page.showFieldErrors(byId('working-time-form'), {})
}

/** Back to adding a version: from tomorrow, prefilled with the version in effect then. */
function startAdding() {
  editing = null
  const day = addDays(todayInCompany(), 1)
  const from = byId<HTMLInputElement>('valid-from')
  from.value = day
  from.disabled = false
  byId('working-time-form-title').textContent = 'Add a version'
  byId('valid-from-hint').textContent =
    'The values below are those in effect on that day: change what changes from then on.'
  byId('working-time-submit').textContent = 'Add version'
  show(byId('working-time-cancel'), false)
  fillModel(versionOn(day))
  renderList()
}

function startEditing(version: Version) {
  clearMessages()
  editing = version
  const first = version.validFrom === FIRST_VERSION_DAY
  const from = byId<HTMLInputElement>('valid-from')
  from.value = first ? '' : version.validFrom
  from.disabled = first
  byId('working-time-form-title').textContent = `Change the version from ${describeDay(version.validFrom)}`
  byId('valid-from-hint').textContent = first
    ? 'The first version holds from the start of the calendar: its day cannot change.'
    : 'Moving the day recomputes the days it leaves and the days it reaches.'
  byId('working-time-submit').textContent = 'Save version'
  show(byId('working-time-cancel'), true)
  fillModel(version)
  renderList()
  byId('working-time-form').scrollIntoView({ block: 'start' })
  ;(first ? byId<HTMLInputElement>('target-monday') : from).focus()
}

/** Empty or non-numeric inputs are sent as they are, so that the server names the field. */
const numberOf = (input: HTMLInputElement): number | string =>
  input.value.trim() !== '' && Number.isFinite(Number(input.value)) ? Number(input.value) : input.value

function readForm() {
  const value = (id: string) => byId<HTMLInputElement>(id)
  const cap = value('carry-cap').value.trim()
  const model = {
    targetMinutes: Object.fromEntries(WEEKDAYS.map((day) => [day, numberOf(value(`target-${day}`))])),
    breakRules: [...byId('break-rules').querySelectorAll<HTMLElement>('.break-rule')].map((row) => ({
      afterMinutes: numberOf(row.querySelector('.after') as HTMLInputElement),
      minBreakMinutes: numberOf(row.querySelector('.break') as HTMLInputElement)
    })),
    maxDailyMinutes: numberOf(value('max-daily')),
    carryOverCapMinutes: cap === '' ? null : numberOf(value('carry-cap'))
  }
  // The first version's day cannot change: it is not sent.
  return editing?.validFrom === FIRST_VERSION_DAY ? model : { validFrom: value('valid-from').value, ...model }
}

/**
 * What a refusal means for the admin: a locked month names the months (and users), a taken day
 * says which; anything else is the server's message.
 */
function refusalText(error: ReturnType<WorkingTimesPage['errorText']>) {
  const months: string[] | undefined = error.data?.months
  if (error.code === 409 && months?.length) {
    const users: number[] = error.data?.userIds ?? []
    return (
      `Not saved: this would change ${months.length === 1 ? 'the approved and locked month' : 'the approved and locked months'} ` +
      `${months.map(formatMonth).join(', ')} (user ${users.join(', ')}). Reopen ${months.length === 1 ? 'it' : 'them'} first, or let the version begin after ${months.length === 1 ? 'it' : 'them'}.`
    )
  }
  if (error.code === 409 && error.validationErrors.validFrom)
    return `Not saved: another version begins on that day; change that one instead.`
  if (Object.keys(error.validationErrors).length) return 'Please correct the marked fields.'
  return error.message
}

async function saveVersion(event: SubmitEvent) {
  event.preventDefault()
  const form = byId('working-time-form')
  clearMessages()
  const body = readForm()
  try {
    const saved = editing
      ? await page.api<Version>('PATCH', `/settings/working-times/${editing.id}`, body)
      : await page.api<Version>('POST', '/settings/working-times', body)
    const wasEditing = editing !== null
    await reload()
    startAdding()
    page.notice(
      'working-times-status',
      `${wasEditing ? 'Saved the version' : 'Added a version'} from ${describeDay(saved.validFrom)}; the time sheets are recomputed from that day.`
    )
  } catch (error) {
    const text = page.errorText(error)
    const unplaced = page.showFieldErrors(form, text.validationErrors)
    page.notice('working-time-error', [refusalText(text), ...(text.code === 409 ? [] : unplaced)].join(' '))
  }
}

async function deleteVersion(version: Version) {
  const when = describeDay(version.validFrom)
  if (
    !confirm(
      `Delete the version from ${when}? From that day the version before it applies again, and the time sheets are recomputed.`
    )
  )
    return
  clearMessages()
  try {
    await page.api('DELETE', `/settings/working-times/${version.id}`)
    if (editing?.id === version.id) editing = null
    await reload()
    if (!editing) startAdding()
    page.notice('working-times-status', `Deleted the version from ${when}.`)
  } catch (error) {
    page.notice('working-times-error', refusalText(page.errorText(error)).replace('Not saved', 'Not deleted'))
  }
}

/** Shows the company's versions (from `GET /settings/company`) and resets the form to adding one. */
export function showWorkingTimes(company: { timezone: string; workingTimeVersions: Version[] }) {
  timezone = company.timezone
  versions = company.workingTimeVersions
  clearMessages()
  startAdding()
}

/** After a timezone change: "tomorrow" and "in effect today" follow the company's new day. */
export function setCompanyTimezone(zone: string) {
  timezone = zone
  renderList()
}

export function startWorkingTimes(context: WorkingTimesPage) {
  page = context
  const form = byId('working-time-form')
  form.addEventListener('submit', saveVersion)
  // Typing into the model's fields keeps them when another day is chosen.
  form.addEventListener('input', (event) => {
    if ((event.target as HTMLElement).id !== 'valid-from') touched = true
  })
  byId('valid-from').addEventListener('change', () => {
    const day = byId<HTMLInputElement>('valid-from').value
    if (!editing && !touched && /^\d{4}-\d\d-\d\d$/.test(day)) fillModel(versionOn(day))
  })
  byId('working-time-cancel').addEventListener('click', () => {
    clearMessages()
    startAdding()
  })
  byId('add-break-rule').addEventListener('click', () => {
    const rules = byId('break-rules')
    rules.append(breakRuleRow({ afterMinutes: 360, minBreakMinutes: 30 }, rules.children.length))
    touched = true
  })
}
