/**
 * The catalogues every new company starts with (CONTRACT §9), named in the company's language:
 * German for DE, Italian for IT, English otherwise.
 */
type Localized = { DE: string; IT: string; EN: string }

export const languageOf = (country: string): keyof Localized =>
  country === 'DE' ? 'DE' : country === 'IT' ? 'IT' : 'EN'

export const ROLE_TYPES = ['admin', 'office', 'worker'] as const
export type RoleType = (typeof ROLE_TYPES)[number]

export const roles: { type: RoleType; name: Localized }[] = [
  { type: 'admin', name: { DE: 'Administrator', IT: 'Amministratore', EN: 'Administrator' } },
  { type: 'office', name: { DE: 'Büro', IT: 'Ufficio', EN: 'Office' } },
  { type: 'worker', name: { DE: 'Mitarbeiter', IT: 'Operaio', EN: 'Worker' } }
]

export const assignmentTypes: { name: Localized; color: string }[] = [
  { name: { DE: 'Auftrag', IT: 'Ordine', EN: 'Order' }, color: '#1E88E5' },
  { name: { DE: 'Wartung', IT: 'Manutenzione', EN: 'Maintenance' }, color: '#43A047' },
  { name: { DE: 'Reparatur', IT: 'Riparazione', EN: 'Repair' }, color: '#E53935' }
]

export const STATUS_CATEGORIES = ['open', 'inProgress', 'done', 'cancelled'] as const

export const assignmentStatusTypes: { name: Localized; category: (typeof STATUS_CATEGORIES)[number] }[] = [
  { name: { DE: 'Offen', IT: 'Aperto', EN: 'Open' }, category: 'open' },
  { name: { DE: 'In Arbeit', IT: 'In corso', EN: 'In progress' }, category: 'inProgress' },
  { name: { DE: 'Erledigt', IT: 'Completato', EN: 'Done' }, category: 'done' },
  { name: { DE: 'Storniert', IT: 'Annullato', EN: 'Cancelled' }, category: 'cancelled' }
]

export const assignmentEventTypes: { key: 'work' | 'travel'; name: Localized; shortName: Localized; color: string }[] =
  [
    {
      key: 'work',
      name: { DE: 'Arbeit', IT: 'Lavoro', EN: 'Work' },
      shortName: { DE: 'AR', IT: 'LA', EN: 'WO' },
      color: '#3949AB'
    },
    {
      key: 'travel',
      name: { DE: 'Fahrt', IT: 'Viaggio', EN: 'Travel' },
      shortName: { DE: 'FA', IT: 'VI', EN: 'TR' },
      color: '#FB8C00'
    }
  ]

export const assignmentEventGroupTypes: { name: Localized }[] = [
  { name: { DE: 'Bauabschnitt', IT: 'Lotto', EN: 'Construction phase' } },
  { name: { DE: 'Gewerk', IT: 'Lavorazione', EN: 'Trade' } }
]

export const timeEntryTypes: { name: Localized; eventType?: 'work' | 'travel'; isUnassigned?: boolean }[] = [
  { name: { DE: 'Arbeitszeit', IT: 'Orario di lavoro', EN: 'Working time' }, eventType: 'work' },
  { name: { DE: 'Fahrzeit', IT: 'Tempo di viaggio', EN: 'Travel time' }, eventType: 'travel' },
  { name: { DE: 'Allgemeine Tätigkeit', IT: 'Attività generale', EN: 'General activity' }, isUnassigned: true }
]

export const userAbsenceTypes: {
  name: Localized
  color: string
  needApproval: boolean
  needCompensation: boolean
  countAsWorkingTime: boolean
}[] = [
  {
    name: { DE: 'Urlaub', IT: 'Ferie', EN: 'Vacation' },
    color: '#00ACC1',
    needApproval: true,
    needCompensation: false,
    countAsWorkingTime: false
  },
  {
    name: { DE: 'Krankheit', IT: 'Malattia', EN: 'Sick leave' },
    color: '#E53935',
    needApproval: false,
    needCompensation: false,
    countAsWorkingTime: false
  },
  {
    name: { DE: 'Fortbildung', IT: 'Formazione', EN: 'Further training' },
    color: '#8E24AA',
    needApproval: true,
    needCompensation: false,
    countAsWorkingTime: true
  },
  {
    name: { DE: 'Überstundenabbau', IT: 'Recupero ore', EN: 'Overtime compensation' },
    color: '#FDD835',
    needApproval: true,
    needCompensation: true,
    countAsWorkingTime: false
  }
]

export const uploadCategories: { name: Localized; color: string }[] = [
  { name: { DE: 'Fotos', IT: 'Foto', EN: 'Photos' }, color: '#6D4C41' },
  { name: { DE: 'Dokumente', IT: 'Documenti', EN: 'Documents' }, color: '#546E7A' }
]

/** IANA timezone of a country when none is given. */
export const defaultTimezone = (country: string) =>
  ({ DE: 'Europe/Berlin', IT: 'Europe/Rome', AT: 'Europe/Vienna', CH: 'Europe/Zurich' })[country] ?? 'UTC'
