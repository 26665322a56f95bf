/**
 * TypeScript declarations from the JSON Schemas (TypeBox) that validate the API's bodies, answers
 * and queries, for the generated part of @crewclock/client (scripts/generate-client.ts). It reads
 * only the keywords the declarations use (type, enum, properties, required, items, anyOf,
 * additionalProperties, title, description, format) and fails on any other structural keyword,
 * so a schema the client cannot express is noticed when the file is generated, not by a user.
 */

type Schema = Record<string, any>

/** Keywords that only bound a value: TypeScript has no type for them, the server checks them. */
const BOUNDS = new Set([
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'format',
  'description',
  'title',
  '$id',
  'default'
])
const STRUCTURE = new Set(['type', 'enum', 'const', 'properties', 'required', 'items', 'anyOf', 'additionalProperties'])

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name))

/** A JSDoc comment from a schema's description and format, or nothing. */
export function docOf(schema: Schema, indent = ''): string {
  const lines = [
    ...(typeof schema.description === 'string' ? schema.description.split('\n') : []),
    ...(schema.format === 'date-time' ? ['An ISO 8601 date-time; answers are UTC (`2026-11-22T09:30:00.000Z`).'] : []),
    ...(schema.format === 'date' ? ['A date, `YYYY-MM-DD`.'] : [])
  ].map((line) => line.replace(/\*\//g, '*\\/'))
  if (lines.length === 0) return ''
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`).join('\n')}\n${indent} */\n`
}

const union = (types: string[]) => {
  const unique = [...new Set(types)]
  return unique.length === 0 ? 'never' : unique.join(' | ')
}
const parenthesised = (type: string) => (/[|&]/.test(type) ? `(${type})` : type)

/**
 * Writes named declarations as it meets titled object schemas (`Address`, `TimeEntryPause`):
 * each title becomes one interface, shared by every field that uses it.
 */
export class TypeWriter {
  private named = new Map<string, { shape: string; source: string }>()

  constructor(private readonly reserved: Set<string> = new Set()) {}

  /** The declarations of the titled schemas met so far, in the order they were met. */
  declarations(): string[] {
    return [...this.named.values()].map((n) => n.source)
  }

  /** The TypeScript type of a value that `schema` accepts. */
  typeOf(schema: Schema, path: string): string {
    for (const name of Object.keys(schema)) {
      if (!STRUCTURE.has(name) && !BOUNDS.has(name))
        throw new Error(`${path}: the client generator does not know the schema keyword "${name}"`)
    }
    if (schema.anyOf) return union(schema.anyOf.map((s: Schema, i: number) => this.typeOf(s, `${path}.anyOf.${i}`)))
    if (schema.const !== undefined) return JSON.stringify(schema.const)
    if (schema.enum) return union(schema.enum.map((value: unknown) => JSON.stringify(value)))
    const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []
    if (types.length === 0) return 'unknown'
    return union(
      types.map((type) => {
        switch (type) {
          case 'string':
            return 'string'
          case 'integer':
          case 'number':
            return 'number'
          case 'boolean':
            return 'boolean'
          case 'null':
            return 'null'
          case 'array':
            return `${parenthesised(schema.items ? this.typeOf(schema.items, `${path}[]`) : 'unknown')}[]`
          case 'object':
            return this.objectOf(schema, path)
          default:
            throw new Error(`${path}: unknown JSON Schema type "${type}"`)
        }
      })
    )
  }

  private objectOf(schema: Schema, path: string): string {
    const body = this.membersOf(schema, path, '  ')
    if (typeof schema.title !== 'string') return body === null ? this.recordOf(schema, path) : `{\n${body}}`
    if (body === null) throw new Error(`${path}: the titled schema ${schema.title} has no properties`)
    const name = schema.title
    if (this.reserved.has(name)) throw new Error(`${path}: the title ${name} is also the name of a resource type`)
    const shape = JSON.stringify({ body })
    const known = this.named.get(name)
    if (known && known.shape !== shape) throw new Error(`${path}: two different schemas are titled ${name}`)
    if (!known) this.named.set(name, { shape, source: `${docOf(schema)}export interface ${name} {\n${body}}\n` })
    return name
  }

  private recordOf(schema: Schema, path: string): string {
    if (schema.additionalProperties === false) return 'Record<string, never>'
    const value =
      typeof schema.additionalProperties === 'object'
        ? this.typeOf(schema.additionalProperties, `${path}.*`)
        : 'unknown'
    return `Record<string, ${value}>`
  }

  /** The members of an object type, one a line with their docs, or null for an object without properties. */
  membersOf(schema: Schema, path: string, indent: string): string | null {
    const properties: Record<string, Schema> | undefined = schema.properties
    if (!properties || Object.keys(properties).length === 0) return null
    if (schema.additionalProperties !== false)
      throw new Error(`${path}: an object with properties must not allow others (additionalProperties: false)`)
    const required = new Set<string>(schema.required ?? [])
    return Object.entries(properties)
      .map(
        ([name, property]) =>
          `${docOf(property, indent)}${indent}${key(name)}${required.has(name) ? '' : '?'}: ${this.typeOf(property, `${path}.${name}`)}\n`
      )
      .join('')
  }

  /** `export interface Name { ... }` of an object schema. */
  interfaceOf(name: string, schema: Schema, doc: string): string {
    const body = this.membersOf(schema, name, '  ')
    return `${doc}export interface ${name} {\n${body ?? ''}}\n`
  }
}
