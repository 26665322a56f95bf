import type { TSchema } from '@feathersjs/typebox'
import type { FieldSpec, Resource, Row } from './define-resource'
import { filterKind } from './query'

/**
 * Row ↔ resource mapping derived from the declaration: JSON documents, booleans (SQLite 0/1),
 * timestamps (PostgreSQL Date, SQLite text) and numbers come out the same on both databases.
 */

type Decode = (value: unknown) => unknown

/**
 * Stored documents get every declared property of their object schema, null when absent. Built
 * once per schema: walking the schema for every document of every row was a visible part of a
 * list's CPU time (issue #22).
 */
function shapeOf(schema: TSchema | undefined): Decode {
  const items = schema?.items ? shapeOf(schema.items) : undefined
  const required = new Set<string>(schema?.required ?? [])
  const properties = schema?.properties
    ? Object.entries(schema.properties as Record<string, TSchema>).map(
        ([key, propertySchema]) => [key, shapeOf(propertySchema), required.has(key)] as const
      )
    : undefined
  return (value) => {
    if (value === null || typeof value !== 'object') return value
    if (Array.isArray(value)) return items ? value.map((item) => items(item)) : value
    if (!properties) return value
    const result: Row = {}
    for (const [key, shape, isRequired] of properties) {
      const v = (value as Row)[key]
      if (v !== undefined) result[key] = shape(v)
      else if (isRequired) result[key] = null
    }
    return result
  }
}

/**
 * A stored timestamp as ISO 8601 UTC. SQLite keeps the text `encodeData` wrote, which is already
 * that: returned as it is when it cannot mean another instant, since parsing and formatting it
 * again was ~half of decoding a row. Days past the 28th go through Date, which rolls an invalid
 * one over (Feb 30 → Mar 1), as does everything not in exactly that form.
 */
const CANONICAL_UTC = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|1\d|2[0-8])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/

const toIso = (value: unknown) => {
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'string' && CANONICAL_UTC.test(value)) return value
  return new Date(value as string).toISOString()
}

const asIs: Decode = (value) => value

/** How one stored, non-null value of a field becomes its output. */
function decoderOf(spec: FieldSpec): Decode {
  if (spec.json) {
    const shape = shapeOf(spec.schema)
    return (value) => shape(typeof value === 'string' ? JSON.parse(value) : value)
  }
  switch (filterKind(spec.schema)) {
    case 'timestamp':
      return toIso
    case 'boolean':
      return Boolean
    case 'number':
      return Number
    default:
      return asIs
  }
}

/** Each output field with its decoder (null: not stored, always null), per resource, built at first use. */
const decoders = new WeakMap<Resource, Array<readonly [string, Decode | null]>>()

function fieldDecoders(resource: Resource) {
  let fields = decoders.get(resource)
  if (!fields) {
    fields = resource.outputFields.map((name) => {
      const spec = resource.fields[name]
      return [name, spec.stored ? decoderOf(spec) : null] as const
    })
    decoders.set(resource, fields)
  }
  return fields
}

export function decodeRow(resource: Resource, row: Row): Row {
  const result: Row = {}
  for (const [name, decode] of fieldDecoders(resource)) {
    const value = row[name]
    result[name] = decode === null || value === null || value === undefined ? null : decode(value)
  }
  return result
}

/** The stored columns of a validated write body (camelCase; knex maps to snake_case). */
export function encodeData(resource: Resource, data: Row): Row {
  const row: Row = {}
  for (const [name, value] of Object.entries(data)) {
    const spec = resource.fields[name]
    if (!spec || !spec.stored) continue
    if (value === null || value === undefined) row[name] = null
    else if (spec.json) row[name] = JSON.stringify(value)
    else if (filterKind(spec.schema) === 'timestamp' && typeof value === 'string')
      row[name] = new Date(value).toISOString()
    else row[name] = value
  }
  return row
}
