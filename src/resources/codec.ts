import type { TSchema } from '@feathersjs/typebox'
import type { Resource, Row } from './define-resource'
import { filterKind } from './query'

/**
 * Row ↔ resource mapping derived from the declaration: JSON documents, booleans (SQLite 0/1),
 * timestamps (PostgreSQL Date, SQLite text) and numbers come out the same on both databases.
 */
/** Stored documents get every declared property of their object schema, null when absent. */
function completeShape(schema: TSchema | undefined, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return schema?.items ? value.map((item) => completeShape(schema.items, item)) : value
  if (!schema?.properties) return value
  const required = new Set<string>(schema.required ?? [])
  const result: Row = {}
  for (const [key, propertySchema] of Object.entries(schema.properties as Record<string, TSchema>)) {
    const v = (value as Row)[key]
    if (v !== undefined) result[key] = completeShape(propertySchema, v)
    else if (required.has(key)) result[key] = null
  }
  return result
}

const toIso = (value: unknown) =>
  value instanceof Date ? value.toISOString() : new Date(value as string).toISOString()

export function decodeRow(resource: Resource, row: Row): Row {
  const result: Row = {}
  for (const name of resource.outputFields) {
    const spec = resource.fields[name]
    const value = spec.stored ? row[name] : undefined
    if (value === null || value === undefined) {
      result[name] = null
      continue
    }
    if (spec.json) {
      result[name] = completeShape(spec.schema, typeof value === 'string' ? JSON.parse(value) : value)
      continue
    }
    switch (filterKind(spec.schema)) {
      case 'timestamp':
        result[name] = toIso(value)
        break
      case 'boolean':
        result[name] = Boolean(value)
        break
      case 'number':
        result[name] = Number(value)
        break
      default:
        result[name] = value
    }
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
