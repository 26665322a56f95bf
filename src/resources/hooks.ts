import { authenticate } from '@feathersjs/authentication'
import { Forbidden, NotAuthenticated } from '@feathersjs/errors'
import type { TObject } from '@feathersjs/typebox'
import type { HookContext, NextFunction, Params } from '../declarations'
import type { Resource } from './define-resource'
import { parseListQuery } from './query'
import { badRequest, BodyErrorsSlot, checkBody, notAnObject, pathId } from './validation'
import { allows, Access } from '../auth/scopes'
import { authenticateApiKey, INVALID_API_KEY } from '../auth/authentication'

/**
 * The shared hooks every declared resource runs, in the generator's order: authenticate,
 * validate the query and path, validate the body; the service does the company-scoped work.
 */

/**
 * External calls need a key: on REST the `ck_` bearer value itself, on a socket the JWT Feathers
 * minted when the socket authenticated with a key. Internal calls bring params.company. Every
 * credential that does not open /v1 gets the same 401 as an unknown key (CONTRACT §2), so the
 * answer neither tells a JWT from garbage nor leaks the token library's errors.
 */
export const requireApiKey = async (context: HookContext, next: NextFunction) => {
  if (context.params.provider) {
    const strategies = context.params.provider === 'rest' ? ['apiKey'] : ['apiKey', 'jwt']
    const sent = context.params.authentication as { strategy?: string } | undefined
    if (sent && !strategies.includes(String(sent.strategy))) throw new NotAuthenticated(INVALID_API_KEY)
    try {
      if (context.params.provider === 'rest' && sent && context.params.authenticated !== true) {
        // What Feathers' authenticate hook does for the one strategy REST allows, without its
        // look-up of the service and the strategy and its copies of params on every call
        // (~4 % of a cached GET's CPU, issue #22).
        const result = await authenticateApiKey(context.app, (sent as { apiKey?: unknown }).apiKey)
        context.params = { ...context.params, ...result, authenticated: true }
      } else await authenticate(strategies[0], ...strategies.slice(1))(context)
    } catch (error) {
      throw sent && error instanceof NotAuthenticated ? new NotAuthenticated(INVALID_API_KEY) : error
    }
    if (context.params.settingsLogin) throw new NotAuthenticated('Use an API key for /v1')
    const { company, apiKey } = context.params
    if (company && apiKey) {
      // The key's budget (CONTRACT §10.2); on REST its RateLimit-* headers go out with the response.
      await context.app.get('keyBudget')?.spend(apiKey.id, context.params.rateLimitHeaders)
      context.app.get('usage')?.record(company.id, apiKey.id, 'v1')
    }
  }
  await next()
}

// --- Key scopes (CONTRACT §10.1) -------------------------------------------------------------

/** find and get read; every other method (create, patch, update, remove) writes. */
export const accessOf = (method: string): Access => (method === 'find' || method === 'get' ? 'read' : 'write')

/**
 * 403 naming the scope the key lacks. An external call without a key is refused as well: after
 * `requireApiKey` that cannot happen, and a hole there must not become full access here.
 */
export function assertScope(apiKey: Params['apiKey'], collection: string, access: Access) {
  if (apiKey && allows(apiKey.scopes, collection, access)) return
  const scope = `${collection}:${access}`
  throw new Forbidden(`This API key lacks the scope ${scope}`, { scope })
}

/**
 * Runs after `requireApiKey`: the key's scopes must cover `collection` (the first segment under
 * /v1, so uploads and by-user look-ups count as their parent) for the method's access. Internal
 * calls carry no provider and are the server's own work.
 */
export const requireScope =
  (collection: string, access?: Access) => async (context: HookContext, next: NextFunction) => {
    if (context.params.provider) assertScope(context.params.apiKey, collection, access ?? accessOf(context.method))
    await next()
  }

// ------------------------------------------------------------------------------------------------

/** The path id as an integer id, else 400 naming the path parameter (`idParam`). */
export const parsePathId = (idParam: string) => async (context: HookContext) => {
  if (context.id === undefined || context.id === null) return
  context.id = pathId(context.id, idParam)
}

export const validateQuery = (resource: Resource, querySchema: TObject) => async (context: HookContext) => {
  const query = context.params.query ?? {}
  if (context.method === 'find') {
    context.params.list = parseListQuery(resource, querySchema, query)
  } else if (context.params.provider && Object.keys(query).length > 0) {
    throw badRequest(
      'Invalid query',
      Object.fromEntries(Object.keys(query).map((k) => [k, `is not a parameter of ${context.method}`]))
    )
  }
  context.params.query = {}
}

export const validateData = (resource: Resource) => async (context: HookContext) => {
  if (context.method !== 'create' && context.method !== 'patch') return
  if (Array.isArray(context.data)) throw notAnObject()
  // The fields that passed go on to the service; it adds reference and rule errors to these and
  // answers one 400 with all of them. Always set, so a nested call never sees an outer call's errors.
  const { data, errors } = checkBody(resource, context.method, context.data)
  context.data = data
  ;(context.params as BodyErrorsSlot).invalidFields = Object.keys(errors).length > 0 ? errors : undefined
}

/** DELETE over REST answers 204 with no body; events and socket calls still carry the removed record. */
export const noContentOnRemove = async (context: HookContext) => {
  if (context.params.provider === 'rest') {
    context.http = { ...context.http, status: 204 }
    context.dispatch = null
  }
}
