import fc from 'fast-check'
import type { ValidateFunction } from 'ajv'
import { bodyAjv } from '../../src/resources/validation'
import { INT32_MAX } from '../../src/resources/types'
import { nonNull, type Json } from './sweep'

/**
 * fast-check arbitraries for input an API must refuse: every value here is invalid by
 * construction (or filtered against the declared schema of the one field it is aimed at), so
 * the only right answers are 4xx errors that change nothing.
 */

/** Keys and operators that reach databases in other stacks: query operators, column names, prototypes. */
export const INJECTION_KEYS = [
  '$where',
  '$or',
  '$and',
  '$nor',
  '$not',
  '$limit',
  '$skip',
  '$select',
  '$populate',
  '$eager',
  '$joinRelation',
  '$modify',
  '$regex',
  '$text',
  '$raw',
  '$expr',
  'company_id',
  'companyId',
  'password_hash',
  'passwordHash',
  'key_hash',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  "id'",
  'id;--',
  'id"',
  '1',
  'select',
  'sqlite_master'
]

export const injectionKey = () =>
  fc.oneof(fc.constantFrom(...INJECTION_KEYS), fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_$]{0,30}$/))

/** Strings that look like SQL, operators, encodings or nothing at all. */
export const nastyString = () =>
  fc.oneof(
    fc.constantFrom(
      "' OR '1'='1",
      '1; DROP TABLE customers; --',
      '%',
      '_',
      '\\',
      '\u0000',
      '%00',
      '😀',
      '\u202e',
      'null',
      'undefined',
      'NaN',
      '[object Object]',
      '{"$gt":""}'
    ),
    fc.string({ maxLength: 40, unit: 'grapheme' })
  )

const nest = (depth: number, leaf: unknown, asObject: boolean): unknown => {
  let value = leaf
  for (let i = 0; i < depth; i++) value = asObject ? { a: value } : [value]
  return value
}

/** Deeply nested arrays or objects. */
export const deepJson = (maxDepth = 1000) =>
  fc
    .tuple(fc.integer({ min: 8, max: maxDepth }), fc.boolean(), fc.jsonValue({ maxDepth: 1 }))
    .map(([depth, asObject, leaf]) => nest(depth, leaf, asObject))

/** Any JSON value, weighted towards the shapes that catch type confusion. */
export const anyJsonValue = () =>
  fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(-1, 0, 0.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 1, 1e308, -1e308),
    nastyString(),
    fc.string({ minLength: 256, maxLength: 12000, unit: 'binary' }),
    fc.constantFrom(
      '1',
      'true',
      '2026-13-45T25:61:00Z',
      '2026-02-30',
      '#GGGGGG',
      'not-an-email',
      'javascript:alert(1)'
    ),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
    fc.array(fc.integer(), { minLength: 101, maxLength: 150 }),
    fc.constantFrom({ $gt: '' }, { $ne: null }, { $where: '1' }, ['1'], [null], {}),
    fc.dictionary(injectionKey(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    deepJson()
  )

const validators = new Map<Json, ValidateFunction>()
/** Whether the declared schema of one field accepts a value (as it arrives after JSON). */
export function acceptedBy(schema: Json, value: unknown): boolean {
  let validate = validators.get(schema)
  if (!validate) {
    const { $id: _id, ...rest } = schema
    validate = bodyAjv.compile(rest)
    validators.set(schema, validate)
  }
  return validate(JSON.parse(JSON.stringify(value ?? null)))
}

/** A value the field's schema refuses. */
export const badValueFor = (schema: Json) =>
  anyJsonValue().filter((value) => value !== undefined && !acceptedBy(schema, value))

const isValidId = (text: string) => /^\d{1,10}$/.test(text) && Number(text) >= 1 && Number(text) <= INT32_MAX

/** Path ids that are not ids: text, negatives, fractions, out of int32, encodings, injection. */
export const badPathId = (staticSegments: Set<string>) =>
  fc
    .oneof(
      fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }),
      fc.bigInt({ min: 2n ** 31n, max: 2n ** 90n }).map(String),
      fc.integer({ min: -(2 ** 31), max: 0 }).map(String),
      fc.double().map(String),
      fc.constantFrom(
        '0',
        '00',
        '1.0',
        '1e3',
        '0x1F',
        ' 1',
        '1 ',
        '+1',
        '-1',
        '１',
        "1' OR '1'='1",
        '1;DROP TABLE customers',
        '%00',
        '$where',
        'null',
        '[]',
        '{}',
        '1,2',
        '1/2',
        '1%2F2'
      )
    )
    // `.`/`..` are resolved by the URL, static segments are other routes: neither is an id at all.
    .filter((text) => !isValidId(text) && !/^\.{1,2}$/.test(text) && !staticSegments.has(text))

/** Query values a filter of this kind refuses. */
export function badFilterValue(valueSchema: Json) {
  const s = nonNull(valueSchema)
  const notNumeric = fc.oneof(
    fc.constantFrom('abc', '1.5.1', '-', '1,2', '0x', 'Infinity', "1' OR 1=1"),
    fc.stringMatching(/^[a-z][a-z0-9 ]{0,10}$/)
  )
  if (s.type === 'integer')
    return fc.oneof(notNumeric, fc.constantFrom('1.5', '2147483648', '-2147483649', '99999999999999999999'))
  if (s.type === 'number') return notNumeric
  if (s.type === 'boolean') return fc.constantFrom('maybe', 'yes', 'no', '2', 'TRUE ', 'on')
  if (s.format === 'date-time')
    return fc.constantFrom(
      'yesterday',
      '2026-11-22',
      '2026-11-22T10:00:00',
      '2026-13-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '22.11.2026 10:00',
      '1e12',
      "2026-11-22T10:00:00Z' OR 1=1"
    )
  if (s.format === 'date')
    return fc.constantFrom('2026-02-30', '22.11.2026', '2026-1-1', '2026-11-22T00:00:00Z', 'today', '20261122')
  if (s.enum) return fc.string({ minLength: 1, maxLength: 20 }).filter((v) => !s.enum.includes(v) && v !== 'null')
  return fc.string({ minLength: 256, maxLength: 2000 })
}

/** Operators a filter does not offer. */
export const badOperator = (offered: string[]) =>
  fc
    .constantFrom(
      '$where',
      '$regex',
      '$or',
      '$and',
      '$exists',
      '$raw',
      '$ilike',
      '$notlike',
      '$like',
      '$gt',
      '$lt',
      '$in',
      '$nin',
      '$ne',
      '$contains',
      'constructor',
      'a'
    )
    .filter((op) => !offered.includes(op))
