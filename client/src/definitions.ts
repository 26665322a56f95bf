/**
 * The building blocks of the generated service map (api.generated.ts): what a service is made of,
 * and the operator objects of list filters (CONTRACT §3.1).
 */

export type Method = 'find' | 'get' | 'create' | 'patch' | 'remove'

/**
 * A collection: its record, create body, patch body, list query, the methods it offers, for a
 * nested collection (`v1/assignments/:assignmentId/uploads`) its route parameters, and what its
 * create answers when that is more than the record (a webhook subscription's signing secret).
 */
export interface Collection<Result, Data, Patch, Query, Methods extends Method, Route = never, Created = Result> {
  result: Result
  data: Data
  patch: Patch
  query: Query
  methods: Methods
  route: Route
  created: Created
}

/** The change feed: `find({ query: { after } })` answers a page of events and the cursor of the next call. */
export interface Feed<Event, Query> {
  event: Event
  query: Query
}

/** A by-user look-up: `find` answers the one record of the period, created on demand. */
export interface Lookup<Result, Query> {
  lookup: Result
  query: Query
}

/** `field: { $eq, $ne, $in, $nin }`; `null` matches records without a value. */
export interface EqualityFilter<V> {
  $eq?: V | null
  $ne?: V | null
  $in?: V[]
  $nin?: V[]
}

/** Equality and comparisons, on numbers, timestamps (ISO 8601) and dates (`YYYY-MM-DD`). */
export interface RangeFilter<V> extends EqualityFilter<V> {
  $lt?: V
  $lte?: V
  $gt?: V
  $gte?: V
}

/** A text field: equality, comparisons and `$like` (`%` any text, `_` one character; case-insensitive). */
export interface TextFilter extends RangeFilter<string> {
  $like?: string
}

/** A documented extra filter that is not a column (`assignedUserId`): one value or a list. */
export interface OneOfFilter<V> {
  $eq?: V
  $in?: V[]
}

/** `$sort: { startsAt: -1, name: 1 }`, by the fields given, in that order. */
export type SortOf<Field extends string> = { [F in Field]?: 1 | -1 }

/**
 * The file of an upload's create (a multipart POST): `file` is a Blob or File; `fileName`
 * defaults to the File's name, else `upload`.
 */
export interface UploadFile {
  file: Blob
  fileName?: string
}
