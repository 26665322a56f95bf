import { Type, TSchema } from '@feathersjs/typebox'
import { defineResource, writable } from '../../resources/define-resource'
import { Address, AddressWrite, Bool, Email, Str } from '../../resources/types'

const Telephone = Type.Object(
  { label: Type.Optional(Str()), isDefault: Type.Optional(Bool()), telephoneNumber: Str() },
  { additionalProperties: false, title: 'Telephone' }
)
const EmailEntry = Type.Object(
  { label: Type.Optional(Str()), isDefault: Type.Optional(Bool()), emailAddress: Email() },
  { additionalProperties: false, title: 'CustomerEmail' }
)
const Url = Type.Object(
  { label: Type.Optional(Str()), url: Str(2048) },
  { additionalProperties: false, title: 'CustomerUrl' }
)

const list = <T extends TSchema>(item: T) => Type.Array(item, { maxItems: 100 })

export const customerResource = defineResource({
  path: 'customers',
  entity: 'Customer',
  displayNames: { DE: 'Kunde', IT: 'Cliente', EN: 'Customer' },
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    number: writable(Str()),
    companyName: writable(Str(255, { description: 'Required unless `surname` is given.' })),
    externalId: writable(Str()),
    title: writable(Str()),
    salutation: writable(Str()),
    firstName: writable(Str()),
    surname: writable(Str(255, { description: 'Required unless `companyName` is given.' })),
    telephones: writable(list(Telephone), { json: true }),
    emails: writable(list(EmailEntry), { json: true }),
    urls: writable(list(Url), { json: true }),
    billingAddress: writable(Address, { json: true, writeSchema: AddressWrite })
  },
  filters: ['id', 'number', 'companyName', 'externalId', 'createdAt', 'updatedAt'],
  createRule: {
    description:
      '`companyName` or `surname` is required (a non-empty text), and a PATCH may not clear the last of the two.',
    anyOf: ['companyName', 'surname'].map((name) => ({
      required: [name],
      properties: { [name]: { type: 'string', minLength: 1 } }
    }))
  },
  async beforeWrite({ data, existing }) {
    const errors: Record<string, string> = {}
    const merged = { ...existing, ...data }
    if (!merged.companyName && !merged.surname) {
      Object.assign(
        errors,
        data.companyName === null || !existing
          ? { companyName: 'is required unless surname is given' }
          : { surname: 'is required unless companyName is given' }
      )
    }
    for (const field of ['telephones', 'emails'] as const) {
      const defaults = ((data[field] ?? []) as { isDefault?: boolean }[]).filter((entry) => entry.isDefault)
      if (defaults.length > 1) errors[field] = 'at most one entry may have isDefault: true'
    }
    return errors
  }
})
