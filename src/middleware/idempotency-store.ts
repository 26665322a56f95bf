import crypto from 'node:crypto'
import type { Knex } from 'knex'
import { ON_WRITER } from '../db/knex'

/** Whose key: every row and every look-up is scoped by all three (another key's same string is another key). */
export interface KeyScope {
  companyId: number
  apiKeyId: number
  idempotencyKey: string
}

/** What a key was first used for: a repeat must match all of it. */
export interface RequestFingerprint {
  method: string
  /** Path and query string as sent. */
  path: string
  /** SHA-256 of the body as canonical JSON (src/middleware/idempotency.ts). */
  bodyDigest: string
}

/** A response as it went out: status, the headers a client needs, the body text (null: no body). */
export interface StoredResponse {
  status: number
  headers: Record<string, string>
  body: string | null
}

export type StoredRequest = RequestFingerprint & StoredResponse

/** The outcome of a claim: the row this request now owns, or why it owns none. */
export type Claim = { id: number } | 'running' | 'stored'

const TABLE = 'idempotency_keys'
const KEY_COLUMNS = ['companyId', 'apiKeyId', 'idempotencyKey']
const PRUNE_BATCH = 1000

interface Row {
  id: number
  method: string
  path: string
  bodyDigest: string
  status: number | null
  responseHeaders: string | null
  responseBody: string | null
}

/**
 * A 64-bit advisory lock id per (API key, key). Two different keys sharing one is a chance of
 * 2^-64, and would only answer one of them 409 while the other runs.
 */
const lockId = (scope: KeyScope) =>
  crypto
    .createHash('sha256')
    .update(`idempotency\n${scope.apiKeyId}\n${scope.idempotencyKey}`)
    .digest()
    .readBigInt64BE(0)
    .toString()

/**
 * The stored responses of CONTRACT §13.4, table `idempotency_keys`. A request claims its key with
 * an INSERT inside the transaction of its own write and completes the row in that same
 * transaction, so a committed row always carries the response of a committed write, and a
 * request that fails with a 5xx or a process that dies leaves no row behind (a refusal is stored
 * after its rollback: `storeRefusal`). Why: docs/decisions.md, "Idempotent retries".
 */
export class IdempotencyStore {
  constructor(
    private readonly knex: Knex,
    private readonly pg: boolean
  ) {}

  /**
   * The completed request stored under the key, unless it is older than `cutoff`. On SQLite it is
   * read on the writer's connection: a repeat sent while the first request runs then queues behind
   * its transaction and, when that one is refused, behind the refusal stored after its rollback,
   * and replays it (on a read connection it saw nothing yet, claimed the key in the gap and ran
   * the write again; found by a review). PostgreSQL answers such a repeat 409 (the advisory lock);
   * there the look-up runs on the main pool, whose line the write joins next anyway.
   */
  async find(scope: KeyScope, cutoff: string): Promise<StoredRequest | undefined> {
    const row: Row | undefined = await this.knex(TABLE)
      .where(scope)
      .andWhere('createdAt', '>=', cutoff)
      .first()
      .options(ON_WRITER)
    if (!row || row.status === null) return undefined
    return {
      method: row.method,
      path: row.path,
      bodyDigest: row.bodyDigest,
      status: row.status,
      headers: JSON.parse(row.responseHeaders ?? '{}'),
      body: row.responseBody
    }
  }

  /**
   * Claims the key in `trx`. The unique row decides: its INSERT wins, or finds a stored response
   * (`stored`). A row older than `cutoff` is expired and taken over by the same statement. On
   * PostgreSQL a transaction-scoped advisory lock is tried first, so that a request whose key is
   * held by a running one (on any instance) answers at once (`running`) instead of waiting at the
   * unique index for the other to commit.
   */
  async claim(
    trx: Knex.Transaction,
    scope: KeyScope,
    request: RequestFingerprint,
    now: string,
    cutoff: string
  ): Promise<Claim> {
    if (this.pg) {
      const { rows } = await trx.raw('select pg_try_advisory_xact_lock(?::bigint) as locked', [lockId(scope)])
      if (!rows[0].locked) return 'running'
    }
    const claimed: { id: number }[] = await trx(TABLE)
      .insert({ ...scope, ...request, status: null, responseHeaders: null, responseBody: null, createdAt: now })
      .onConflict(KEY_COLUMNS)
      .merge()
      .where(`${TABLE}.createdAt`, '<', cutoff)
      .returning('id')
    return claimed.length > 0 ? { id: claimed[0].id } : 'stored'
  }

  /** Stores the response on the claimed row, in the transaction that claimed it. */
  async complete(trx: Knex.Transaction, id: number, response: StoredResponse) {
    await trx(TABLE)
      .where({ id })
      .update({
        status: response.status,
        responseHeaders: JSON.stringify(response.headers),
        responseBody: response.body
      })
  }

  /**
   * Stores a refusal (4xx) after its transaction rolled back, in one statement of its own. A
   * request with the same key that claimed it in between wrote what it wrote; then its response
   * stays and this one is dropped.
   */
  async storeRefusal(
    scope: KeyScope,
    request: RequestFingerprint,
    response: StoredResponse,
    now: string,
    cutoff: string
  ) {
    await this.knex(TABLE)
      .insert({
        ...scope,
        ...request,
        status: response.status,
        responseHeaders: JSON.stringify(response.headers),
        responseBody: response.body,
        createdAt: now
      })
      .onConflict(KEY_COLUMNS)
      .merge()
      .where(`${TABLE}.createdAt`, '<', cutoff)
  }

  /** Deletes the rows older than `cutoff`, a bounded batch per statement; how many went. */
  async prune(cutoff: string): Promise<number> {
    let total = 0
    for (;;) {
      const oldest = this.knex(TABLE).select('id').where('createdAt', '<', cutoff).limit(PRUNE_BATCH)
      const deleted = await this.knex(TABLE).whereIn('id', oldest).delete()
      total += deleted
      if (deleted < PRUNE_BATCH) return total
    }
  }
}
