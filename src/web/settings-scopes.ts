import { byId, h, show } from './dom'

/** The scope choice of the settings page's key form (CONTRACT §10.1): full, read-only or per collection. */

export interface ScopeChoices {
  collections: string[]
  defaultScopes: string[]
}

const ACCESS = [
  ['', 'no access'],
  ['read', 'read'],
  ['write', 'read and write']
] as const

/** Fills the per-collection choices; the radio buttons show them only for "Per collection". */
export function renderScopeChoices(choices: ScopeChoices) {
  const grid = byId('key-collections')
  grid.replaceChildren(
    ...choices.collections.map((collection) =>
      h(
        'label',
        {},
        h('code', {}, collection),
        h(
          'select',
          { 'data-collection': collection, 'aria-label': `Access to ${collection}` },
          ...ACCESS.map(([value, text]) => h('option', { value }, text))
        )
      )
    )
  )
  byId('key-scopes')
    .querySelectorAll<HTMLInputElement>('input[name="key-access"]')
    .forEach((radio) => radio.addEventListener('change', () => show(grid, selectedAccess() === 'custom')))
}

const selectedAccess = () =>
  byId('key-scopes').querySelector<HTMLInputElement>('input[name="key-access"]:checked')?.value ?? 'full'

/** The scopes the form asks for; an empty per-collection choice is sent as it is, so that the server names the mistake. */
export function chosenScopes(): string[] {
  const access = selectedAccess()
  if (access === 'full') return ['*:write']
  if (access === 'read') return ['*:read']
  return [...byId('key-collections').querySelectorAll<HTMLSelectElement>('select[data-collection]')]
    .filter((select) => select.value)
    .map((select) => `${select.dataset.collection}:${select.value}`)
}

/** Back to the default (full access) after a key was created. */
export function resetScopeChoices() {
  byId('key-scopes').querySelector<HTMLInputElement>('input[value="full"]')!.checked = true
  byId('key-collections')
    .querySelectorAll<HTMLSelectElement>('select')
    .forEach((select) => (select.value = ''))
  show(byId('key-collections'), false)
}

export const scopesCell = (scopes: string[] | undefined) =>
  h('td', { 'data-label': 'Scopes', class: 'scopes' }, ...(scopes ?? []).map((scope) => h('code', {}, scope)))
