import { Type, TSchema, Static } from '@feathersjs/typebox'

/**
 * Building blocks for resource schemas: the bounds of CONTRACT §3.3 are written once here.
 */
export const INT32_MAX = 2147483647

/**
 * Every timestamp in a body or a filter lies in this range (CONTRACT §10.3), every date in the
 * matching day range. A bound on instants is a bound on work: nothing downstream iterates over
 * more calendar days than these ranges hold, and the databases never see a year they cannot store.
 */
export const EARLIEST_INSTANT = '1970-01-01T00:00:00.000Z'
export const LATEST_INSTANT = '2100-01-01T00:00:00.000Z'
export const EARLIEST_DATE = '1970-01-01'
export const LATEST_DATE = '2099-12-31'

export const Id = (options: object = {}) => Type.Integer({ minimum: 1, maximum: INT32_MAX, ...options })
export const Int32 = (options: object = {}) => Type.Integer({ minimum: -INT32_MAX - 1, maximum: INT32_MAX, ...options })
export const Str = (maxLength = 255, options: object = {}) => Type.String({ maxLength, ...options })
export const Text = (options: object = {}) => Type.String({ maxLength: 10000, ...options })
export const Timestamp = (options: object = {}) => Type.String({ format: 'date-time', ...options })
export const DateString = (options: object = {}) => Type.String({ format: 'date', ...options })
export const Color = () => Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' })
export const Email = () => Type.String({ format: 'email', maxLength: 255 })
export const Bool = () => Type.Boolean()
export const Num = (options: object = {}) => Type.Number(options)

/** Whole minutes of one day, `minimum`..1440 (a weekday's target, a break rule, a daily maximum). */
export const DayMinutes = (minimum = 0) => Type.Integer({ minimum, maximum: 1440 })
export const IdList = () => Type.Array(Id(), { maxItems: 100, uniqueItems: true })
export const Enum = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] })

/**
 * JSON-Schema nullability as a type union (`type: ['string', 'null']`), which OpenAPI 3.1 and
 * Ajv both understand and which keeps Ajv's messages to one line per field.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const { type, enum: values } = schema as { type?: string | string[]; enum?: unknown[] }
  if (type === undefined) return Type.Union([schema, Type.Null()]) as unknown as TSchema & { static: Static<T> | null }
  const types = Array.isArray(type) ? type : [type]
  // An enum lists every allowed value, so null must be one of them too.
  const nullableValues = values && !values.includes(null) ? { enum: [...values, null] } : {}
  return Type.Unsafe<Static<T> | null>({
    ...schema,
    type: types.includes('null') ? types : [...types, 'null'],
    ...nullableValues
  })
}

export const addressFields = {
  supplement: Str(),
  street: Str(),
  clarification: Str(),
  zip: Str(),
  city: Str(),
  state: Str(),
  country: Str(),
  externalId: Str()
}

const optionalNullable = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema))

/** Address as written: latitude/longitude are output only (spec: absent from write bodies). */
export const AddressWrite = Type.Object(
  {
    supplement: optionalNullable(Str()),
    street: optionalNullable(Str()),
    clarification: optionalNullable(Str()),
    zip: optionalNullable(Str()),
    city: optionalNullable(Str()),
    state: optionalNullable(Str()),
    country: optionalNullable(Str()),
    externalId: optionalNullable(Str())
  },
  { additionalProperties: false, title: 'AddressInput' }
)

export const Address = Type.Object(
  {
    supplement: Nullable(Str()),
    street: Nullable(Str()),
    clarification: Nullable(Str()),
    zip: Nullable(Str()),
    city: Nullable(Str()),
    state: Nullable(Str()),
    country: Nullable(Str()),
    externalId: Nullable(Str()),
    latitude: Nullable(Num({ minimum: -90, maximum: 90 })),
    longitude: Nullable(Num({ minimum: -180, maximum: 180 }))
  },
  { additionalProperties: false, title: 'Address' }
)

export type AddressValue = Partial<
  Record<keyof typeof addressFields | 'latitude' | 'longitude' | 'link', string | number | null>
>
